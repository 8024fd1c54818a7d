"""Baseline agents on the environment: sweeplab's players (random, rules, safest, strong, learned) as policies.

A `PlayerPolicy` asks its player for moves on the view the observation shows and plays them one
step at a time, skipping a certain move whose cell an earlier cascade opened, exactly as the
autoplayer does; `evaluate` seeds game i's board and player as `sweeplab bench` does (lab/runner.py),
so a player's win rate here equals its bench win rate on the same seed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import SweeplabError
from ..lab.runner import game_seeds
from ..view import View
from .config import CODES, Config

BASELINES = ("random", "rules", "safest", "strong", "learned")


def view_cells(config: Config, obs: np.ndarray) -> np.ndarray:
    """The View's cell codes of an observation (decoding one-hot planes)."""
    if config.one_hot:
        return CODES[np.argmax(obs, axis=0)]
    return np.asarray(obs, dtype=np.int8)


class PlayerPolicy:
    """A sweeplab player as a policy: `policy(obs)` returns the next action."""

    def __init__(self, name: str, seed: int, config: Config):
        from ..solver.players import make_player
        self.name = name
        self.player = make_player(name, seed)
        self.config = config
        self._queue: deque = deque()

    def __call__(self, obs: np.ndarray, info: dict | None = None) -> int:
        cfg = self.config
        cells = view_cells(cfg, obs)
        flat = cells.reshape(-1)
        for _ in range(2):
            while self._queue:
                mv = self._queue.popleft()
                i = mv.y * cfg.width + mv.x
                if mv.certain and flat[i] >= 0:
                    continue  # already opened by an earlier cascade of this round
                if mv.kind == "flag":
                    if not cfg.flags:
                        raise SweeplabError(f"player {self.name!r} flags, but the environment has flags off")
                    return cfg.cells + i
                return i
            moves = self.player.moves(View(cells, cfg.mines, cfg.topology))
            if not moves:
                raise SweeplabError(f"player {self.name!r} returned no move on a game still in play")
            self._queue.extend(moves)
        raise SweeplabError(f"player {self.name!r} made moves that change nothing")


@dataclass
class Evaluation:
    """Outcome of `evaluate`: games, wins, total return, total steps."""

    games: int = 0
    wins: int = 0
    total_return: float = 0.0
    steps: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else float("nan")

    @property
    def mean_return(self) -> float:
        return self.total_return / self.games if self.games else float("nan")

    def wilson95(self) -> tuple[float, float]:
        from ..lab.intervals import wilson
        return wilson(self.wins, self.games)


Policy = Callable[[np.ndarray, dict], int]


def evaluate(env, make_policy: Callable[[int], Policy] | str, games: int, seed: int = 0, start: int = 0) -> Evaluation:
    """Play games start..start+games-1 on `env` (a MinesweeperEnv, possibly wrapped): game i on the
    board `sweeplab bench --seed SEED` plays as its game i, with a policy made by
    `make_policy(player_seed)` (or a baseline's name)."""
    base = env.unwrapped
    if isinstance(make_policy, str):
        name = make_policy
        if name not in BASELINES:
            raise SweeplabError(f"unknown baseline {name!r}; allowed: {', '.join(BASELINES)}")
        make_policy = lambda player_seed: PlayerPolicy(name, player_seed, base.config)  # noqa: E731
    out = Evaluation()
    for i in range(start, start + games):
        board_seed, player_seed = game_seeds(seed, i)
        obs, info = env.reset(options={"board_seed": board_seed})
        policy = make_policy(player_seed)
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(policy(obs, info))
            out.total_return += reward
            out.steps += 1
            done = terminated or truncated
        out.games += 1
        out.wins += info["status"] == "won"
    return out
