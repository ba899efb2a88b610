"""Bad names, values and settings raise stridemap.Error with the status name."""
import pytest

import stridemap
from conftest import run_cli


def test_bad_parameter_value_raises_with_its_status():
    with pytest.raises(stridemap.DataError) as e:
        stridemap.fixed("simplest", gamma=5.0)
    assert e.value.status == "bad_param"
    assert "gamma" in e.value.message
    # The program refuses the same value, as bad data.
    assert run_cli("fixed", "simplest", "--set", "gamma=5", check=False)[0] == 65


def test_unknown_names_raise_usage_errors():
    with pytest.raises(stridemap.UsageError) as e:
        stridemap.fixed("simplest", gamma_typo=0.01)
    assert e.value.status == "unknown_param" and "gamma_typo" in e.value.message
    assert "stridemap.params('simplest')" in e.value.message
    with pytest.raises(stridemap.UsageError) as e:
        stridemap.fixed("no_such_walker")
    assert e.value.status == "unknown_model" and "stridemap.models()" in e.value.message
    with pytest.raises(stridemap.UsageError) as e:
        stridemap.fixed("simplest", method="rk4")
    assert e.value.status == "bad_option" and "rk4" in e.value.message


def test_messages_name_keywords_not_library_fields():
    with pytest.raises(stridemap.Error) as e:
        stridemap.fixed("simplest", rtol=-1.0)
    assert e.value.status == "bad_option"
    assert "rtol" in e.value.message and "sm_" not in e.value.message
    with pytest.raises(stridemap.Error) as e:
        stridemap.fixed("simplest", period=0)
    assert e.value.status == "bad_option" and "period" in e.value.message


def test_bad_guess_and_bad_model_file(tmp_path):
    with pytest.raises(stridemap.DataError) as e:
        stridemap.fixed("simplest", guess=[0.2, -0.2])
    assert e.value.status == "bad_state" and "theta_dot" in e.value.message
    with pytest.raises(stridemap.DataError) as e:
        stridemap.fixed("simplest", guess=[0.2, float("nan"), 0.4, 0.0])
    assert e.value.status == "bad_state"
    bad = tmp_path / "bad.yaml"
    bad.write_text("bodies: [\n")
    with pytest.raises(stridemap.Error) as e:
        stridemap.Model(bad)
    assert e.value.status == "bad_model_file" and str(bad) in e.value.message
    with pytest.raises(stridemap.Error) as e:
        stridemap.Model(tmp_path / "missing.yaml")
    assert isinstance(e.value, OSError)


def test_every_error_is_a_stridemap_error():
    for cls in (stridemap.UsageError, stridemap.DataError, stridemap.InputFileError, stridemap.SolverError,
                stridemap.OutOfMemory, stridemap.LibraryNotFound):
        assert issubclass(cls, stridemap.Error)


def test_a_library_that_cannot_be_loaded_says_what_to_set(tmp_path):
    import os
    import subprocess
    import sys
    from conftest import SOURCE
    code = ("import stridemap\n"
            "try:\n    stridemap.fixed('simplest')\n"
            "except stridemap.LibraryNotFound as e:\n    print(e.status, '|', e.message)\n")
    env = {**os.environ, "STRIDEMAP_LIBRARY": str(tmp_path / "libstridemap.so"),
           "PYTHONPATH": str(SOURCE / "python")}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("unavailable |") and "STRIDEMAP_LIBRARY" in p.stdout
    assert str(tmp_path / "libstridemap.so") in p.stdout


def test_a_closed_model_refuses_work():
    m = stridemap.Model("simplest")
    m.close()
    with pytest.raises(stridemap.UsageError):
        m.fixed()
