"""Every `sweeplab ...` command in the README and the docs still does what the page says.

A command is a line of a code block (`$ sweeplab ...` or `sweeplab ...`, `\\` continuing it) or an
inline code span that starts with `sweeplab ` and a command's name. Every one must parse as
written: its commands and options exist and its values are allowed. Synopses may mark optional
parts with `[...]`, alternatives with `a|b` and arguments with a capital placeholder (FILE, FOLDER,
ID, N, ...); each alternative is parsed with the placeholders filled in with real files.

A command with no synopsis marks is also run, in a scratch folder (so files it writes land there;
`tests/` is reachable for the kept references), and must exit 0. Sizes are made small to keep the
suite quick: --games, --boards, --count and the like are capped, and one worker process is used
(`SMALL`), the only change made to a command. Where a page shows a command's output (`$ ` lines
followed by output) and no size was capped, the command must print the page's lines in the page's
order, times aside (a page may abridge an output, with `...` where lines are left out). A code
block right after `<!-- not run by the docs test: why -->` is parsed only (it takes minutes), and
so is `sweeplab play`, which serves until stopped (tests/test_play_*.py run the server).
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from sweeplab import Game, make_rule
from sweeplab.cli import COMMANDS, cli

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "findings").glob("*.md"))]

# the size options a run may cap, and to what (one worker: no process pool to start for 20 games)
SMALL = {"--games": 20, "--boards": 20, "--reference-boards": 20, "--player-games": 5, "--count": 3, "--workers": 1}
TIME = re.compile(r"\d+(?:\.\d+)?\s*(?:s|ms|us|µs)\b")  # a time in an output line: not compared


def _command(text: str) -> bool:
    words = text.split()
    return len(words) >= 1 and words[0] == "sweeplab" and (len(words) == 1 or words[1] in COMMANDS
                                                           or words[1].startswith("-"))


NOT_RUN = re.compile(r"<!-- not run by the docs test: [^>]*-->\s*$")


def documented() -> list[tuple[str, str, list[str] | None, bool]]:
    """(where, command, the output shown after it or None, whether to run it) for every command on
    every page. A code block right after `<!-- not run by the docs test: why -->` is parsed only (a
    command that takes minutes), and so is a span that only names a command (`sweeplab bench`)."""
    found = []
    for page in PAGES:
        name, text = page.relative_to(ROOT).as_posix(), page.read_text(encoding="utf-8")
        for block in re.finditer(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M):
            first = text.count("\n", 0, block.start(1)) + 1
            run = not NOT_RUN.search(text[:block.start()].rstrip("\n").rsplit("\n", 1)[-1])
            lines = block.group(1).split("\n")
            i = 0
            while i < len(lines):
                line, at = lines[i].strip(), first + i
                shown = line.startswith("$ ")
                line = line[2:] if shown else line
                if not _command(line):
                    i += 1
                    continue
                while line.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    line = line[:-1].rstrip() + " " + lines[i].strip()
                output = None
                if shown:
                    j = i + 1
                    while j < len(lines) and not lines[j].startswith("$ "):
                        j += 1
                    output = [out for out in lines[i + 1:j] if out.strip()]
                    i = j - 1
                found.append((f"{name}:{at}", re.sub(r"\s+#\s.*$", "", line), output, run))
                i += 1
        prose = re.sub(r"^```.*?^```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S | re.M)
        for span in re.finditer(r"`([^`]+)`", prose):
            words = " ".join(span.group(1).split())
            if _command(words):
                where = f"{name}:{prose.count(chr(10), 0, span.start()) + 1}"
                found.append((where, words, None, len(words.split()) > 2))
    return found


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    """Real files for the placeholders: a board, a position, a replay and a folder of replays."""
    from sweeplab.replays.evf import game_to_evf

    folder = tmp_path_factory.mktemp("docs-files")
    game = Game(rule=make_rule("opening", 9, 9, 10, seed=3))
    game.open(2, 2)
    for y in range(9):
        for x in range(9):
            if not game.over and not game.board.mines[y, x] and game.cell_state(x, y) == "hidden":
                game.open(x, y)
    replays = folder / "replays"
    replays.mkdir()
    (replays / "game.evf").write_bytes(game_to_evf(game))
    (folder / "board.txt").write_text(game.board.to_text() + "\n")
    position = Game(rule=make_rule("opening", 9, 9, 10, seed=4))
    position.open(4, 4)
    (folder / "position.txt").write_text(position.view().to_text() + "\n")
    (folder / "rows.json").write_text("[]\n")
    return {"rows": str(folder / "rows.json"), "board": str(folder / "board.txt"),
            "position": str(folder / "position.txt"),
            "replay": str(replays / "game.evf"), "folder": str(replays)}


def variants(command: str) -> list[str]:
    """The command with its optional parts dropped and each alternative taken in turn."""
    while re.search(r"\[[^\[\]]*\]", command):
        command = re.sub(r"\s*\[[^\[\]]*\]", "", command)
    out = [[]]
    for word in shlex.split(command.replace("...", " ")):
        choices = word.split("|") if "|" in word and not word.startswith(("'", '"')) else [word]
        out = [done + [c] for done in out for c in choices if c]
    return [" ".join(shlex.quote(w) for w in words) for words in out]


PLACEHOLDERS = ("FILE", "POSITION.txt", "FOLDER", "GLOB", "ID", "RECORD_ID", "N", "SEED", "PATH", "NAME", "XX",
                "ROWS.json")


def filled(args: list[str], files: dict[str, str]) -> list[str]:
    """Placeholders replaced by real values for this command."""
    name = args[1] if len(args) > 1 else ""
    file = {"stats": files["board"], "solve": files["position"]}.get(name, files["replay"])
    values = {"FILE": file, "POSITION.txt": files["position"], "FOLDER": files["folder"], "GLOB": files["folder"],
              "ID": "1", "RECORD_ID": "1", "N": "2", "SEED": "0", "PATH": "records.sqlite", "NAME": "someone",
              "XX": "GB", "ROWS.json": files["rows"]}
    assert set(values) == set(PLACEHOLDERS)
    return [values.get(a, a) for a in args]


def parse(args: list[str]) -> click.Command:
    """Click's own parsing of the whole command line, down to the last subcommand, without running it;
    that subcommand."""
    def unparsed(ctx):  # a group's subcommand and its arguments (click 8.2 moved the first aside)
        first = getattr(ctx, "_protected_args", None)
        return [*(ctx.protected_args if first is None else first), *ctx.args]

    try:
        ctx = cli.make_context("sweeplab", list(args[1:]))
        command, rest = cli, unparsed(ctx)
        while isinstance(command, click.Group) and rest:
            name, sub, rest = command.resolve_command(ctx, rest)
            ctx = sub.make_context(name, rest, parent=ctx)
            command, rest = sub, unparsed(ctx)
    except click.exceptions.NoArgsIsHelpError:
        return cli  # a group named alone (`sweeplab automaton`): the command prints its help
    return command


def small(args: list[str]) -> tuple[list[str], bool]:
    """The command with its sizes capped (`SMALL`), a cap added where the size is left to its default;
    and whether anything changed."""
    out, capped = list(args), False
    for i, word in enumerate(out[:-1]):
        if word in SMALL and out[i + 1].isdigit() and int(out[i + 1]) > SMALL[word]:
            out[i + 1], capped = str(SMALL[word]), True
    defaults = {opt: param.default for param in parse(out).params for opt in param.opts}
    for option, cap in SMALL.items():
        default = defaults.get(option)
        # a size left to a larger default, or the workers left to one a core
        larger = isinstance(default, int) and default > cap or option == "--workers" and option in defaults
        if larger and option not in out:
            out, capped = out + [option, str(cap)], True
    return out, capped


COMMANDS_IN_DOCS = documented()


def test_the_pages_hold_commands():
    where = {w.split(":")[0] for w, _, _, _ in COMMANDS_IN_DOCS}
    assert {"README.md", "docs/board-cycles.md", "docs/automaton.md", "docs/benchmarks.md"} <= where
    assert any(out for _, _, out, run in COMMANDS_IN_DOCS if run)


@pytest.mark.parametrize("where,command", [(w, c) for w, c, _, _ in COMMANDS_IN_DOCS])
def test_every_documented_command_parses_as_written(where, command, files):
    for variant in variants(command):
        args = filled(shlex.split(variant), files)
        try:
            parse(args)
        except click.ClickException as e:
            pytest.fail(f"{where}: `{command}` does not parse ({' '.join(args)}): {e.format_message()}")


RUN = [(w, c, out) for w, c, out, run in COMMANDS_IN_DOCS
       if run and variants(c) == [" ".join(shlex.quote(x) for x in shlex.split(c))]
       and not set(shlex.split(c)) & set(PLACEHOLDERS) and shlex.split(c)[1:2] != ["play"]
       and not isinstance(parse(shlex.split(c)), click.Group)]  # a group named alone only prints its help


@pytest.mark.slow
@pytest.mark.parametrize("where,command,output", RUN)
def test_every_documented_command_runs_and_shows_what_the_page_shows(where, command, output, tmp_path, monkeypatch):
    args, capped = small(shlex.split(command))
    os.symlink(ROOT / "tests", tmp_path / "tests")
    (tmp_path / "docs" / "figures").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, args[1:], catch_exceptions=True)
    assert result.exit_code == 0 and result.exception is None, \
        f"{where}: `{' '.join(args)}` exited {result.exit_code}: {result.output[-2000:]}{result.exception!r}"
    if output and not capped:
        got = iter(TIME.sub("<time>", line.rstrip()) for line in result.output.split("\n"))
        for line in output:
            if line.strip() != "...":
                want = TIME.sub("<time>", line.rstrip())
                assert any(want == have for have in got), \
                    f"{where}: `{command}` no longer prints, in this order, the page's line {line!r}"
