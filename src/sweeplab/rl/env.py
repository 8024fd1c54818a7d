"""MinesweeperEnv: one sweeplab `Game` as a Gymnasium environment.

Each episode is one game on a board of seed `board_seed`, drawn from the environment's own
`np_random` (so `reset(seed=s)` gives the same boards on every machine) or given as
`reset(options={"board_seed": k})` to replay one board, for example game i of `sweeplab bench`.
The moves go to the real `Game`, so every rule (cascade, first-click rule, WinMine's skipped win
test) is the engine's own; this module only turns actions into clicks and views into arrays.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from ..errors import GameOverError, RLConfigError
from ..game import LOST, PLAYING, READY, WON, Game
from ..stats import bbbv
from ..view import FLAG, HIDDEN
from .config import Config

NO_PROBABILITY = -1.0  # info["probabilities"] where a cell has none: open, or the exact analysis is not there


class MinesweeperEnv(gym.Env):
    """Minesweeper as a Gymnasium environment. See docs/rl.md for the spaces, rewards and info.

    >>> env = MinesweeperEnv(level="beginner")
    >>> obs, info = env.reset(seed=1)
    >>> obs.shape, int(info["action_mask"].sum())
    ((9, 9), 81)
    """

    metadata = {"render_modes": ["rgb_array", "ansi"], "render_fps": 4}

    def __init__(self, *, level: str | None = None, width: int | None = None, height: int | None = None,
                 mines: int | None = None, first_click: str | None = None, generator: str | None = None,
                 topology: str = "bounded", flags: bool = False, one_hot: bool = False, rewards=None,
                 max_steps: int | None = None, analysis: bool = False, render_mode: str | None = None,
                 cell_pixels: int = 16, generator_options: dict | None = None):
        self.config = Config.make(level=level, width=width, height=height, mines=mines, first_click=first_click,
                                  generator=generator, topology=topology, flags=flags, one_hot=one_hot,
                                  rewards=rewards, max_steps=max_steps, generator_options=generator_options)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise RLConfigError(f"unknown render mode {render_mode!r}; allowed: rgb_array, ansi (or None)")
        self.render_mode = render_mode
        self.analysis = bool(analysis)
        self.cell_pixels = int(cell_pixels)
        self.observation_space = self.config.observation_space()
        self.action_space = self.config.action_space()
        self._reward = self.config.rewards
        self._safe_cells = max(1, self.config.cells - self.config.mines)
        self.game: Game | None = None
        self.board_seed = 0
        self._probability: np.ndarray | None = None  # the current view's, once asked

    # --- the Gymnasium API -----------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = dict(options or {})
        board_seed = options.pop("board_seed", None)
        if options:
            raise RLConfigError(f"unknown reset option {sorted(options)[0]!r}; allowed: board_seed")
        if board_seed is None:
            board_seed = int(self.np_random.integers(0, 1 << 63))
        elif isinstance(board_seed, bool) or not isinstance(board_seed, (int, np.integer)) or board_seed < 0:
            raise RLConfigError(f"board_seed must be a non-negative integer, got {board_seed!r}")
        self.board_seed = int(board_seed)
        self.game = Game(rule=self.config.rule(self.board_seed), marks=False)
        self._steps = 0
        self._guesses = 0
        self._bbbv = 0
        self._cells = self.game.view().cells
        self._probability = None
        return self.config.observe(self._cells.copy()), self._info()

    def step(self, action):
        if self.game is None:
            raise GameOverError("call reset() before step()")
        if self.game.over:
            raise GameOverError(f"the episode is over ({self.game.status}); call reset()")
        a = int(action)
        if not 0 <= a < self.config.actions:
            raise RLConfigError(f"action {action!r} is out of range; allowed 0..{self.config.actions - 1}")
        cfg, r = self.config, self._reward
        i = a % cfg.cells
        x, y = i % cfg.width, i // cfg.width
        code = int(self._cells[y, x])
        reward = 0.0
        if a < cfg.cells:  # open
            if code != HIDDEN:
                reward = r.invalid
            else:
                if self._is_guess(i):
                    self._guesses += 1
                before = self.game.status
                opened = self.game.open(x, y)
                if before == READY and self.game.status != READY:
                    self._bbbv = bbbv(self.game.board)
                if self.game.status == LOST:
                    reward = r.loss
                else:
                    reward = r.progress * opened / self._safe_cells + (r.win if self.game.status == WON else 0.0)
                if self.game.status == PLAYING and opened <= 1:  # the common step: at most one number shows
                    if opened:
                        self._show(i, self.game.board.number(x, y))
                else:  # a cascade, a win (mines get flagged), a loss: the view says what shows
                    self._cells = self.game.view().cells
        elif code in (HIDDEN, FLAG):  # flag or take the flag away (no "?" marks)
            self.game.flag(x, y)
            self._show(i, FLAG if code == HIDDEN else HIDDEN)
            reward = r.flag
        else:
            reward = r.invalid
        self._steps += 1
        self._probability = None
        terminated = self.game.over
        truncated = not terminated and self._steps >= cfg.step_limit
        return self.config.observe(self._cells.copy()), float(reward), terminated, truncated, self._info()

    def _show(self, i: int, code: int) -> None:
        """One cell of the view changes (what game.view() would show, without rebuilding the View:
        the tests check the two agree every step)."""
        cells = self._cells.copy()
        cells.reshape(-1)[i] = code
        cells.setflags(write=False)
        self._cells = cells

    def action_masks(self) -> np.ndarray:
        """The legal actions (bool, one per action), in the form sb3-contrib's MaskablePPO asks for."""
        return self.config.mask(self._cells)

    def render(self):
        if self.render_mode == "ansi":
            g = self.game
            return f"{g.view()}\nstatus: {g.status}, mines left: {g.mines_left}\n"
        if self.render_mode == "rgb_array":
            from .render import draw
            return draw(self.game.cell_codes(), self.cell_pixels)
        return None

    # --- info ---------------------------------------------------------------------------------
    def _info(self) -> dict[str, Any]:
        g = self.game
        assert g is not None  # reset() started it
        info = {"action_mask": self.action_masks(), "board_seed": self.board_seed, "bbbv": self._bbbv,
                "status": g.status, "steps": self._steps}
        if self.analysis:
            # NO_PROBABILITY, not NaN, where there is none: NaN never equals itself, so two equal infos
            # (the same seed twice, as Gymnasium's check_env compares them) would differ
            p = self._analyse()
            info["probabilities"] = np.where(np.isnan(p), NO_PROBABILITY, p)
            info["guesses"] = self._guesses
        return info

    def _analyse(self) -> np.ndarray:
        """Exact P(mine) per cell of the current view (NaN on open cells; all NaN when the game is
        over or the position is past the exact solver's budget)."""
        if self._probability is None:
            from ..errors import TooComplexError
            from ..solver import analyse
            assert self.game is not None  # reset() started it
            p = np.full(self._cells.shape, np.nan)
            if not self.game.over:
                try:
                    p = analyse(self.game.view()).probability
                except TooComplexError:
                    pass
            self._probability = p
            return p
        return self._probability

    def _is_guess(self, i: int) -> bool:
        """Whether opening cell i is a guess: not the first click (the rule makes it safe) and not
        proven safe by the exact analysis (or, past its budget, by the rules)."""
        assert self.game is not None  # reset() started it
        if not self.analysis or self.game.status == READY:
            return False
        p = self._analyse().reshape(-1)[i]
        if np.isnan(p):
            from ..solver import deduce_rules
            safe, _ = deduce_rules(self.game.view())
            return not bool(safe.reshape(-1)[i])
        return p > 0
