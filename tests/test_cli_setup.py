"""Setting up and testing on a fresh machine: scripts/test is the README's test command, and a machine
without the browser fails the browser tests with one line saying how to install it (never a skip)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_a_missing_browser_fails_with_one_line_saying_how_to_install_it(tmp_path):
    missing = tmp_path / "no-chromium-here"
    env = {**os.environ, "SWEEPLAB_CHROMIUM": str(missing)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-q", "-rfEs",
                           str(ROOT / "tests" / "test_play_browser.py")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    out = done.stdout
    assert done.returncode == 1, out
    line = f"{missing} is missing: the browser tests drive Debian's chromium; install it with `apt-get install chromium`"
    # each of the four browser tests, each on one line of its own (the short summary repeats it, cut
    # to the terminal's width unless CI is set, so only the error sections' lines are counted)
    reported = [s for s in out.splitlines() if s.startswith(line)]
    assert len(reported) == 4, out
    assert len([s for s in out.splitlines() if s.startswith("ERROR tests/test_play_browser.py::")]) == 4, out
    assert "skipped" not in out and " passed" not in out
    assert "Traceback" not in out


def test_the_readme_test_command_is_the_script_that_ci_runs():
    readme = (ROOT / "README.md").read_text()
    assert "\nscripts/test\n" in readme
    assert "exec scripts/test" in (ROOT / ".ci" / "run").read_text()
    script = ROOT / "scripts" / "test"
    assert os.access(script, os.X_OK)
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    body = script.read_text()
    for step in ("apt-get install", "python3 -m venv .venv", "pip install -q -e '.[test]'", "-n 2 -q"):
        assert step in body, step
