#!/bin/bash
# The cluster templates (scripts/slurm/) on a real SLURM: starts a private
# single-node SLURM (munged, slurmctld, slurmd as root, everything under a
# temporary folder, ports of its own), submits
#   - sweep-array.sbatch as 4 array tasks (--shard), one of which stops after
#     one row on its first run (as SIGTERM at a time limit would stop it):
#     'stridemap merge' must then report points missing, and the task,
#     requeued, must finish its share by --resume;
#   - sweep-mpi.sbatch as 2 ranks (srun --mpi=pmix) when this build has MPI;
# and compares their rows with a threaded run (--jobs 2).  The daemons are
# stopped by their pids on every exit.
# Usage: test_slurm.sh SOURCE_DIR STRIDEMAP MPI_BUILD(0|1)
# Skipped (77) unless STRIDEMAP_SLURM_TEST=1 (it starts daemons as root:
# .ci/run asks for it), or without root, slurm-wlm or munge.
set -uo pipefail
src=$1
stridemap=$(readlink -f "$2")
mpi_build=${3:-0}

if [ "${STRIDEMAP_SLURM_TEST:-0}" != 1 ]; then
    echo "skipped: set STRIDEMAP_SLURM_TEST=1 to start a private SLURM (as root; .ci/run does)"
    exit 77
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "skipped: slurmd must run as root to start jobs"
    exit 77
fi
for p in munged slurmctld slurmd sbatch srun squeue scontrol; do
    if ! command -v "$p" >/dev/null; then
        echo "skipped: no $p (Debian: apt-get install slurm-wlm munge)"
        exit 77
    fi
done

host=$(hostname -s)
tmp=$(mktemp -d /tmp/sm_slurm_XXXXXX) || exit 1
# munged wants every folder on its socket's path searchable by all
chmod 755 "$tmp"
pids=()
cleanup() {
    if [ -f "$tmp/slurm.conf" ] && [ -n "${ctld_pid:-}" ]; then
        squeue -h -o %A 2>/dev/null | xargs -r scancel 2>/dev/null
        for _ in $(seq 30); do
            [ -z "$(squeue -h 2>/dev/null)" ] && break
            sleep 1
        done
    fi
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.2
        done
        kill -9 "$pid" 2>/dev/null
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

failed=0 passed=0
ok() { echo "[       OK ] $1"; passed=$((passed + 1)); }
fail() { echo "[  FAILED  ] $1"; failed=$((failed + 1)); }
finish() {
    echo "[  PASSED  ] $passed test(s)."
    [ "$failed" -eq 0 ] && exit 0
    echo "[  FAILED  ] $failed test(s), listed above."
    exit 1
}
# Shows a daemon's log and gives up: nothing after it can run.
give_up() {
    fail "$1"
    for log in "$tmp"/munge/munged.log "$tmp"/log/*.log; do
        [ -f "$log" ] && { echo "--- $log"; tail -n 20 "$log"; }
    done
    finish
}
# The pid a daemon wrote, once it has.
pid_of() {
    for _ in $(seq 50); do
        [ -s "$1" ] && { cat "$1"; return 0; }
        sleep 0.2
    done
    return 1
}

# munge: a key of our own, its socket, pid, log and seed in $tmp/munge.
mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/log" "$tmp/work"
chmod 755 "$tmp/munge"
head -c 1024 /dev/urandom >"$tmp/munge/munge.key"
chmod 600 "$tmp/munge/munge.key"
munged --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.socket" --pid-file="$tmp/munge/munged.pid" \
    --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/munged.seed" || give_up "munged did not start"
pid=$(pid_of "$tmp/munge/munged.pid") || give_up "munged wrote no pid"
pids=("$pid")

# Ports of our own, so that another test's SLURM (or a real one) is left alone.
port=$((20000 + ($$ % 10000) * 2))
cat >"$tmp/slurm.conf" <<EOF
ClusterName=stridemap-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf
# PMIx where this SLURM has its plugin (srun reads the file for the list)
mpi_default=none
if srun --mpi=list 2>&1 | grep -qw pmix; then
    mpi_default=pmix
    sed -i 's/^MpiDefault=none$/MpiDefault=pmix/' "$SLURM_CONF"
fi
slurmctld -f "$SLURM_CONF" || give_up "slurmctld did not start"
ctld_pid=$(pid_of "$tmp/slurmctld.pid") || give_up "slurmctld wrote no pid"
pids=("$ctld_pid" "${pids[@]}")
slurmd -f "$SLURM_CONF" || give_up "slurmd did not start"
pid=$(pid_of "$tmp/slurmd.pid") || give_up "slurmd wrote no pid"
pids=("$pid" "${pids[@]}")
state=""
for _ in $(seq 60); do
    state=$(sinfo -h -n "$host" -o %t 2>/dev/null)
    [ "$state" = idle ] && break
    sleep 1
done
[ "$state" = idle ] || give_up "node $host is '$state', not idle, after 60 s"
ok "a private SLURM ($(sinfo -V)), node $host idle, MpiDefault=$mpi_default"

# Waits for a job (every task of an array) to leave the queue.
wait_job() {
    for _ in $(seq 300); do
        [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
        sleep 1
    done
    return 1
}
job_state() { scontrol -o show job "$1" | grep -oE 'JobState=[A-Z_]+' | cut -d= -f2; }
# DIR/sweep.csv without the wall_s column (the one before last), as sorted text.
rows() { awk -F, -v OFS=, '{ $(NF - 1) = ""; print }' "$1/sweep.csv"; }

export MODEL=compass
export GRID="--set m=1 --set a=1 --grid b=0.3:1.5:4 --grid mh=1:4:4"
export OPENBLAS_NUM_THREADS=1
cd "$tmp/work" || exit 1
# shellcheck disable=SC2086  # GRID is a list of options
"$stridemap" sweep "$MODEL" $GRID --jobs 2 --out "$tmp/threads" -q || give_up "the threaded sweep failed"
want=$(rows "$tmp/threads")

# The array: task 3's first run stops after one row (exit 75); requeued, it resumes.
cat >"$tmp/first-try" <<EOF
#!/bin/sh
if [ "\$SLURM_ARRAY_TASK_ID" = 3 ] && [ "\${SLURM_RESTART_COUNT:-0}" = 0 ]; then
    exec "$stridemap" "\$@" --stop-after=1
fi
exec "$stridemap" "\$@"
EOF
chmod +x "$tmp/first-try"
jid=$(STRIDEMAP=$tmp/first-try OUT=$tmp/array sbatch --parsable --array=0-3 --cpus-per-task=1 \
    --output="$tmp/work/array-%A_%a.out" "$src/scripts/slurm/sweep-array.sbatch") || give_up "sbatch of the array refused"
wait_job "$jid" || give_up "the array job $jid did not finish in 300 s"
states=$(for k in 0 1 2 3; do job_state "${jid}_$k"; done | tr '\n' ' ')
if [ "$states" = "COMPLETED COMPLETED COMPLETED FAILED " ]; then
    ok "array of 4 --shard tasks: 3 completed, the stopped one failed ($states)"
else
    fail "array task states: $states (want COMPLETED x3, FAILED)"
    cat "$tmp"/work/array-*.out
fi
"$stridemap" merge "$tmp/array" >"$tmp/merge.out" 2>&1
rc=$?
if [ "$rc" -eq 1 ]; then ok "merge with a share missing: exit 1"; else fail "merge with a share missing: exit $rc, want 1"; fi

scontrol requeue "${jid}_3" || give_up "scontrol requeue ${jid}_3 refused"
# a requeued job waits out a delay before it may start again; not here
scontrol update jobid="${jid}_3" StartTime=now >/dev/null 2>&1
wait_job "${jid}_3" || give_up "the requeued task ${jid}_3 did not finish in 300 s"
state=$(job_state "${jid}_3")
restarts=$(scontrol -o show job "${jid}_3" | grep -oE 'Restarts=[0-9]+')
if [ "$state" = COMPLETED ] && [ "$restarts" = Restarts=1 ]; then
    ok "the requeued task finished by --resume ($restarts)"
else
    fail "the requeued task: $state, $restarts"
    cat "$tmp/work/array-${jid}_3.out"
fi
if "$stridemap" merge "$tmp/array" >"$tmp/merge.out" 2>&1 && [ "$(rows "$tmp/array")" = "$want" ]; then
    ok "array + requeue + merge: the threaded run's $(($(wc -l <"$tmp/array/sweep.csv") - 1)) rows"
else
    fail "array + merge: rows differ from the threaded run's"
    cat "$tmp/merge.out"
    diff <(echo "$want") <(rows "$tmp/array") | head -n 10
fi

# The MPI template: one node, 2 ranks of one CPU each (its defaults are 4 nodes x 32 CPUs).
if [ "$mpi_build" = 1 ]; then
    jid=$(STRIDEMAP=$stridemap OUT=$tmp/mpi sbatch --parsable --nodes=1 --ntasks-per-node=2 --cpus-per-task=1 \
        --output="$tmp/work/mpi-%j.out" "$src/scripts/slurm/sweep-mpi.sbatch") || give_up "sbatch of the MPI job refused"
    wait_job "$jid" || give_up "the MPI job $jid did not finish in 300 s"
    state=$(job_state "$jid")
    if [ "$state" = COMPLETED ] && [ -f "$tmp/mpi/part-rank-1-of-2.csv" ] && [ "$(rows "$tmp/mpi")" = "$want" ]; then
        ok "MPI job (srun --mpi=pmix, 2 ranks): the threaded run's rows"
    else
        fail "MPI job: $state; rows or rank parts differ"
        cat "$tmp/work/mpi-$jid.out"
        ls "$tmp/mpi" 2>/dev/null
        [ -f "$tmp/mpi/sweep.csv" ] && diff <(echo "$want") <(rows "$tmp/mpi") | head -n 10
    fi
else
    echo "(this build has no MPI: the MPI template is tested by the MPI build, build-mpi)"
fi
finish
