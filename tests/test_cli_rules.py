"""One registry of first-click rules: every rule the README names works from a fresh `import sweeplab`,
and `sweeplab bench --first-click` takes each of them."""

import json
import subprocess
import sys

import pytest

from sweeplab.cli import main
from sweeplab.generators import make_rule, rule_names

# The README's rules (and Windows 7 and its no-guess patch, which the play modes use).
RULES = ["none", "safe", "opening", "shift", "win7", "win7-noguess", "noguess"]

FRESH = """
import sys
import sweeplab
assert "sweeplab.generators.noguess" not in sys.modules  # kept lazy: the plugins compile kernels
rule = sweeplab.make_rule({name!r}, 30, 16, 99, seed=1)  # the issue's call, from nothing but `import sweeplab`
assert rule.name == {name!r}, rule.name
game = sweeplab.Game(rule=sweeplab.make_rule({name!r}, 9, 9, 10, seed=7))
game.open(4, 4)
sys.stdout.write(game.board.to_text())
"""


@pytest.mark.slow
@pytest.mark.parametrize("name", RULES)
def test_each_rule_works_from_a_fresh_interpreter(name):
    done = subprocess.run([sys.executable, "-c", FRESH.format(name=name)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    from sweeplab import Game
    game = Game(rule=make_rule(name, 9, 9, 10, seed=7))  # the same rule here, where everything is loaded
    game.open(4, 4)
    assert done.stdout == game.board.to_text()


@pytest.mark.slow
def test_the_registry_lists_every_rule_and_says_so_when_one_is_unknown():
    assert rule_names() == sorted(RULES)
    done = subprocess.run([sys.executable, "-c", "import sweeplab; sweeplab.make_rule('nope', 9, 9, 10, seed=1)"],
                          capture_output=True, text=True, timeout=600)
    assert "allowed: noguess, none, opening, safe, shift, win7, win7-noguess" in done.stderr


def bench(capsys, *args):
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--no-progress", "--workers", "1", "--json", *args])
        raise SystemExit(0)
    out = capsys.readouterr()
    assert (exc.value.code or 0) == 0, out.err
    return json.loads(out.out)


@pytest.mark.parametrize("name", RULES)
def test_bench_takes_every_rule(capsys, name):
    res = bench(capsys, "--preset", "beginner", "--games", "4", "--first-click", name, "--at", "4,4")
    assert res["games"] == 4 and res["spec"]["first_click"] == name and res["unsound"] == 0
    if name != "none":  # every other rule keeps the first click off a mine
        assert res["wins"] + res["lost_on_guess"] == 4


@pytest.mark.parametrize("preset, games", [("beginner", 20), ("intermediate", 4)])
def test_strong_wins_every_no_guess_board(capsys, preset, games):
    """A certified board needs no guess after the first click, so a complete player wins them all."""
    res = bench(capsys, "--preset", preset, "--games", str(games), "--first-click", "noguess", "--player", "strong")
    assert res["wins"] == games and res["lost_on_guess"] == 0 and res["unsound"] == 0
