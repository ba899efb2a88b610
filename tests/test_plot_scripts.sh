#!/bin/sh
# The plot scripts meet a missing, empty or wrong CSV with one line on stderr
# and a sysexits code (66 no input, 65 bad data), never a traceback; and
# still draw a good file.  Usage: test_plot_scripts.sh SCRIPTS_DIR STRIDEMAP
# Exit 77 (skipped) without /usr/bin/python3 or its matplotlib.
scripts=$1
stridemap=$2
plot_tmp=sm_plot
. "$(dirname "$0")/plot_test_prelude.sh"

: >"$dir/empty.csv"
printf 'a,b\n1,2\n' >"$dir/other.csv"
printf 'kind,step,time,phase,event,theta,theta_dot,phi,phi_dot\nstart,0,soon,stance,,0.2,-0.2,0.4,0\n' >"$dir/gait_nan.csv"
printf 'gamma,index,kind,theta,step_period\n0.01,0,visit,oops,1\n' >"$dir/orbit_nan.csv"
printf 'branch,period,gamma,type,theta,stable\n0,1,0.01,EP,0.2\n' >"$dir/branch_short.csv"
printf 'index,gamma,outcome,max_abs_eig\n0,x,stable,0.5\n' >"$dir/map_nan.csv"

# expect CODE SCRIPT ARGS...: exit CODE, one line on stderr, no traceback.
expect() {
    code=$1
    shift
    "$py" "$@" >"$dir/out" 2>"$dir/err"
    got=$?
    lines=$(wc -l <"$dir/err")
    if [ "$got" -ne "$code" ] || [ "$lines" -ne 1 ] || grep -q Traceback "$dir/err"; then
        echo "FAIL: $* -> exit $got (want $code), stderr:"
        cat "$dir/err"
        failed=$((failed + 1))
    else
        echo "ok: $* -> $got: $(cat "$dir/err")"
    fi
}

for bad in empty other gait_nan; do
    expect 65 "$scripts/plot_gait.py" simplest "$dir/$bad.csv" "$dir/g.png"
done
expect 66 "$scripts/plot_gait.py" simplest "$dir/missing.csv" "$dir/g.png"
for bad in empty other orbit_nan; do
    expect 65 "$scripts/plot_orbit.py" "$dir/$bad.csv" "$dir/o.png"
done
expect 66 "$scripts/plot_orbit.py" "$dir/missing.csv" "$dir/o.png"
for bad in empty other branch_short; do
    expect 65 "$scripts/plot_branch.py" "$dir/$bad.csv" "$dir/b.png"
done
expect 66 "$scripts/plot_branch.py" "$dir/missing.csv" "$dir/b.png"
for bad in empty other map_nan; do
    expect 65 "$scripts/plot_stability_map.py" "$dir/$bad.csv" --out "$dir/m.png"
done
expect 66 "$scripts/plot_stability_map.py" "$dir/missing.csv" --out "$dir/m.png"

# A good file still draws.
if "$stridemap" simulate simplest --steps 2 --out "$dir/walk.csv" 2>/dev/null &&
    "$py" "$scripts/plot_gait.py" simplest "$dir/walk.csv" "$dir/walk.png" && [ -s "$dir/walk.png" ]; then
    echo "ok: plot_gait draws a simulate CSV"
else
    echo "FAIL: plot_gait on a good simulate CSV"
    failed=$((failed + 1))
fi
# An unwritable output is 73.
expect 73 "$scripts/plot_gait.py" simplest "$dir/walk.csv" /nonexistent-dir/walk.png

# The 3-D walker: bad files, then a simulate CSV and a fixed --json drawn.
printf 'kind,step,time,hip_x,hip_y,hip_z,hip_yaw,hip_roll,leg_a,leg_b\nstart,0,0,x,0,1,0,0,0.3,-0.3\n' >"$dir/w3_nan.csv"
printf '{"model": "garcia3d", "eigenvalues": []}' >"$dir/no_eig.json"
printf 'not json' >"$dir/bad.json"
for bad in empty other w3_nan; do
    expect 65 "$scripts/plot_walker3d.py" "$dir/$bad.csv" "$dir/w3.png"
done
expect 66 "$scripts/plot_walker3d.py" "$dir/missing.csv" "$dir/w3.png"
expect 64 "$scripts/plot_walker3d.py" "$dir/w3_nan.csv" "$dir/w3.png" --param nope=1
for bad in no_eig bad; do
    expect 65 "$scripts/plot_walker3d.py" --eigen "$dir/$bad.json" "$dir/e3.png"
done
expect 66 "$scripts/plot_walker3d.py" --eigen "$dir/missing.json" "$dir/e3.png"
model3d=$(dirname "$scripts")/models/garcia3d.yaml
if "$stridemap" simulate "$model3d" --steps 2 --out "$dir/walk3d.csv" >/dev/null 2>&1 &&
    "$py" "$scripts/plot_walker3d.py" "$dir/walk3d.csv" "$dir/walk3d.png" && [ -s "$dir/walk3d.png" ] &&
    "$stridemap" fixed "$model3d" --json >"$dir/gait3d.json" 2>/dev/null &&
    "$py" "$scripts/plot_walker3d.py" --eigen "$dir/gait3d.json" "$dir/eigen3d.png" && [ -s "$dir/eigen3d.png" ]; then
    echo "ok: plot_walker3d draws a simulate CSV and the eigenvectors of fixed --json"
else
    echo "FAIL: plot_walker3d on a good simulate CSV or fixed --json"
    failed=$((failed + 1))
fi
expect 65 "$scripts/plot_walker3d.py" --eigen "$dir/gait3d.json" "$dir/e3.png" --min-modulus 1e9
expect 73 "$scripts/plot_walker3d.py" "$dir/walk3d.csv" /nonexistent-dir/w3.png

# plot_inverse.py: stridemap inverse's CSV (a standing pose in double support, with --forward)
for bad in empty other; do
    expect 65 "$scripts/plot_inverse.py" "$dir/$bad.csv" "$dir/i.png"
done
printf 'time,phase,residual,thigh_a.torque\n0,ss1,0,x\n' >"$dir/inv_nan.csv"
expect 65 "$scripts/plot_inverse.py" "$dir/inv_nan.csv" "$dir/i.png"
expect 66 "$scripts/plot_inverse.py" "$dir/missing.csv" "$dir/i.png"
modelhu=$(dirname "$scripts")/models/human_hu9.yaml
{
    echo "time,phase,hat.x,hat.z,hat,thigh_a,shank_a,foot_a,toe_a,thigh_b,shank_b,foot_b,toe_b"
    for i in 0 1 2 3 4 5 6 7 8; do echo "0.0$i,ds1,-0.2,0.88,0.02,-0.25,0.05,0.2,0,0.25,0.05,-0.25,0"; done
} >"$dir/stand.csv"
if "$stridemap" inverse "$modelhu" "$dir/stand.csv" --forward -o "$dir/inv.csv" >/dev/null 2>&1 &&
    "$py" "$scripts/plot_inverse.py" "$dir/inv.csv" "$dir/inv.png" && [ -s "$dir/inv.png" ]; then
    echo "ok: plot_inverse draws a stridemap inverse CSV"
else
    echo "FAIL: plot_inverse on a good stridemap inverse CSV"
    failed=$((failed + 1))
fi
expect 73 "$scripts/plot_inverse.py" "$dir/inv.csv" /nonexistent-dir/i.png

# plot_human.py: the human walkers' step (stick figures, and with --forces the ground forces)
printf 'kind,step,time,phase,event,hat.x,hat.z,hat,thigh_a,shank_a,foot_a,toe_a,thigh_b,shank_b,foot_b,toe_b\nstart,0,0,ss1,,x,0.9,0,0,0,0,0,0,0,0,0\n' >"$dir/hu_nan.csv"
for bad in empty other hu_nan; do
    expect 65 "$scripts/plot_human.py" human_hu9 "$dir/$bad.csv" "$dir/h.png"
done
expect 66 "$scripts/plot_human.py" human_hu9 "$dir/missing.csv" "$dir/h.png"
expect 64 "$scripts/plot_human.py" human9 "$dir/hu_nan.csv" "$dir/h.png"
expect 64 "$scripts/plot_human.py" human_hu9 "$dir/hu_nan.csv" "$dir/h.png" --param nope=1
# a biped3d file read as human_hu9 lacks its columns
printf 'kind,step,time,phase,event,hat_x\nstart,0,0,heel_rock,,0\n' >"$dir/bi_short.csv"
expect 65 "$scripts/plot_human.py" human_hu9 "$dir/bi_short.csv" "$dir/h.png"
expect 65 "$scripts/plot_human.py" biped3d "$dir/bi_short.csv" "$dir/h.png" --forces
if "$stridemap" simulate "$modelhu" --steps 1 --out "$dir/hu.csv" >/dev/null 2>&1 &&
    "$py" "$scripts/plot_human.py" human_hu9 "$dir/hu.csv" "$dir/hu.png" && [ -s "$dir/hu.png" ] &&
    "$py" "$scripts/plot_human.py" human_hu9 "$dir/hu.csv" "$dir/huf.png" --forces && [ -s "$dir/huf.png" ]; then
    echo "ok: plot_human draws human_hu9's step and its ground forces"
else
    echo "FAIL: plot_human on human_hu9's simulate CSV"
    failed=$((failed + 1))
fi
expect 73 "$scripts/plot_human.py" human_hu9 "$dir/hu.csv" /nonexistent-dir/h.png
# two steps are refused: the figures are one step's, drawn before the legs swap
if "$stridemap" simulate "$modelhu" --steps 2 --out "$dir/hu2.csv" >/dev/null 2>&1; [ -s "$dir/hu2.csv" ] &&
    grep -q '^[a-z]*,1,' "$dir/hu2.csv"; then
    expect 65 "$scripts/plot_human.py" human_hu9 "$dir/hu2.csv" "$dir/h.png"
fi

# Basins: bad files, then a small basin drawn with its gait.
printf 'index,theta,theta_dot,outcome,status,strides\n0,0.1,-0.1,maybe,ok,3\n' >"$dir/basin_bad.csv"
printf 'index,theta,outcome,status,strides\n0,0.1,fell,fell_forward,0\n' >"$dir/basin_1d.csv"
for bad in empty other basin_bad basin_1d; do
    expect 65 "$scripts/plot_basin.py" "$dir/$bad.csv" "$dir/basin.png"
done
expect 66 "$scripts/plot_basin.py" "$dir/missing.csv" "$dir/basin.png"
if "$stridemap" basin simplest --plane theta=0.17:0.23:5,theta_dot=-0.23:-0.17:5 --rtol 1e-9 --atol 1e-9 --tol 1e-8 \
        --out "$dir/basin" -q >/dev/null 2>&1 &&
    "$py" "$scripts/plot_basin.py" "$dir/basin/basin.csv" "$dir/basin.png" >/dev/null && [ -s "$dir/basin.png" ]; then
    echo "ok: plot_basin draws a basin"
else
    echo "FAIL: plot_basin on a good basin"
    failed=$((failed + 1))
fi
expect 73 "$scripts/plot_basin.py" "$dir/basin/basin.csv" /nonexistent-dir/basin.png

# A disturbance sweep (scripts/reproduce_disturb.py's CSV).
printf 'b,max_abs_eigenvalue,step_down,step_up,gsn_step_down\n0.3,0.55,0.0197,0.0075,14.5\n0.4,0.58,0.0195,0.0066,17.8\n' >"$dir/dist.csv"
printf 'b,max_abs_eigenvalue,step_down,step_up,gsn_step_down\n0.3,x,0.0197,0.0075,14.5\n' >"$dir/dist_nan.csv"
expect 65 "$scripts/plot_disturb.py" "$dir/dist_nan.csv" "$dir/d.png"
expect 66 "$scripts/plot_disturb.py" "$dir/missing.csv" "$dir/d.png"
if "$py" "$scripts/plot_disturb.py" "$dir/dist.csv" "$dir/dist.png" && [ -s "$dir/dist.png" ]; then
    echo "ok: plot_disturb draws a disturbance sweep"
else
    echo "FAIL: plot_disturb on a good sweep CSV"
    failed=$((failed + 1))
fi

# The actuated walkers: bad files and names, then a simulate CSV drawn.
printf 'kind,step,time,hip_x,hip_z,leg_a,leg_b,torso\nstart,0,0,0,1,x,0.3,0.5\n' >"$dir/act_nan.csv"
for bad in empty other act_nan; do
    expect 65 "$scripts/plot_actuated.py" three_link_hzd "$dir/$bad.csv" "$dir/a.png"
done
expect 66 "$scripts/plot_actuated.py" three_link_hzd "$dir/missing.csv" "$dir/a.png"
expect 64 "$scripts/plot_actuated.py" compass "$dir/act_nan.csv" "$dir/a.png"
expect 64 "$scripts/plot_actuated.py" five_link "$dir/act_nan.csv" "$dir/a.png" --param r=1
if "$stridemap" simulate "$(dirname "$scripts")/models/three_link_hzd.yaml" --steps 1 --dt 0.01 --out "$dir/act.csv" >/dev/null 2>&1 &&
    "$py" "$scripts/plot_actuated.py" three_link_hzd "$dir/act.csv" "$dir/act.png" && [ -s "$dir/act.png" ]; then
    echo "ok: plot_actuated draws a simulate CSV"
else
    echo "FAIL: plot_actuated on a good simulate CSV"
    failed=$((failed + 1))
fi
expect 73 "$scripts/plot_actuated.py" three_link_hzd "$dir/act.csv" /nonexistent-dir/a.png

echo "plot scripts: $failed failed"
[ "$failed" -eq 0 ]
