"""Shared pieces of the Python binding's tests.

meson test runs them with STRIDEMAP_LIBRARY (this build's libstridemap.so),
STRIDEMAP_CLI (this build's stridemap program), STRIDEMAP_SOURCE_DIR and
PYTHONPATH (python/ of the source tree) set; run by hand, they fall back to
build/ of the source tree.
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest

SOURCE = pathlib.Path(os.environ.get("STRIDEMAP_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
CLI = os.environ.get("STRIDEMAP_CLI", str(SOURCE / "build" / "src" / "cli" / "stridemap"))
sys.path.insert(0, str(SOURCE / "python"))


def run_cli(*args, check=True):
    """The stridemap program's (exit code, stdout, stderr)."""
    p = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, timeout=600)
    if check and p.returncode != 0:
        raise AssertionError(f"stridemap {' '.join(map(str, args))}: exit {p.returncode}: {p.stderr}")
    return p.returncode, p.stdout, p.stderr


def cli_json(*args):
    return json.loads(run_cli(*args)[1])


@pytest.fixture
def source():
    return SOURCE


def pytest_terminal_summary(terminalreporter):
    # scripts/test.sh adds up the CMocka summaries of every test program;
    # these lines let it count the Python tests alike.
    passed = len(terminalreporter.stats.get("passed", []))
    failed = len(terminalreporter.stats.get("failed", [])) + len(terminalreporter.stats.get("error", []))
    terminalreporter.write_line(f"[  PASSED  ] {passed} test(s).")
    if failed:
        terminalreporter.write_line(f"[  FAILED  ] {failed} test(s), listed above")
