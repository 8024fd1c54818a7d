"""Every file a command reads is bounded (regular files only, a size cap, stdin too), bad first clicks and
bad references are one line, the help lists what the registry holds, and install hints fit the install."""

import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from sweeplab import generators
from sweeplab.userfile import read_user_file

from .test_cli import run
from .test_cli_errors import one_line_exit_2


def sweeplab(*args, stdin=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "sweeplab", *args], stdin=stdin, capture_output=True, text=True,
                          timeout=timeout)


# --- a user's file: regular, bounded --------------------------------------------------------------------
@pytest.mark.parametrize("args", [["stats", "/dev/zero"], ["solve", "/dev/zero"], ["analyse", "/dev/zero"],
                                  ["automaton", "plot", "/dev/zero", "-o", "{tmp}/x.png"],
                                  ["uniformity", "--preset", "beginner", "--reference", "/dev/zero"],
                                  ["replay", "/dev/zero"]])
def test_a_device_is_refused_before_anything_is_read(capsys, tmp_path, args):
    one_line_exit_2(capsys, [a.format(tmp=tmp_path) for a in args], "not a regular file")


@pytest.mark.parametrize("args", [["stats", "-"], ["solve", "-"], ["analyse", "-"]])
def test_endless_stdin_is_cut_at_the_cap(args):
    with open("/dev/zero", "rb") as zero:
        r = sweeplab(*args, "--no-browser" if args[0] == "analyse" else "--json", stdin=zero)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert "stdin holds more than" in r.stderr and "at most" in r.stderr, r.stderr


@pytest.mark.parametrize("command, limit", [("stats", 64), ("solve", 16), ("analyse", 1)])
def test_a_file_past_the_cap_is_refused_by_its_size(capsys, tmp_path, command, limit):
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:  # sparse: no disk spent, and nothing would be read if the size check failed
        f.truncate(limit * 1024 * 1024 + 1)
    _, err = one_line_exit_2(capsys, [command, str(big)], "too large")
    assert f"at most {limit} MiB" in err


def test_read_user_file_reads_at_most_one_byte_past_the_cap(tmp_path):
    class Endless:
        asked = []

        def read(self, n):
            self.asked.append(n)
            return b"x" * n
    with pytest.raises(ValueError, match="more than 10 bytes"):
        read_user_file("-", what="a thing", limit=10, stdin=Endless())
    assert Endless.asked == [11]
    ok = tmp_path / "ok"
    ok.write_bytes(b"0123456789")
    assert read_user_file(ok, what="a thing", limit=10) == b"0123456789"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):  # (and the open does not wait for a writer)
        read_user_file(fifo, what="a thing", limit=10)


def test_stats_and_solve_still_read_files_and_stdin(capsys, tmp_path):
    board = tmp_path / "b.txt"
    code, _, _ = run(capsys, "board", "--preset", "beginner", "--seed", "3", "-o", str(board))
    assert code == 0
    code, out, _ = run(capsys, "stats", str(board), "--json")
    assert code == 0 and '"mines": 10' in out
    r = subprocess.run([sys.executable, "-m", "sweeplab", "solve", "-", "--json"], input="mines: 1\n1#\n##\n",
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and '"mines": 1' in r.stdout, r.stderr


# --- optimal: a first click off the board ---------------------------------------------------------------
@pytest.mark.parametrize("extra, at", [([], "0,4"), ([], "9,9"), (["--first-click", "opening"], "3,4"),
                                       ([], "-1,0")])
def test_optimal_first_click_off_the_board_is_one_line(capsys, extra, at):
    _, err = one_line_exit_2(capsys, ["optimal", "--width", "4", "--height", "4", "--mines", "3", *extra, "--at", at],
                             "is off the 4x4 board")
    assert "x in 0..3, y in 0..3" in err


# --- uniformity: references that are not ones -----------------------------------------------------------
def _references(tmp_path):
    (tmp_path / "junk.npz").write_bytes(bytes(range(256)) * 2)
    (tmp_path / "zipjunk.npz").write_bytes(b"PK\x03\x04" + b"not a zip at all" * 8)  # numpy hands it to zipfile
    (tmp_path / "EMPTY").write_bytes(b"")
    np.save(tmp_path / "objarray.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    (tmp_path / "objarray.npy").rename(tmp_path / "objarray.npz")
    from sweeplab.lab.uniformity import REFERENCE_ARRAYS
    arrays = {k: np.arange(3) for k in REFERENCE_ARRAYS}
    np.savez(tmp_path / "objects.npz", **arrays | {"width": np.array([{"a": 1}], dtype=object)})
    np.savez(tmp_path / "other.npz", x=np.arange(3))
    with zipfile.ZipFile(tmp_path / "emptyzip.npz", "w"):
        pass
    return {"junk.npz": "not a .npz archive", "zipjunk.npz": "not a zip file", "EMPTY": "the file is empty",
            "objarray.npz": "not a .npz archive", "objects.npz": "not a .npz archive",
            "other.npz": "it has no width, height", "emptyzip.npz": "it has no width"}


def test_a_bad_reference_is_one_line_and_never_advises_pickles(capsys, tmp_path):
    for name, needle in _references(tmp_path).items():
        code, _, err = run(capsys, "uniformity", "--preset", "beginner", "--reference", str(tmp_path / name))
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (name, err)
        assert needle.lower() in err.lower() and "allow_pickle" not in err and "pickle" not in err.split("(")[-1], (name, err)
        assert "aborted" not in err and "--save-reference" in err, (name, err)


def test_an_empty_reference_is_an_error_not_an_abort(tmp_path):
    (tmp_path / "EMPTY").write_bytes(b"")
    r = sweeplab("uniformity", "--preset", "beginner", "--reference", str(tmp_path / "EMPTY"))
    assert r.returncode == 2 and r.stderr.splitlines() == [
        f"sweeplab: error: cannot read reference sample {str(tmp_path / 'EMPTY')!r}: the file is empty; expected a "
        ".npz written by `sweeplab uniformity --save-reference`"], r.stderr


# --- board --help: the registry -------------------------------------------------------------------------
def test_board_help_lists_every_generator_and_rule_of_the_registry(capsys):
    code, out, _ = run(capsys, "board", "--help")
    assert code == 0
    text = " ".join(out.split())
    generators.lookup("uniform")
    for name, info in generators.GENERATORS.items():
        assert name in text and all(a in text for a in info.aliases), name
    for rule in generators.rule_names():
        assert rule in text.split("--first-click", 1)[1], rule
    assert "when installed" not in text


def test_listing_the_commands_loads_no_generator_plugin():
    code = ("import sys; from sweeplab.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "import sweeplab.generators as g; print(g._LOADED, 'sweeplab.generators.noguess' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == "False False", r.stdout + r.stderr


# --- install hints --------------------------------------------------------------------------------------
def test_install_hints_name_this_install():
    import json
    from importlib import metadata
    from pathlib import Path

    import sweeplab
    from sweeplab.extras import install_hint
    direct = json.loads(metadata.distribution("sweeplab").read_text("direct_url.json") or "{}")
    root = Path(sweeplab.__file__).resolve().parents[2]  # src/sweeplab/__init__.py -> the checkout
    if direct.get("dir_info", {}).get("editable"):
        assert install_hint("tui") == f"pip install -e '{root}[tui]'"
    else:
        assert install_hint("tui") == "pip install 'sweeplab[tui]'"


def test_every_install_hint_in_the_code_goes_through_one_function():
    from pathlib import Path
    src = Path(__file__).resolve().parents[1] / "src" / "sweeplab"
    loose = [str(p.relative_to(src)) for p in src.rglob("*.py")
             if p.name != "extras.py" and "pip install 'sweeplab[" in p.read_text()]
    assert loose == []


def test_rl_without_gymnasium_says_which_extra():
    code = ("import sys; sys.modules['gymnasium'] = None\n"
            "try:\n    import sweeplab.rl\nexcept ImportError as e:\n"
            "    print(type(e).__name__, e.name, '|', e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    line = r.stdout.strip()
    assert line.startswith("ModuleNotFoundError gymnasium | sweeplab.rl needs gymnasium"), line + r.stderr
    assert "[rl]" in line and "pip install" in line


# --- board --count: one summary for the batch -----------------------------------------------------------
def test_a_batch_has_one_summary_of_all_its_boards(capsys, tmp_path):
    from sweeplab.board import parse_boards
    from sweeplab.stats import board_stats
    out = tmp_path / "boards.txt"
    code, said, err = run(capsys, "board", "--preset", "beginner", "--seed", "11", "--count", "5", "-o", str(out))
    assert code == 0 and err == "" and len(said.splitlines()) == 1, (said, err)
    stats = [board_stats(b) for b in parse_boards(out.read_bytes())]
    mean = sum(s.bbbv for s in stats) / 5
    lo, hi = min(s.bbbv for s in stats), max(s.bbbv for s in stats)
    assert said.startswith("5 boards, 9x9, 10 mines; ") and f"3BV {mean:.2f} ({lo}..{hi})" in said, said
    code, boards, err = run(capsys, "board", "--preset", "beginner", "--seed", "11", "--count", "5")
    assert code == 0 and boards.encode() == out.read_bytes() and err.strip() == said.strip()


@pytest.mark.slow
def test_a_no_guess_batch_is_one_chain_of_certified_boards_written_as_made(capsys, tmp_path):
    from sweeplab.board import parse_boards
    from sweeplab.generators import noguess
    from sweeplab.generators.certify import certify
    out = tmp_path / "boards.txt"
    code, said, _ = run(capsys, "board", "--generator", "noguess", "--width", "9", "--height", "9", "--mines", "26",
                        "--click", "4,4", "--seed", "3", "--count", "6", "-o", str(out))
    assert code == 0 and said.startswith("6 boards, 9x9, 26 mines, first click 4,4; "), said
    written = list(parse_boards(out.read_bytes()))
    batch = [r.board for r in noguess.boards(9, 9, 26, 4, 4, 3, 6)]
    assert written == batch and len(set(b.to_text() for b in written)) == 6  # (26 mines: the chain serves)
    assert all(certify(b, 4, 4)[0] and b.mine_count == 26 for b in written)
