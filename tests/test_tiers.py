"""Kernels run as Python until compiled (_tiers.py): the same results either way, a cold process's
first click without waiting for the compile, the switch once the cache is complete, one compiler a
cache."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from sweeplab._tiers import LOCK, MARK, compiling, is_complete, lock, stop_compilers

ROOT = Path(__file__).resolve().parents[1]


def _digest(*arrays) -> str:
    h = hashlib.sha1()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def results() -> dict:
    """What a seed gives: boards of every rule (no-guess by rejection, and by the chain from both of its
    starts and at expert size), games played to the end by `strong` and `safest`, and the layouts and
    exact probabilities of their positions."""
    from sweeplab.game import Game
    from sweeplab.generators import make_rule
    from sweeplab.generators.noguess import STARTS, generate
    from sweeplab.solver.complete import analyse
    from sweeplab.solver.players import make_player

    out: dict = {}
    for rule, (w, h, m) in [("safe", (30, 16, 99)), ("opening", (16, 16, 40)), ("shift", (30, 16, 99)),
                            ("win7", (30, 16, 99)), ("noguess", (30, 16, 99)), ("noguess", (9, 9, 10))]:
        for seed in range(2):
            game = Game(rule=make_rule(rule, w, h, m, seed))
            game.open(w // 2, h // 2)
            out[f"{rule} {w}x{h}/{m} #{seed}"] = _digest(game.board.flat_mines)
    for start in STARTS:
        r = generate(9, 9, 30, 4, 4, 3, method="chain", chain_start=start, steps=40)
        out[f"chain 9x9/30 {start}"] = [_digest(r.board.flat_mines), r.accepted, r.tries]
    r = generate(30, 16, 130, 15, 8, 3, method="chain", steps=60)
    out["chain 30x16/130"] = [_digest(r.board.flat_mines), r.accepted, r.tries]
    for name, (w, h, m) in [("strong", (9, 9, 10)), ("safest", (9, 9, 10)), ("strong", (30, 16, 99))]:
        for seed in range(2):
            game = Game(rule=make_rule("safe", w, h, m, seed))
            player = make_player(name, seed)
            probabilities = []
            game.open(w // 2, h // 2)
            while game.status == "playing":
                view = game.view()
                a = analyse(view)
                probabilities.append([int(a.layouts), str(sum(Fraction(p).limit_denominator(10 ** 12)
                                                              for p in a.probability[~np.isnan(a.probability)]))])
                for move in player.moves(view):
                    if game.status == "playing":
                        game.act(move.kind, move.x, move.y)
            out[f"{name} {w}x{h}/{m} #{seed}"] = [game.status, _digest(game.view().cells), probabilities]
    return out


def _run(code: str, env: dict, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _env(**changes) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "SWEEPLAB_KERNELS"}
    env.update(changes)
    return env


def compiler_at_work(cache_base: Path, timeout: float = 60) -> bool:
    """Wait until a compiler holds the lock of a cache under `cache_base` (it writes its pid once it
    does: its interpreter takes a moment to start); False at the timeout."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if any(held.read_text().strip() for held in cache_base.glob(f"*/{LOCK}")):
            return True
        time.sleep(0.25)
    return False


@pytest.mark.slow
def test_a_seed_gives_the_same_boards_games_and_probabilities_interpreted_and_compiled():
    interpreted = _run("import json; from tests.test_tiers import results; print(json.dumps(results()))",
                       _env(SWEEPLAB_KERNELS="interpreted"))
    assert interpreted.returncode == 0, interpreted.stderr
    assert "Warning" not in interpreted.stderr  # (an integer that wraps, as the compiled kernel's does, says nothing)
    assert json.loads(interpreted.stdout) == json.loads(json.dumps(results()))


@pytest.mark.slow
def test_a_cold_process_opens_an_expert_no_guess_board_as_python_and_starts_the_compiler(tmp_path):
    code = ("import time; t = time.process_time()\n"
            "from sweeplab import Game, make_rule, _tiers\n"
            "from sweeplab.kernels import count_numbers\n"
            "g = Game(rule=make_rule('noguess', 30, 16, 99, 1)); g.open(15, 8)\n"
            "print(g.status, g.board.flat_mines.sum(), _tiers.compiled(), len(count_numbers.signatures),"
            " round(time.process_time() - t, 1))\n")
    try:
        out = _run(code, _env(NUMBA_CACHE_DIR=str(tmp_path)), timeout=120)
        assert out.returncode == 0, out.stderr
        status, mines, compiled, signatures, _ = out.stdout.split()
        assert (status, mines, compiled, signatures) == ("playing", "99", "False", "0")
        caches = list(tmp_path.glob("sweeplab-*"))
        assert len(caches) == 1 and not is_complete(str(caches[0]))
        assert compiler_at_work(tmp_path) and compiling(str(caches[0]))
    finally:
        stop_compilers(str(tmp_path))


KERNELS = """
import time

from sweeplab import _tiers
from sweeplab._numba_cache import cache_dir, njit


@njit
def inner(x):
    return x + 1


@njit
def outer(x):
    _tiers.mark_complete(cache_dir())  # (plain Python: outer only ever runs interpreted here)
    time.sleep(_tiers.LOOK_EVERY * 1.5)
    return inner(x)


print(outer(1), len(inner.signatures))  # the call under way stays Python, its inner call too
print(inner(1), len(inner.signatures))  # a call from Python now goes to the compiled kernel
"""


def test_calls_from_python_go_compiled_once_the_cache_is_complete_and_a_call_under_way_stays_python(tmp_path):
    env = _env(NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    cache = _run("from sweeplab._numba_cache import cache_dir; print(cache_dir())",
                 {**env, "SWEEPLAB_KERNELS": "compiled"}).stdout.strip()
    held = lock(cache)  # (held here: the cold process starts no compiler)
    try:
        (tmp_path / "kernels.py").write_text(KERNELS)
        out = subprocess.run([sys.executable, str(tmp_path / "kernels.py")], cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == ["2", "0", "2", "1"]
    finally:
        held.close()


@pytest.mark.slow
def test_a_long_chain_begun_as_python_compiles_its_kernels_and_gives_the_seeds_board(tmp_path):
    from sweeplab._numba_cache import cache_dir
    from sweeplab.generators.noguess import INTERPRETED_MOVES, generate

    steps = INTERPRETED_MOVES + 1
    want = generate(9, 9, 30, 4, 4, 5, method="chain", steps=steps)  # compiled, as the suite runs
    copy = tmp_path / "numba" / Path(cache_dir()).name  # the suite's kernels, less the mark: a cold process
    shutil.copytree(cache_dir(), copy, ignore=shutil.ignore_patterns(MARK, LOCK))
    held = lock(str(copy))  # (held here: the cold process starts no compiler)
    try:
        out = _run("from sweeplab import _tiers\n"
                   "from sweeplab.generators.noguess import generate\n"
                   "from tests.test_tiers import _digest\n"
                   "assert not _tiers.compiled()\n"
                   f"r = generate(9, 9, 30, 4, 4, 5, method='chain', steps={steps})\n"
                   "print(_digest(r.board.flat_mines), r.accepted, _tiers.compiled())\n",
                   _env(NUMBA_CACHE_DIR=str(tmp_path / "numba")))
    finally:
        held.close()
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [_digest(want.board.flat_mines), str(want.accepted), "True"]


def test_the_compiler_waits_for_the_one_at_work_and_compiles_nothing_once_complete(tmp_path):
    env = _env(NUMBA_CACHE_DIR=str(tmp_path), SWEEPLAB_KERNELS="compiled")
    cache = _run("from sweeplab._numba_cache import cache_dir; print(cache_dir())", env).stdout.strip()
    held = lock(cache)
    compiler = subprocess.Popen([sys.executable, "-m", "sweeplab.play.warm"], env=env, cwd=ROOT)
    try:
        time.sleep(3)
        assert compiler.poll() is None  # waiting for the lock
        Path(cache, MARK).write_text("")
        held.close()
        assert compiler.wait(timeout=60) == 0
        assert not list(Path(cache).rglob("*.nbi"))  # complete already: nothing compiled
    finally:
        held.close()
        if compiler.poll() is None:
            compiler.kill()


def test_an_unknown_kernel_mode_is_refused_with_the_modes_allowed():
    out = _run("import sweeplab", _env(SWEEPLAB_KERNELS="fast"))
    assert out.returncode != 0
    assert "SWEEPLAB_KERNELS must be one of tiered, compiled, interpreted, got 'fast'" in out.stderr


def test_a_cache_that_cannot_be_written_leaves_the_kernels_to_numba():
    # (a folder under a file: no compiler's lock nor mark can be written there)
    out = _run("from sweeplab import _tiers\n"
               "from sweeplab.kernels import count_numbers\n"
               "print(type(count_numbers).__name__, _tiers.compiled())\n",
               _env(NUMBA_CACHE_DIR="/dev/null/numba"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["CPUDispatcher", "True"]
