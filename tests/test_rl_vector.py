"""The batched environment: move by move the same as MinesweeperEnv (the Game) on the same boards."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sweeplab.rl  # noqa: F401  (registers the ids)
from sweeplab.errors import SweeplabError
from sweeplab.rl import MinesweeperEnv, MinesweeperVectorEnv
from sweeplab.view import HIDDEN


@st.composite
def configs(draw):
    first_click = draw(st.sampled_from(["safe", "opening", "shift", "win7", "noguess", "none"]))
    topology = "bounded" if first_click in ("shift", "win7") else draw(st.sampled_from(["bounded", "torus"]))
    # Windows 7's smallest board is 9x9; a no-guess board needs room around its opening
    low = {"win7": 9, "noguess": 5}.get(first_click, 3 if topology == "torus" else 2)
    w, h = draw(st.integers(low, low + 5)), draw(st.integers(low, low + 4))
    room = w * h - (9 if first_click in ("opening", "win7", "noguess") else 1)
    top = max(0, min(room, w * h // 3 if first_click != "noguess" else (w * h - 9) // 5))
    mines = draw(st.integers(0, top))
    rewards = draw(st.sampled_from([None, {"win": 3, "loss": -2, "progress": 0.5, "invalid": -1, "flag": 0.25}]))
    return dict(width=w, height=h, mines=mines, first_click=first_click, topology=topology,
                flags=draw(st.booleans()), rewards=rewards, max_steps=draw(st.sampled_from([None, 7])))


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=configs(), num_envs=st.integers(1, 4), seed=st.integers(0, 2**31), steps=st.integers(1, 60),
       data=st.data())
def test_vector_env_agrees_with_the_game_move_by_move(cfg, num_envs, seed, steps, data):
    vec = MinesweeperVectorEnv(num_envs, bbbv=True, **cfg)
    singles = [MinesweeperEnv(**cfg) for _ in range(num_envs)]
    obs, info = vec.reset(seed=seed)
    for k, env in enumerate(singles):
        o, i = env.reset(options={"board_seed": int(info["board_seed"][k])})
        assert np.array_equal(obs[k], o)
    ended = np.zeros(num_envs, dtype=bool)
    for _ in range(steps):
        legal = data.draw(st.booleans())
        actions = vec.sample_masked_actions() if legal else \
            np.array(data.draw(st.lists(st.integers(0, vec.config.actions - 1), min_size=num_envs,
                                        max_size=num_envs)))
        obs, reward, terminated, truncated, info = vec.step(actions)
        for k, env in enumerate(singles):
            if ended[k]:  # next-step autoreset: this step reset sub-environment k
                o, i = env.reset(options={"board_seed": int(info["board_seed"][k])})
                r, te, tr = 0.0, False, False
            else:
                o, r, te, tr, i = env.step(int(actions[k]))
            assert np.array_equal(obs[k], o)
            assert np.array_equal(o, env.game.view().cells)  # the single env's observation is the View
            assert reward[k] == pytest.approx(r, abs=1e-12)
            assert (terminated[k], truncated[k]) == (te, tr)
            assert np.array_equal(info["action_mask"][k], i["action_mask"])
            assert info["bbbv"][k] == i["bbbv"]
            assert int(info["board_seed"][k]) == i["board_seed"]
        ended = terminated | truncated


def test_make_vec_through_the_registry_and_spaces():
    vec = gym.make_vec("sweeplab/Expert-v0", num_envs=5, vectorization_mode="vector_entry_point", one_hot=True)
    obs, info = vec.reset(seed=1)
    assert obs.shape == (5, 11, 16, 30) and obs in vec.observation_space
    assert vec.action_space.shape == (5,) and vec.single_action_space.n == 480
    assert vec.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    obs2, *_ = vec.step(vec.sample_masked_actions())
    assert obs2 in vec.observation_space


def test_same_seed_same_boards_different_seed_different_boards():
    def seeds(seed):
        vec = MinesweeperVectorEnv(3, level="beginner")
        _, info = vec.reset(seed=seed)
        out = [info["board_seed"].tolist()]
        for _ in range(30):
            _, _, _, _, info = vec.step(vec.sample_masked_actions())
            out.append(info["board_seed"].tolist())
        return out

    assert seeds(4) == seeds(4) != seeds(5)
    assert len({s for row in seeds(4) for s in row}) > 3  # autoreset brings new boards


def test_masked_sampler_only_picks_legal_actions():
    vec = MinesweeperVectorEnv(64, level="beginner", flags=True)
    vec.reset(seed=0)
    for _ in range(40):
        a = vec.sample_masked_actions()
        assert vec.action_masks()[np.arange(64), a].all()
        vec.step(a)
    obs = vec.step(vec.sample_masked_actions())[0]
    assert (obs == HIDDEN).any()


def test_bad_actions_and_arguments_are_typed_errors():
    vec = MinesweeperVectorEnv(2, level="beginner")
    vec.reset(seed=0)
    with pytest.raises(SweeplabError, match="2 integers in 0..80"):
        vec.step(np.array([0, 81]))
    with pytest.raises(SweeplabError, match="2 integers"):
        vec.step(np.array([0]))
    with pytest.raises(SweeplabError, match="positive integer"):
        MinesweeperVectorEnv(0)
    with pytest.raises(SweeplabError, match="allowed: None"):
        MinesweeperVectorEnv(2, render_mode="rgb_array")
    with pytest.raises(SweeplabError, match="allowed: safe"):
        MinesweeperVectorEnv(2, first_click="lucky")


def test_winmine_one_click_bug_is_kept_in_both():
    """WinMine skips the win test after shifting a mine away from the first click; the kernel must too."""
    from sweeplab.game import Game
    from sweeplab.rl.config import Config
    cfg = Config.make(width=3, height=3, mines=1, first_click="shift")
    vec = MinesweeperVectorEnv(1, width=3, height=3, mines=1, first_click="shift")
    _, info = vec.reset(seed=0)
    found = 0
    for _ in range(200):  # episodes, each a new board; play the first click on the mine
        seed = int(info["board_seed"][0])
        mine = int(np.flatnonzero(cfg.rule(seed).board_before().flat_mines)[0])
        game = Game(rule=cfg.rule(seed), marks=False)
        game.open(mine % 3, mine // 3)
        env = MinesweeperEnv(width=3, height=3, mines=1, first_click="shift")
        env.reset(options={"board_seed": seed})
        o, r, te, tr, i = env.step(mine)
        obs, reward, terminated, truncated, info = vec.step(np.array([mine]))
        assert np.array_equal(obs[0], o) and (terminated[0], reward[0]) == (te, pytest.approx(r))
        if (o >= 0).sum() == 8:  # every safe cell opened by the first click, and still not won
            found += 1
            assert not te and game.status == "playing"
        while not terminated[0]:
            a = vec.sample_masked_actions()
            o, r, te, tr, i = env.step(int(a[0]))
            obs, reward, terminated, truncated, info = vec.step(a)
            assert np.array_equal(obs[0], o) and (terminated[0], reward[0]) == (te, pytest.approx(r))
        _, _, _, _, info = vec.step(np.array([0]))  # the autoreset step
    assert found > 0
