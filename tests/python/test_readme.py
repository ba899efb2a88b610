"""The README's Python example runs as printed and draws its plot."""
import os
import re
import subprocess
import sys

import pytest

from conftest import SOURCE


def test_readme_example_runs_and_plots(tmp_path):
    pytest.importorskip("matplotlib")
    text = (SOURCE / "README.md").read_text()
    section = text[text.index("\n## Python\n"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert 'sys.path.insert(0, "python")' in code
    # Run from the top of the source tree, as the README says, but write the
    # picture elsewhere.
    code = code.replace('"branch.png"', repr(str(tmp_path / "branch.png")))
    p = subprocess.run([sys.executable, "-c", code], cwd=SOURCE, capture_output=True, text=True, timeout=600,
                       env={**os.environ, "MPLBACKEND": "Agg"})
    assert p.returncode == 0, p.stderr
    first = p.stdout.splitlines()[0]
    assert first.startswith("ok [ 0.2003109") and first.endswith("True")
    assert "not_converged fell_backward" in p.stdout
    png = (tmp_path / "branch.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10000
