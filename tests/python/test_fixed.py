"""stridemap.fixed against the stridemap program and published numbers."""
import math

import numpy as np
import pytest

import stridemap
from conftest import SOURCE, cli_json

# The simplest walker, the compass gait, and a model file of the compass gait.
CASES = [("simplest", ["--set", "gamma=0.009"], {"gamma": 0.009}),
         ("compass", [], {}),
         (str(SOURCE / "models" / "compass.yaml"), [], {})]


def pairs(eigenvalues):
    return [[z.real, z.imag] for z in eigenvalues]


@pytest.mark.parametrize("model,flags,params", CASES, ids=["simplest", "compass", "compass.yaml"])
def test_same_gait_as_the_program_to_the_last_printed_digit(model, flags, params):
    # 'fixed --json' prints 17 significant digits: every double read back
    # from it must be the binding's double exactly.
    d = cli_json("fixed", model, *flags, "--json")
    g = stridemap.fixed(model, **params)
    assert g.status == d["status"] == "ok"
    assert g.state_names == d["state_names"]
    assert g.free_coordinates == d["free_coordinates"]
    assert g.x.tolist() == d["fixed_point"]
    assert pairs(g.eigenvalues) == d["eigenvalues"]
    assert pairs(g.eigenvalues_fd) == d["eigenvalues_fd"]
    assert g.jacobian.tolist() == d["jacobian"]
    assert g.max_abs_eigenvalue == d["max_abs_eigenvalue"]
    assert g.stable == d["stable"]
    assert g.jacobian_method == d["jacobian_method"]
    assert g.iterations == d["iterations"] and g.residual == d["residual"]
    assert g.stride_evaluations == d["stride_evaluations"]
    assert g.orbit.tolist() == d["orbit"]
    assert g.minimal_period == d["minimal_period"]
    for key in ("step_period", "step_length", "speed", "impact_energy_loss", "heelstrike_impulse",
                "cost_of_transport"):
        assert g.measures[key] == d[key], key
    for key, value in d["params"].items():
        assert g.params[key] == value, key


def test_simplest_walker_is_garcias_published_gait():
    # Garcia, Chatterjee, Ruina & Coleman (1998): theta* = 0.20031090,
    # theta_dot* = -0.19983247 at gamma = 0.009, printed to 8 decimals.
    g = stridemap.fixed("simplest", gamma=0.009)
    assert g.ok and g.stable and g.family == "long-period"
    assert abs(g.x[0] - 0.20031090) < 5e-9
    assert abs(g.x[1] - (-0.19983247)) < 5e-9
    # The moduli are those of the Jacobian's eigenvalues, by another route.
    assert np.allclose(np.sort(np.abs(np.linalg.eigvals(g.jacobian))), np.sort(g.moduli), rtol=1e-12)
    assert g.max_abs_eigenvalue == pytest.approx(g.moduli.max(), rel=1e-15)


def test_the_other_gait_the_options_and_the_period():
    # From the README: the unstable short-period gait from its guess, the
    # program's options as keywords.
    g = stridemap.fixed("simplest", guess=[0.19, -0.2, 0.38, -0.01], gamma=0.009, jacobian="exact")
    d = cli_json("fixed", "simplest", "--guess", "0.19,-0.2,0.38,-0.01", "--jacobian", "exact", "--json")
    assert g.x.tolist() == d["fixed_point"] and not g.stable and g.family == d["family"]
    two = stridemap.fixed("simplest", gamma=0.016, period=2, rtol=1e-11, atol=1e-11)
    d2 = cli_json("fixed", "simplest", "--set", "gamma=0.016", "--period", "2", "--rtol", "1e-11", "--atol", "1e-11",
                  "--json")
    assert two.period == 2 and two.orbit.shape == (2, 4)
    assert two.x.tolist() == d2["fixed_point"] and pairs(two.eigenvalues) == d2["eigenvalues"]


def test_model_file_parameters_by_dotted_name(source):
    path = source / "models" / "compass.yaml"
    g = stridemap.fixed(path, params={"bodies.hip_z.mass": 12.0})
    d = cli_json("fixed", path, "--set", "bodies.hip_z.mass=12", "--json")
    assert g.params["bodies.hip_z.mass"] == 12.0
    assert g.x.tolist() == d["fixed_point"] and pairs(g.eigenvalues) == d["eigenvalues"]


def test_a_model_keeps_its_parameters_and_a_call_its_own():
    with stridemap.Model("simplest") as m:
        m.set(gamma=0.01)
        a = m.fixed(gamma=0.009)
        assert m.params["gamma"] == 0.01          # the call's value was the call's alone
        b = m.fixed()
        assert a.params["gamma"] == 0.009 and b.params["gamma"] == 0.01
        assert b.x.tolist() == stridemap.fixed("simplest", gamma=0.01).x.tolist()
        assert a.x.tolist() == stridemap.fixed("simplest", gamma=0.009).x.tolist()


def test_a_fall_is_a_result_not_an_exception():
    # A guess whose stance leg never passes vertical: Newton's strides fall
    # backwards, and the result says so.
    g = stridemap.fixed("simplest", guess=[0.2, -0.05, 0.4, 0.0], gamma=0.009)
    assert not g.converged and g.status == "not_converged" and g.stride_status == "fell_backward"
    assert g.eigenvalues.size == 0 and g.jacobian.shape == (0, 0) and math.isnan(g.max_abs_eigenvalue)
    assert not g.stable
