"""Positions for imitation, played on the batched environment: the teacher (`strong`) labels them,
the teacher or the learner plays them.

`collect` steps a `MinesweeperVectorEnv` (the action mask: hidden cells) with the moves of an
actor, analyses every position exactly (`solver.learned.position_analysis`, what the learned
player sees) and keeps labelled positions: where the analysis proves cells safe, the label is that
set (opening any of them is right); where it proves none, the label is the cell `strong` guesses.
Guess positions are all kept, the many positions with a proven-safe cell only a share of them
(`keep_certain`). `evaluate` plays an actor greedily on fixed boards for the learning curve.

Actors take the input planes of a batch of positions (b, h, w, planes) and their legal cells
(b, h, w) and return one flat cell per position. Nothing here needs torch: the trainer
(`sweeplab.rl.train`) passes its network as an actor, tests pass the numpy one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import NamedTuple

import numpy as np

from ..lab.intervals import wilson
from ..rng import seed_key, stream_key
from ..solver.learned import planes_of, position_analysis
from ..solver.players import StrongPlayer
from ..view import HIDDEN, View
from .vector import MinesweeperVectorEnv

Actor = Callable[[np.ndarray, np.ndarray], np.ndarray]


class Level(NamedTuple):
    name: str
    width: int
    height: int
    mines: int
    first: tuple[int, int]  # the evaluation's first click, as bench_winrate's opening cases


LEVELS = {
    "beginner": Level("beginner", 9, 9, 10, (2, 2)),
    "intermediate": Level("intermediate", 16, 16, 40, (2, 2)),
    "expert": Level("expert", 30, 16, 99, (3, 3)),
}
TEACHER_SALT = 0x7EAC_4E25_0000_0001  # the teacher's tie-breaks: a stream apart from the boards'


@dataclass
class Positions:
    """Labelled positions of one board size: view cells, their analysis, the label (cells the
    teacher would open) and whether the position called for a guess."""

    cells: np.ndarray        # int8 (n, h, w), the View's codes
    probability: np.ndarray  # float32 (n, h, w), P(mine); NaN on open cells
    safe: np.ndarray         # bool (n, h, w), proven safe
    mines: np.ndarray        # bool (n, h, w), proven mine
    target: np.ndarray       # bool (n, h, w), the label
    guess: np.ndarray        # bool (n,)

    def __len__(self) -> int:
        return len(self.guess)

    def planes(self, index=slice(None)) -> np.ndarray:
        return planes_of(self.cells[index], self.probability[index], self.safe[index], self.mines[index])

    @classmethod
    def empty(cls, height: int, width: int) -> Positions:
        z = (0, height, width)
        return cls(np.zeros(z, np.int8), np.zeros(z, np.float32), np.zeros(z, bool), np.zeros(z, bool),
                   np.zeros(z, bool), np.zeros(0, bool))

    def __add__(self, other: Positions) -> Positions:
        return Positions(*(np.concatenate([getattr(self, f.name), getattr(other, f.name)]) for f in fields(self)))

    def save(self, path) -> None:
        with open(path, "wb") as f:
            np.savez_compressed(f, **{f.name: getattr(self, f.name) for f in fields(self)})

    @classmethod
    def load(cls, path) -> Positions:
        with np.load(path) as z:
            return cls(*(z[f.name] for f in fields(cls)))


@dataclass
class Played:
    """What an actor did on the environment: steps, games ended, games won."""

    steps: int = 0
    games: int = 0
    wins: int = 0

    def wilson95(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)


def greedy(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The legal cell of highest logit per position (b, h, w) -> (b,) flat cells."""
    b = logits.shape[0]
    return np.argmax(np.where(legal, logits, -np.inf).reshape(b, -1), axis=1)


def numpy_actor(net) -> Actor:
    """A `PolicyNet` (solver/policy_net.py) as a greedy actor."""
    return lambda planes, legal: greedy(net.logits(planes), legal)


def _analysed(cells: np.ndarray, level: Level):
    """The analysis of positions (b, h, w): P(mine), proven safe, proven mine, as the player sees them."""
    out = [position_analysis(View(c, level.mines)) for c in cells]
    prob = np.array([o[0] for o in out], np.float32).reshape(cells.shape)
    safe = np.array([o[1] for o in out], bool).reshape(cells.shape)
    mines = np.array([o[2] for o in out], bool).reshape(cells.shape)
    return cells, prob, safe, mines


def collect(level: Level, games: int, seed: int, act: Actor | None = None, *, keep_certain: float = 0.1,
            num_envs: int = 64) -> tuple[Positions, Played]:
    """Labelled positions from about `games` games on `level` (first click `opening`, at a random
    cell: varied openings), played by `act` or, when None, by the teacher itself. Reproducible
    from `seed` (boards, first clicks, the teacher's tie-breaks and which certain positions are kept)."""
    env = MinesweeperVectorEnv(num_envs, width=level.width, height=level.height, mines=level.mines,
                               first_click="opening")
    obs, _ = env.reset(seed=seed)
    key = seed_key(seed)
    teachers = [StrongPlayer(stream_key(key ^ TEACHER_SALT, i)) for i in range(num_envs)]
    keep = np.random.default_rng(stream_key(key, num_envs))
    h, w, n = level.height, level.width, level.width * level.height
    kept, played = [], Played()
    ended = np.zeros(num_envs, bool)
    while played.games < games:
        fresh = ~(obs >= 0).any(axis=(1, 2))
        actions = env.sample_masked_actions()  # a fresh board's first click (an ended one's: ignored)
        rows = np.flatnonzero(~fresh & ~ended)
        if rows.size:
            cells, prob, safe, mines = _analysed(obs[rows], level)
            hidden = cells == HIDDEN
            proven = (safe & hidden).reshape(len(rows), n)
            guess = ~proven.any(axis=1)
            target = proven.copy()
            for j in np.flatnonzero(guess):
                m = teachers[rows[j]].moves(View(cells[j], level.mines))[0]
                target[j, m.y * w + m.x] = True
            take = guess | (keep.random(len(rows)) < keep_certain)
            if take.any():
                kept.append(Positions(cells[take], prob[take], safe[take], mines[take],
                                      target[take].reshape(-1, h, w), guess[take]))
            if act is None:  # the teacher: its guess, or the first proven-safe cell, as it plays them
                actions[rows] = np.argmax(target, axis=1)
            else:
                actions[rows] = act(planes_of(cells, prob, safe, mines), hidden)
        obs, reward, terminated, truncated, _ = env.step(actions)
        ended = terminated | truncated
        played.steps += num_envs
        played.games += int(ended.sum())
        played.wins += int((terminated & (reward > 0)).sum())
    out = Positions.empty(h, w)
    for p in kept:
        out = out + p
    return out, played


def evaluate(level: Level, games: int, seed: int, act: Actor, *, num_envs: int = 500) -> Played:
    """Play `games` games on `level` greedily with `act`, first click at `level.first` (opening),
    on the boards of the vector environment seeded `seed`: each sub-environment's first game only."""
    played = Played()
    for start in range(0, games, num_envs):
        b = min(num_envs, games - start)
        env = MinesweeperVectorEnv(b, width=level.width, height=level.height, mines=level.mines,
                                   first_click="opening")
        env.reset(seed=int(stream_key(seed_key(seed), start)))
        live = np.ones(b, bool)
        actions = np.full(b, level.first[1] * level.width + level.first[0], np.int64)
        while live.any():
            obs, reward, terminated, truncated, _ = env.step(actions)
            ended = live & (terminated | truncated)
            played.games += int(ended.sum())
            played.wins += int((ended & terminated & (reward > 0)).sum())
            played.steps += int(live.sum())
            live &= ~ended
            actions = env.sample_masked_actions()  # (finished boards: ignored)
            rows = np.flatnonzero(live)
            if rows.size:
                cells, prob, safe, mines = _analysed(obs[rows], level)
                actions[rows] = act(planes_of(cells, prob, safe, mines), cells == HIDDEN)
    return played
