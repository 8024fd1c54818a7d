"""The first run after an install, with no compiled kernels (a fresh NUMBA_CACHE_DIR): `sweeplab play`
serves its page within seconds and its first click runs the kernels as Python while the compiler
works beside it (_tiers.py); a command that compiles says so, once, where a person watches (a
terminal)."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import sys

import pytest
from playwright.sync_api import expect, sync_playwright

from sweeplab._tiers import MARK, stop_compilers
from sweeplab._tiers import NOTICE as TIERED

from .test_tiers import compiler_at_work

pytestmark = pytest.mark.slow  # each starts from an empty kernel cache


def fresh(tmp_path, kernels: str = "tiered") -> dict:
    return {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "SWEEPLAB_KERNELS": kernels}


def compiled(cache) -> int:
    """How many kernels the numba cache holds (one index file each)."""
    return len(list(cache.rglob("*.nbi")))


def test_first_play_serves_before_it_compiles_and_its_first_click_does_not_wait_for_the_compile(tmp_path, chromium):
    # (how soon the URL comes is a figure of benchmarks/bench_first_minutes.py, not a test's bound)
    proc = subprocess.Popen([sys.executable, "-m", "sweeplab", "play", "--no-browser", "--db", str(tmp_path / "p.db")],
                            env=fresh(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 600)  # (only a guard against a hang)
        assert ready, "no URL at all"
        line = proc.stdout.readline()
        assert compiled(tmp_path / "numba") == 0  # the URL came before any kernel compiled
        assert "serving at http://127.0.0.1:" in line, line
        url = line.split("serving at ")[1].split()[0]
        with sync_playwright() as p:
            browser = p.chromium.launch(**chromium)
            page = browser.new_page()
            page.goto(url)
            expect(page.locator("#board .cell")).to_have_count(81)  # the page while the kernels compile
            assert page.evaluate("window.sweeplab.state.mode") == "noguess"  # the default, loaded meanwhile
            page.locator('#board .cell[data-x="4"][data-y="4"]').click()
            expect(page.locator("#board")).to_have_attribute("data-status", re.compile("playing|won"), timeout=60_000)
            expect(page.locator('#board .cell[data-x="4"][data-y="4"]')).to_have_class(re.compile(r"\bopen\b"))
            browser.close()
        assert not list((tmp_path / "numba").glob(f"*/{MARK}"))  # answered while the compiler still works
        assert proc.poll() is None
        proc.send_signal(signal.SIGINT)  # stops while the compiler still works
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0 and "stopped" in out and "Traceback" not in err, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        stop_compilers(str(tmp_path / "numba"))


def _on_a_terminal(args, env) -> str:
    """stderr of a command whose stderr is a terminal (a pty), as a person would see it."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=follower)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the command ended: its side of the terminal is closed
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    assert proc.wait(timeout=600) == 0, seen
    return seen.decode()


def test_a_command_on_its_first_run_says_once_that_it_compiles(tmp_path):
    from sweeplab._numba_cache import NOTICE
    args = [sys.executable, "-m", "sweeplab", "board", "--preset", "beginner", "--seed", "4"]
    try:
        # tiered (the default): the compiler starts beside the command, which runs its kernels as Python
        first = _on_a_terminal(args, fresh(tmp_path))
        assert first.count(TIERED) == 1 and first.splitlines()[0] == f"sweeplab: {TIERED}", first
        assert compiler_at_work(tmp_path / "numba")
        again = _on_a_terminal(args, fresh(tmp_path))  # the first one's compiler still at work
        assert TIERED not in again and "3BV" in again
    finally:
        stop_compilers(str(tmp_path / "numba"))
    # compiled: the command compiles its kernels itself
    first = _on_a_terminal(args, fresh(tmp_path / "c", "compiled"))
    assert first.count(NOTICE) == 1 and first.splitlines()[0] == f"sweeplab: {NOTICE}", first
    again = _on_a_terminal(args, fresh(tmp_path / "c", "compiled"))
    assert NOTICE not in again and "3BV" in again
    piped = subprocess.run(args, env=fresh(tmp_path / "other"), capture_output=True, text=True, timeout=600)
    stop_compilers(str(tmp_path / "other" / "numba"))
    assert NOTICE not in piped.stderr and TIERED not in piped.stderr  # a log or a pipe: no notice
