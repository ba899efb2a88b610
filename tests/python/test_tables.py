"""simulate, continue_ and sweep against the stridemap program's CSV files."""
import csv
import math

import numpy as np
import pytest

import stridemap
from conftest import SOURCE, cli_json, run_cli


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def same_number(value, text, fmt):
    """value printed as the program prints it (empty or nan for NaN) is text."""
    if math.isnan(value):
        return text in ("", "nan", "-nan")
    return format(value, fmt) == text


def test_simulate_gives_the_programs_rows(tmp_path):
    out = tmp_path / "walk.csv"
    run_cli("simulate", "simplest", "--steps", "3", "--out", out)
    rows = read_csv(out)
    tr = stridemap.simulate("simplest", steps=3)
    assert tr.ok and tr.steps_done == 3 and len(tr) == len(rows)
    for i, r in enumerate(rows):
        assert (tr.kind[i], str(tr.step[i]), tr.phase[i], tr.event[i]) == (r["kind"], r["step"], r["phase"], r["event"])
        assert same_number(tr.t[i], r["time"], ".12g")
        for name in tr.state_names:
            assert same_number(tr[name][i], r[name], ".15g"), (i, name)
    # Each step's time is the step_period it reports, and the steps are contiguous.
    heel = tr.t[tr.kind == "post"]
    assert np.allclose(np.diff(np.concatenate([[0.0], heel])), tr.steps["step_period"], rtol=0, atol=1e-12)


def test_simulate_a_body_walker_carries_its_contact_forces(tmp_path):
    path = SOURCE / "models" / "compass.yaml"
    out = tmp_path / "walk.csv"
    run_cli("simulate", path, "--steps", "1", "--out", out)
    rows = read_csv(out)
    tr = stridemap.simulate(path, steps=1)
    assert tr.sample_names and len(tr) == len(rows)
    for name in tr.sample_names:
        assert all(same_number(v, r[name], ".15g") for v, r in zip(tr[name], rows)), name


def test_a_fall_ends_the_walk_with_its_status(tmp_path):
    x0 = "0.2,-0.05,0.4,0"
    out = tmp_path / "fall.csv"
    code, _, err = run_cli("simulate", "simplest", "--x0", x0, "--steps", "3", "--out", out, check=False)
    assert code == 1 and "fell_backward" in err
    tr = stridemap.simulate("simplest", x0=[0.2, -0.05, 0.4, 0.0], steps=3)
    assert tr.status == "fell_backward" and tr.steps_done == 0 and not tr.ok
    assert "fell backwards" in tr.message
    assert tr.kind[-1] == "fail" and len(tr) == len(read_csv(out))


def test_continuation_gives_the_programs_branches(tmp_path):
    out = tmp_path / "branch.csv"
    run_cli("continue", "simplest", "--param", "gamma", "--from", "0.0001", "--to", "0.0195", "--guess",
            "0.045,-0.047,0,0", "--switch", "--max-period", "4", "--out", out)
    rows = read_csv(out)
    pts, brs = stridemap.continue_("simplest", "gamma", from_=0.0001, to=0.0195, guess=[0.045, -0.047, 0, 0],
                                   switch=True, max_period=4, frame=False, branches=True)
    assert list(pts.dtype.names) == list(rows[0].keys())
    assert len(pts) == len(rows)
    for p, r in zip(pts, rows):
        for name in pts.dtype.names:
            v = p[name]
            if isinstance(v, np.str_):
                assert v == r[name], name
            elif isinstance(v, (np.bool_, np.integer)):
                assert int(v) == int(r[name]), name
            else:
                assert same_number(float(v), r[name], ".15g"), (name, v, r[name])
    # Three period doublings, each branch twice the period of its parent, and
    # at each PD a multiplier of -1.
    pd = pts[pts["type"] == "PD"]
    assert list(pd["period"]) == [1, 2, 4]
    assert list(brs["period"]) == [1, 2, 4] and list(brs["parent"]) == [-1, 0, 1]
    for p in pd:
        eig = [complex(p[f"eig{k}_re"], p[f"eig{k}_im"]) for k in (1, 2)]
        assert min(abs(e + 1) for e in eig) < 1e-6
    assert set(brs["stop"]) == {"bound"}


def test_a_continuation_without_a_gait_at_its_start_is_a_result():
    pts = stridemap.continue_("simplest", "gamma", from_=0.009, to=0.01, guess=[0.2, -0.05, 0.4, 0.0], frame=False)
    assert pts["type"][-1] == "MX" and pts["status"][-1] != "ok"


def test_sweep_array_matches_the_programs_sweep_csv(tmp_path):
    out = tmp_path / "map"
    run_cli("sweep", "compass", "--grid", "gamma=0.02:0.05:4", "--grid", "mh=5:15:3", "--jobs", "2", "--out", out,
            "-q")
    rows = read_csv(out / "sweep.csv")
    a = stridemap.sweep("compass", {"gamma": (0.02, 0.05, 4), "mh": (5, 15, 3)}, jobs=2, frame=False,
                        out=tmp_path / "py")
    assert list(a.dtype.names) == list(rows[0].keys())
    assert len(a) == len(rows) == 12
    for p, r in zip(a, rows):
        for name in a.dtype.names:
            if name == "wall_s":  # the one column that varies between runs
                continue
            v = p[name]
            if isinstance(v, np.str_):
                assert v == r[name], name
            elif isinstance(v, (np.bool_, np.integer)):
                assert int(v) == int(r[name]), name
            else:
                assert same_number(float(v), r[name], ".17g"), (name, v, r[name])
    # A row's state is a gait: fixed, started there, stays there.
    names = stridemap.Model("compass").state_names
    x = [float(a[f"x_{n}"][5]) for n in names]
    g = stridemap.fixed("compass", guess=x, gamma=float(a["gamma"][5]), mh=float(a["mh"][5]))
    assert g.ok and np.allclose(g.x, x, rtol=0, atol=1e-9)
    assert (tmp_path / "py" / "sweep.csv").is_file()


def test_sweep_refuses_a_parameter_both_fixed_and_swept():
    with pytest.raises(stridemap.UsageError) as e:
        stridemap.sweep("compass", {"gamma": (0.02, 0.05, 4)}, gamma=0.03)
    assert e.value.status == "bad_option"
    with pytest.raises(stridemap.Error) as e:
        stridemap.sweep("compass", ["nope=0:1:3"])
    assert e.value.status == "unknown_param"


def test_tables_as_dataframes_where_pandas_is_installed():
    pandas = pytest.importorskip("pandas")
    df = stridemap.sweep("compass", {"gamma": (0.02, 0.05, 4)}, jobs=1, frame=True)
    a = stridemap.sweep("compass", {"gamma": (0.02, 0.05, 4)}, jobs=1, frame=False)
    assert isinstance(df, pandas.DataFrame) and list(df.columns) == list(a.dtype.names)
    assert df["max_abs_eig"].tolist() == a["max_abs_eig"].tolist()
    assert df["outcome"].tolist() == a["outcome"].tolist()


def test_params_and_models_as_the_program_lists_them():
    d = cli_json("params", "simplest", "--json")
    p = stridemap.params("simplest")
    assert [q["name"] for q in p] == [q["name"] for q in d["params"]]
    for q, r in zip(p, d["params"]):
        assert (q["default"], q["min"], q["max"], q["unit"], q["integer"]) == \
               (r["default"], r["min"], r["max"], r["unit"], r["integer"])
    listed = cli_json("models", "--json")
    assert [m["name"] for m in stridemap.models()] == [m["name"] for m in listed]
