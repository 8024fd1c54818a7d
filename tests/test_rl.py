"""The Gymnasium environment: the checker, seeding, spaces, masks, rewards, info, rendering, baselines."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import sweeplab.rl  # noqa: F401  (registers the ids)
from sweeplab.errors import GameOverError, RLConfigError, SweeplabError
from sweeplab.game import Game
from sweeplab.lab.runner import BenchSpec, run
from sweeplab.rl import ENV_IDS, MinesweeperEnv
from sweeplab.rl.baselines import BASELINES, evaluate
from sweeplab.rl.config import CODES, Config
from sweeplab.stats import bbbv
from sweeplab.view import FLAG, HIDDEN

SMALL = dict(width=6, height=5, mines=5)


def checked(env):
    """Run Gymnasium's checker and fail on any warning it raises (a warning is a broken promise)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=False)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("topology", ["bounded", "torus"])
@pytest.mark.parametrize("first_click", ["safe", "opening", "shift", "win7", "noguess", "none"])
def test_checker_passes_every_rule_and_topology(first_click, topology):
    kwargs = dict(SMALL, first_click=first_click, topology=topology)
    if topology == "torus" and first_click in ("shift", "win7"):
        with pytest.raises(SweeplabError, match="bounded"):  # Windows boards have edges
            MinesweeperEnv(**kwargs)
        return
    if first_click == "win7":
        kwargs.update(width=9, height=9, mines=10)  # Windows 7's smallest board is 9x9
    # through gym.make, so the checker also tries the other render mode
    make = lambda **kw: gym.make("sweeplab/Minesweeper-v0", disable_env_checker=True, **kw).unwrapped  # noqa: E731
    checked(make(**kwargs, render_mode="rgb_array"))
    checked(make(**kwargs, flags=True, one_hot=True, render_mode="ansi"))


@pytest.mark.parametrize("env_id", sorted(ENV_IDS))
def test_registered_ids_make_the_levels(env_id):
    env = gym.make(env_id)
    level = ENV_IDS[env_id].get("level", "beginner")
    from sweeplab.presets import preset
    lv = preset(level)
    assert env.observation_space.shape == (lv.height, lv.width)
    assert env.action_space.n == lv.width * lv.height
    assert env.unwrapped.config.mines == lv.mines
    obs, info = env.reset(seed=3)
    assert obs.shape == (lv.height, lv.width) and (obs == HIDDEN).all()


def test_general_id_takes_size_rule_generator_and_topology():
    env = gym.make("sweeplab/Minesweeper-v0", width=7, height=6, mines=8, first_click="opening", topology="torus")
    cfg = env.unwrapped.config
    assert (cfg.width, cfg.height, cfg.mines, cfg.first_click, cfg.topology) == (7, 6, 8, "opening", "torus")
    env = gym.make("sweeplab/Minesweeper-v0", level="beginner", generator="winxp")  # its own rule: shift
    env.reset(seed=0)
    rule = env.unwrapped.game.rule
    assert rule.name == "shift" and rule.spec()["version"] == "winxp"
    with pytest.raises(SweeplabError, match="supports first-click rules shift, none"):
        gym.make("sweeplab/Minesweeper-v0", generator="winxp", first_click="safe")


@pytest.mark.parametrize("bad, match", [
    (dict(first_click="lucky"), "allowed: safe, opening, shift, win7, noguess, none"),
    (dict(width=0), "width"),
    (dict(mines=99), "do not fit"),
    (dict(topology="sphere"), "allowed: bounded, torus"),
    (dict(rewards={"bonus": 1}), "allowed: win, loss, progress, invalid, flag"),
    (dict(rewards={"win": "lots"}), "numbers"),
    (dict(max_steps=0), "positive"),
    (dict(render_mode="human"), "allowed: rgb_array, ansi"),
    (dict(generator="nosuch"), "unknown generator"),
])
def test_bad_arguments_are_typed_errors(bad, match):
    with pytest.raises(SweeplabError, match=match):
        MinesweeperEnv(**{**SMALL, **bad})


def test_same_seed_same_boards_and_reset_continues_the_stream():
    def boards(seed, episodes=4):
        env = MinesweeperEnv(level="beginner")
        out = []
        env.reset(seed=seed)
        for _ in range(episodes):
            env.step(40)  # the first click lays the board
            out.append((env.board_seed, env.game.board.to_text()))
            env.reset()
        return out

    a, b, c = boards(11), boards(11), boards(12)
    assert a == b
    # the first board seed is the first draw of the env's np_random, numpy's PCG64 seeded as Gymnasium does
    assert a[0][0] == int(np.random.default_rng(11).integers(0, 1 << 63))
    assert len({s for s, _ in a}) == 4  # each reset draws a new board
    assert a != c


def test_board_seed_option_replays_the_rule_board():
    env = MinesweeperEnv(level="intermediate", first_click="opening")
    env.reset(options={"board_seed": 12345})
    env.step(8 * 16 + 8)
    g = Game(rule=Config.make(level="intermediate", first_click="opening").rule(12345))
    g.open(8, 8)
    assert env.game.board == g.board
    with pytest.raises(RLConfigError, match="board_seed"):
        env.reset(options={"board_seed": -1})
    with pytest.raises(RLConfigError, match="allowed: board_seed"):
        env.reset(options={"board": 1})


def test_observation_is_the_view_and_one_hot_is_its_planes():
    env = MinesweeperEnv(**SMALL, flags=True)
    oh = MinesweeperEnv(**SMALL, flags=True, one_hot=True)
    obs, _ = env.reset(seed=5)
    obs_oh, _ = oh.reset(seed=5)
    for a in (7, 30 + 0, 30 + 1, 30 + 0):  # open, flag, flag, unflag
        obs, *_ = env.step(a)
        obs_oh, *_ = oh.step(a)
        assert np.array_equal(obs, env.game.view().cells)
        assert obs_oh.shape == (11, 5, 6) and (obs_oh.sum(axis=0) == 1).all()
        assert np.array_equal(CODES[obs_oh.argmax(axis=0)], obs)
    assert obs[0, 1] == FLAG and obs[0, 0] == HIDDEN


def test_masks_follow_the_view():
    env = MinesweeperEnv(**SMALL, flags=True)
    _, info = env.reset(seed=2)
    assert info["action_mask"].shape == (60,) and info["action_mask"].all()
    obs, _, _, _, info = env.step(14)
    hidden = (obs == HIDDEN).reshape(-1)
    flagged = (obs == FLAG).reshape(-1)
    assert np.array_equal(info["action_mask"][:30], hidden)
    assert np.array_equal(info["action_mask"][30:], hidden | flagged)
    assert np.array_equal(env.action_masks(), info["action_mask"])
    assert not info["action_mask"][14]  # the cell just opened


def play_out(env, order):
    """Open cells in `order` (skipping ones not hidden) until the game ends; return the rewards."""
    rewards = []
    for i in order:
        if env.game.over:
            break
        if env.action_masks()[i]:
            rewards.append(env.step(int(i))[1])
    return rewards


def test_rewards_win_loss_progress_and_invalid():
    # a fixed board through the `none` rule: the engine decides, the env only pays
    env = MinesweeperEnv(width=4, height=3, mines=2, first_click="none", rewards={"win": 5, "loss": -3,
                                                                                   "progress": 2, "invalid": -0.5})
    env.reset(options={"board_seed": 9})
    board = env.game.board
    safe = np.flatnonzero(~board.flat_mines)
    total = sum(play_out(env, safe))
    assert env.game.status == "won"
    assert total == pytest.approx(2 + 5)  # all the progress, once, and the win
    env.reset(options={"board_seed": 9})
    obs0, r0, *_ = env.step(int(safe[0]))
    assert r0 == pytest.approx(2 * np.count_nonzero(obs0 >= 0) / 10)  # progress: the share of the 10 safe cells
    assert env.step(int(safe[0]))[1] == -0.5  # opening an open cell changes nothing and costs
    mine = int(np.flatnonzero(board.flat_mines)[0])
    obs, r, terminated, truncated, info = env.step(mine)
    assert (r, terminated, truncated, info["status"]) == (-3, True, False, "lost")
    assert obs.reshape(-1)[mine] == HIDDEN  # an exploded mine is not a number
    with pytest.raises(GameOverError):
        env.step(int(safe[-1]))


def test_step_limit_truncates():
    env = MinesweeperEnv(**SMALL, flags=True, max_steps=3)
    env.reset(seed=0)
    out = [env.step(30 + 4)[2:4] for _ in range(3)]  # flag, unflag, flag
    assert out == [(False, False), (False, False), (False, True)]


def test_defaults_put_random_well_below_a_solver():
    env = MinesweeperEnv(level="beginner")
    rnd = evaluate(env, "random", 60, seed=1)
    solver = evaluate(env, "rules", 60, seed=1)
    assert rnd.mean_return < 0 < 1 < solver.mean_return


def test_info_has_3bv_and_optional_exact_probabilities_and_guesses():
    env = MinesweeperEnv(level="beginner", first_click="safe", analysis=True)
    _, info = env.reset(seed=4)
    assert info["bbbv"] == 0 and info["guesses"] == 0
    assert np.allclose(info["probabilities"], 10 / 81)
    _, _, _, _, info = env.step(0)
    assert info["bbbv"] == bbbv(env.game.board) > 0
    assert info["guesses"] == 0  # the first click is made safe by the rule
    from sweeplab.solver import analyse
    p = info["probabilities"]
    exact = analyse(env.game.view()).probability
    assert np.array_equal(p == -1, np.isnan(exact)) and np.allclose(p[p != -1], exact[~np.isnan(exact)])
    while not env.game.over:
        risky = np.where(env.action_masks().reshape(9, 9), p, np.inf)
        i = int(np.argmax(np.where(np.isfinite(risky), risky, -1)))  # the riskiest cell: a guess
        before = info["guesses"]
        _, _, _, _, info = env.step(i)
        assert info["guesses"] == before + (risky.reshape(-1)[i] > 0)
        p = info["probabilities"]
    assert info["guesses"] >= 1
    plain = MinesweeperEnv(level="beginner")
    assert "probabilities" not in plain.reset(seed=4)[1]


def test_the_checker_passes_with_exact_probabilities_in_info():
    env = gym.make("sweeplab/Minesweeper-v0", disable_env_checker=True, **SMALL, analysis=True).unwrapped
    checked(env)  # (NaN in info never compared equal)


def test_render_rgb_and_ansi():
    env = MinesweeperEnv(**SMALL, render_mode="rgb_array", cell_pixels=12)
    env.reset(seed=1)
    img0 = env.render()
    assert img0.shape == (60, 72, 3) and img0.dtype == np.uint8
    env.step(0)
    img1 = env.render()
    changed = np.argwhere((img0 != img1).any(axis=2))
    opened = np.argwhere(env.game.view().cells >= 0)
    cells_changed = {(int(y) // 12, int(x) // 12) for y, x in changed}
    assert cells_changed == {(int(y), int(x)) for y, x in opened}  # exactly the opened cells redraw
    text = MinesweeperEnv(**SMALL, render_mode="ansi")
    text.reset(seed=1)
    text.step(0)
    out = text.render()
    assert out.startswith(str(text.game.view())) and "status: " in out


@pytest.mark.parametrize("name, games", [("random", 60), ("rules", 60), ("safest", 15), ("strong", 10)])
def test_baselines_win_as_often_as_bench_on_the_same_seeds(name, games):
    env = MinesweeperEnv(level="beginner", first_click="opening")
    got = evaluate(env, name, games, seed=2026)
    bench = run(BenchSpec(name, 9, 9, 10, "opening", None, 2026), games, workers=1)
    assert (got.games, got.wins) == (bench.games, bench.wins)
    if name != "random":
        assert got.wins > 0
    assert name in BASELINES


def test_baselines_on_a_torus_match_bench_too():
    env = MinesweeperEnv(width=8, height=8, mines=10, first_click="safe", topology="torus")
    got = evaluate(env, "rules", 40, seed=5)
    bench = run(BenchSpec("rules", 8, 8, 10, "safe", None, 5, "torus"), 40, workers=1)
    assert got.wins == bench.wins > 0


def test_docstring_example_runs():
    import doctest

    import sweeplab.rl.env
    result = doctest.testmod(sweeplab.rl.env)
    assert result.attempted > 0 and result.failed == 0
