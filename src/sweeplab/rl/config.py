"""What an RL environment plays: the level, the first-click rule, the generator, the rewards, the spaces.

Shared by the single environment (env.py) and the batched one (vector.py), so both check their
arguments, make their boards and shape their observations the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import grid
from ..errors import RLConfigError
from ..firstclick import FirstClick
from ..generators import make_rule, rule_seed
from ..presets import preset
from ..rng import MASK64
from ..view import FLAG, HIDDEN

FIRST_CLICKS = ("safe", "opening", "shift", "win7", "noguess", "none")
# Observation codes, as in the View: FLAG (-2), HIDDEN (-1), then the numbers 0..8.
CODES = np.arange(FLAG, 9, dtype=np.int8)
PLANES = len(CODES)


@dataclass(frozen=True)
class Rewards:
    """What a step pays. The defaults put a random agent's mean return (-0.32 on beginner with an
    opening first click) well apart from a solver's (+1.82 to +1.91): see docs/rl.md.

    win: once, on the move that opens the last safe cell. loss: once, on the move that opens a mine.
    progress: shared out over the safe cells, so opening k of the S safe cells pays progress * k / S
    (a whole won game pays `progress` in all, the first click's cascade included).
    invalid: a move that changes nothing (opening an open or flagged cell, flagging an open one);
    it still counts towards the step limit. flag: a flag placed or taken away (0: flags are free).
    """

    win: float = 1.0
    loss: float = -1.0
    progress: float = 1.0
    invalid: float = -0.1
    flag: float = 0.0

    def array(self) -> np.ndarray:
        return np.array([self.win, self.loss, self.progress, self.invalid, self.flag], dtype=np.float64)

    @classmethod
    def of(cls, value) -> Rewards:
        if value is None:
            return cls()
        if isinstance(value, Rewards):
            return value
        if isinstance(value, dict):
            unknown = set(value) - {f for f in cls.__dataclass_fields__}
            if unknown:
                raise RLConfigError(f"unknown reward {sorted(unknown)[0]!r}; "
                                    "allowed: win, loss, progress, invalid, flag")
            try:
                return cls(**{k: float(v) for k, v in value.items()})
            except (TypeError, ValueError):
                raise RLConfigError(f"rewards must be numbers, got {value!r}") from None
        raise RLConfigError(f"rewards must be a dict like {{'win': 1, 'loss': -1}} or a Rewards, got {value!r}")


@dataclass(frozen=True)
class Config:
    """Every argument of an environment, checked once."""

    width: int = 9
    height: int = 9
    mines: int = 10
    first_click: str = "safe"  # Config.make: None means the generator's own rule, else safe
    generator: str | None = None
    topology: str = "bounded"
    flags: bool = False        # the action space adds flag/unflag (Discrete(2*w*h)); else open only
    one_hot: bool = False      # observations as 11 planes (flag, hidden, 0..8) of 0/1 instead of codes
    rewards: Rewards = field(default_factory=Rewards)
    max_steps: int | None = None  # truncate after this many steps (default 4*w*h)
    generator_options: dict = field(default_factory=dict)

    @classmethod
    def make(cls, *, level: str | None = None, width=None, height=None, mines=None, first_click=None,
             generator=None, topology="bounded", flags=False, one_hot=False, rewards=None, max_steps=None,
             generator_options=None) -> Config:
        if level is not None:
            lv = preset(level)
            width = lv.width if width is None else width
            height = lv.height if height is None else height
            mines = lv.mines if mines is None else mines
        width, height, mines = (9 if width is None else width), (9 if height is None else height), \
            (10 if mines is None else mines)
        grid.check_size(width, height, topology)
        grid.check_mines(width, height, mines)
        if first_click is None:  # the generator's own rule (its first), else safe
            from ..generators import lookup
            first_click = lookup(generator).first_clicks[0] if generator is not None else "safe"
        if first_click not in FIRST_CLICKS:
            raise RLConfigError(f"unknown first-click rule {first_click!r}; allowed: {', '.join(FIRST_CLICKS)}")
        if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer))
                                      or max_steps < 1):
            raise RLConfigError(f"max_steps must be a positive integer or None, got {max_steps!r}")
        cfg = cls(int(width), int(height), int(mines), first_click, generator, topology, bool(flags), bool(one_hot),
                  Rewards.of(rewards), None if max_steps is None else int(max_steps), dict(generator_options or {}))
        cfg.rule(0)  # a size, rule or generator that cannot go together fails now, with the rule's own error
        return cfg

    @property
    def cells(self) -> int:
        return self.width * self.height

    @property
    def actions(self) -> int:
        return self.cells * (2 if self.flags else 1)

    @property
    def step_limit(self) -> int:
        return self.max_steps if self.max_steps is not None else 4 * self.cells

    @property
    def in_kernel(self) -> bool:
        """Whether the batched kernel lays the boards itself (uniform boards, safe or opening)."""
        return self.generator in (None, "uniform", "random") and self.first_click in ("safe", "opening")

    def rule(self, board_seed: int) -> FirstClick:
        """The first-click rule of the board of seed `board_seed` (a 64-bit integer).

        Rules seeded by a narrower number take it modulo their range: WinMine's shift a 32-bit
        rand() state, Windows 7 a 32-bit time, a WinMine version's generator its 16-bit tick."""
        seed = int(board_seed) & MASK64
        if self.generator is None:
            return make_rule(self.first_click, self.width, self.height, self.mines,
                             rule_seed(self.first_click, seed), self.topology, **self.generator_options)
        from ..generators import lookup, make
        info = lookup(self.generator)
        if info.name == "win7":
            seed &= 0xFFFF_FFFF
        elif "shift" in info.first_clicks:
            seed &= 0xFFFF  # a WinMine version is seeded by its start-up tick
        return make(info.name, self.width, self.height, self.mines, seed, first_click=self.first_click,
                    topology=self.topology, **self.generator_options)

    # --- spaces and observations ------------------------------------------------------------
    def observation_space(self):
        from gymnasium import spaces
        if self.one_hot:
            return spaces.Box(0, 1, (PLANES, self.height, self.width), dtype=np.uint8)
        return spaces.Box(FLAG, 8, (self.height, self.width), dtype=np.int8)

    def action_space(self):
        from gymnasium import spaces
        return spaces.Discrete(self.actions)

    def observe(self, cells: np.ndarray) -> np.ndarray:
        """The observation of view cells (..., h, w): the codes themselves, or one-hot planes."""
        if not self.one_hot:
            return cells
        planes = cells[..., None, :, :] == CODES.reshape(PLANES, 1, 1)
        return planes.astype(np.uint8)

    def mask(self, cells: np.ndarray) -> np.ndarray:
        """The legal actions of view cells (..., h, w), flat: open a hidden cell; flag/unflag a hidden
        or flagged one (with flags on)."""
        flat = cells.reshape(*cells.shape[:-2], self.cells)
        hidden = flat == HIDDEN
        if not self.flags:
            return hidden
        return np.concatenate([hidden, hidden | (flat == FLAG)], axis=-1)
