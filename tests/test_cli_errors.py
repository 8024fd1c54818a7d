"""Every command, given a bad path or a bad count, answers with one line on stderr and exit 2, before
its work starts (the work asked for here would take minutes), and never loses results it has made."""

import json
import subprocess
import sys

import pytest

from .test_cli import run

HUGE = "100000"  # games or boards: a check made after the work would make the test time out


def one_line_exit_2(capsys, args, needle):
    code, out, err = run(capsys, *args)
    assert code == 2, (args, code, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert needle in err, err
    return out, err


@pytest.fixture
def places(tmp_path):
    """Bad places to write: a folder that does not exist, and an existing folder."""
    return {"missing": str(tmp_path / "nope" / "x"), "folder": str(tmp_path)}


# (command before the path, option, file suffix, what the error says about the suffix or None)
OUTPUTS = [
    (["board", "--preset", "beginner", "--count", HUGE], "-o", ".txt"),
    (["bench", "--preset", "beginner", "--games", HUGE, "--no-progress"], "--out", ".csv"),
    (["cycles", "--version", "winxp", "--preset", "expert", "--survey"], "--svg", ".svg"),
    (["cycles", "--version", "winxp", "--preset", "expert", "--survey"], "--png", ".png"),
    (["uniformity", "--preset", "expert", "--boards", HUGE], "--plot", ".png"),
    (["uniformity", "--preset", "expert", "--boards", HUGE], "--save-reference", ".npz"),
    (["automaton", "show", "--size", "2000"], "--svg", ".svg"),
    (["automaton", "show", "--size", "2000"], "--png", ".png"),
    (["automaton", "sweep", "--games", HUGE], "--plot", ".png"),
    (["automaton", "scaling", "--games", HUGE], "--plot", ".png"),
]


@pytest.mark.parametrize("where", ["missing", "folder"])
@pytest.mark.parametrize("args, option, suffix", OUTPUTS, ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_bad_output_paths_fail_before_the_work(capsys, places, args, option, suffix, where):
    path = places[where] + (suffix if where == "missing" else "")
    needle = "does not exist" if where == "missing" else "is a directory"
    one_line_exit_2(capsys, [*args, option, path], needle)


@pytest.mark.parametrize("args, option, name", [
    (["cycles", "--version", "winxp", "--preset", "expert", "--survey"], "--png", "a.txt"),
    (["cycles", "--version", "winxp", "--preset", "expert", "--survey"], "--svg", "a.png"),
    (["uniformity", "--preset", "expert", "--boards", HUGE], "--plot", "u.txt"),
    (["uniformity", "--preset", "expert", "--boards", HUGE], "--save-reference", "r.txt"),
    (["automaton", "sweep", "--games", HUGE], "--plot", "sweep.txt"),
    (["automaton", "show", "--size", "2000"], "--png", "x.svg"),
])
def test_output_formats_are_checked_by_name_before_the_work(capsys, tmp_path, args, option, name):
    one_line_exit_2(capsys, [*args, option, str(tmp_path / name)], "the file name must end in")
    assert not (tmp_path / name).exists()


def test_automaton_plot_checks_its_input_and_output(capsys, tmp_path):
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps([{"topology": "bounded"}]))
    one_line_exit_2(capsys, ["automaton", "plot", str(rows), "-o", str(tmp_path / "x.txt")], "must end in")
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(256)))
    one_line_exit_2(capsys, ["automaton", "plot", str(garbage), "-o", str(tmp_path / "x.png")], "is not JSON")


@pytest.mark.parametrize("args, needle", [
    (["stats", "{missing}"], "does not exist"),
    (["stats", "{folder}"], "is a directory"),
    (["solve", "{missing}"], "cannot read"),
    (["automaton", "plot", "{missing}", "-o", "{folder}/x.png"], "does not exist"),
    (["uniformity", "--preset", "beginner", "--reference", "{missing}"], "cannot read reference"),
    (["uniformity", "--preset", "beginner", "--reference", "{garbage}"], "cannot read reference"),
    (["bench", "--preset", "beginner", "--games", HUGE, "--out", "{garbage}"], "not a sweeplab bench CSV"),
])
def test_bad_input_paths(capsys, places, tmp_path, args, needle):
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(256)) * 3)
    one_line_exit_2(capsys, [a.format(garbage=garbage, **places) for a in args], needle)


@pytest.mark.slow
def test_play_with_a_database_under_a_file_is_one_line(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    done = subprocess.run([sys.executable, "-m", "sweeplab", "play", "--no-browser", "--db",
                           str(tmp_path / "file" / "x.db")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "cannot open the game database" in done.stderr


@pytest.mark.parametrize("args, needle", [
    (["board", "--state", "5"], "--state is the rand() state of a WinMine generator"),
    (["board", "--generator", "noguess", "--preset", "beginner", "--click", "1,1", "--state", "5"],
     "noguess takes --seed"),
    (["board", "--generator", "winxp", "--seed", "5", "--state", "7"], "--seed and --state cannot be given"),
    (["board", "--preset", "expert", "--width", "10"], "--preset expert and --width 10 cannot be given together"),
    (["board", "--count", "0"], "--count must be"),
    (["board", "--topology", "torus", "--format", "mbf"], "MBF has no topology field"),
    (["cycles", "shift", "--games", "-1"], "--games must be"),
    (["cycles", "convergence", "--boards", "-2"], "--boards must be"),
    (["cycles", "report", "--games", "5"], "--games is for `cycles shift`"),
    (["cycles", "order", "--version", "win98", "--preset", "intermediate", "--custom-mines", "50"],
     "allowed 10..39"),
    (["uniformity", "--preset", "beginner", "--steps", "-5"], "--steps must be"),
    (["uniformity", "--preset", "beginner", "--reference-boards", "1"], "--reference-boards must be"),
    (["uniformity", "--preset", "beginner", "--reference-boards", "0"], "--reference-boards must be"),
    (["uniformity", "--preset", "beginner", "--method", "rejection", "--steps", "5"], "cannot be given together"),
    (["automaton", "sweep", "--games", HUGE, "--player-games", "3"], "--player-games needs --player"),
    (["bench", "--games", HUGE, "--scheduler", "foo"], "is not a scheduler address"),
    (["bench", "--games", HUGE, "--task-size", "0"], "--task-size must be"),
    (["bench", "--games", HUGE, "--first-click", "nope"], "allowed: noguess, none, opening, safe, shift, win7"),
])
def test_bad_values_and_conflicts(capsys, args, needle):
    one_line_exit_2(capsys, args, needle)


def test_cycles_order_does_not_suggest_the_preset_it_was_given(capsys):
    _, err = one_line_exit_2(capsys, ["cycles", "order", "--version", "win98", "--preset", "intermediate",
                                      "--custom-mines", "50"], "--custom-mines 50")
    assert "try --preset intermediate" not in err


def test_unreachable_scheduler_is_reported_in_seconds(capsys):
    import socket
    import time
    with socket.socket() as s:  # a port that was free a moment ago: nobody listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.perf_counter()
    one_line_exit_2(capsys, ["bench", "--preset", "beginner", "--games", HUGE, "--scheduler",
                             f"tcp://127.0.0.1:{port}"], "cannot reach the Dask scheduler")
    assert time.perf_counter() - t0 < 15


@pytest.mark.slow
def test_a_late_failure_keeps_the_results_already_made(capsys, tmp_path, monkeypatch):
    """The sweep's table is printed before its plot is drawn: a plot that fails (a full disk, say) loses nothing."""
    from sweeplab.cli import automaton as cli_automaton

    def full_disk(rows, path):
        raise OSError(28, "No space left on device", path)
    monkeypatch.setattr(cli_automaton, "plot_sweep", full_disk)
    out, err = one_line_exit_2(capsys, ["automaton", "sweep", "--size", "8", "--games", "5", "--densities", "0.1",
                                        "--topology", "bounded", "--json", "--plot", str(tmp_path / "s.png")],
                               "No space left on device")
    rows = json.loads(out)
    assert len(rows) == 1 and rows[0]["games"] == 5


def test_no_arguments_shows_the_help(capsys):
    code, out, err = run(capsys)
    assert code == 0 and err == ""
    assert out.startswith("Usage: sweeplab") and "board" in out and "bench" in out
    code, out, _ = run(capsys, "automaton")
    assert code == 0 and "sweep" in out


def test_checking_an_output_path_leaves_it_as_it_was(capsys, tmp_path):
    """The writability probe neither truncates a file nor leaves a new empty one behind."""
    kept, new = tmp_path / "kept.txt", tmp_path / "new.txt"
    kept.write_text("*..\n...\n")
    for path in (kept, new):
        one_line_exit_2(capsys, ["board", "--preset", "expert", "--width", "10", "-o", str(path)],
                        "cannot be given together")
    assert kept.read_text() == "*..\n...\n" and not new.exists()
