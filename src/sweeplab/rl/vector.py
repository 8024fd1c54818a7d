"""MinesweeperVectorEnv: many games stepped in one numba call, with Gymnasium's VectorEnv API.

The step kernel calls the engine's own kernels (kernels.open_cell for the click and its cascade,
kernels.lay_uniform and count_numbers to lay a board at the first click), so the rules are the
ones `Game` plays; tests/test_rl_vector.py checks move by move that each sub-environment and a
`MinesweeperEnv` on the same board agree. Autoreset is next-step, as in Gymnasium's own vector
environments: the step after an episode ends resets that sub-environment and ignores its action.

Boards: sub-environment i draws the seed of each new board from a splitmix64 stream keyed from
`reset(seed=)`; uniform boards with a `safe` or `opening` first click are laid inside the kernel,
with the same `lay_uniform` call as `uniform_board`; every other rule (shift, win7, noguess, none,
other generators) is laid by the rule itself in Python at the episode's first click, then played
by the kernel.
"""

from __future__ import annotations

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .. import grid, view
from .._numba_cache import njit
from ..errors import RLConfigError
from ..kernels import FLAG_STATE, HIDDEN_STATE, OPEN_STATE, count_numbers, lay_uniform, open_cell, settle_win
from ..rng import below, next_u64
from .config import Config

V_HIDDEN, V_FLAG = np.int8(view.HIDDEN), np.int8(view.FLAG)  # the View's codes, as int8 for the kernels
WIN, LOSS, PROGRESS, INVALID, FLAG_R = range(5)  # indices into the rewards array (Rewards.array)
LAY_NONE, LAY_SAFE, LAY_OPENING = 0, 1, 2  # who lays the board: Python (the rule), or the kernel


@njit
def _reset_one(i, state, obs, laid, opened, steps, streams, board_seeds):
    state[i, :] = HIDDEN_STATE
    obs[i, :] = V_HIDDEN
    laid[i] = False
    opened[i] = 0
    steps[i] = 0
    streams[i], board_seeds[i] = next_u64(streams[i])


@njit
def reset_all(state, obs, laid, opened, steps, streams, board_seeds, needs_reset):
    for i in range(state.shape[0]):
        _reset_one(i, state, obs, laid, opened, steps, streams, board_seeds)
        needs_reset[i] = False


@njit
def step_all(actions, state, obs, mines, numbers, laid, skip_win, opened, steps, streams, board_seeds,
             needs_reset, nbr, mine_count, lay, flags, rewards, step_limit, reward, terminated, truncated,
             queue, excluded):
    """One step of every sub-environment. `lay`: LAY_SAFE / LAY_OPENING lay uniform boards here at
    the first click; LAY_NONE: the caller laid them (a board not laid then means the click did nothing)."""
    b, n = state.shape
    safe_cells = max(1, n - mine_count)
    for i in range(b):
        reward[i] = 0.0
        terminated[i] = False
        truncated[i] = False
        if needs_reset[i]:
            _reset_one(i, state, obs, laid, opened, steps, streams, board_seeds)
            needs_reset[i] = False
            continue
        a = actions[i]
        steps[i] += 1
        c = a % n
        st = state[i]
        if a < n:  # open
            if st[c] == OPEN_STATE or st[c] == FLAG_STATE:
                reward[i] = rewards[INVALID]
            else:
                check_win = True
                if not laid[i] and lay != LAY_NONE:
                    excluded[:] = False
                    excluded[c] = True
                    if lay == LAY_OPENING:
                        for k in range(8):
                            j = nbr[c, k]
                            if j >= 0:
                                excluded[j] = True
                    m, _ = lay_uniform(n, mine_count, excluded, board_seeds[i])
                    mines[i, :] = m
                    numbers[i, :] = count_numbers(m, nbr)
                    laid[i] = True
                elif laid[i] and skip_win[i]:  # WinMine: no win test after the shift (the rule said so)
                    check_win = False
                    skip_win[i] = False
                if laid[i]:
                    got, hit = open_cell(st, numbers[i], mines[i], nbr, c, queue)
                    if hit >= 0:
                        reward[i] = rewards[LOSS]
                        terminated[i] = True
                    else:
                        opened[i] += got
                        reward[i] = rewards[PROGRESS] * got / safe_cells
                        if got == 1:  # a number: only the clicked cell opened
                            obs[i, c] = numbers[i, c]
                        elif got > 1:  # a cascade: copy every newly opened cell
                            ob, num = obs[i], numbers[i]
                            for j in range(n):
                                if st[j] == OPEN_STATE and ob[j] == V_HIDDEN:
                                    ob[j] = num[j]
                        if check_win and settle_win(st, mines[i], opened[i], n - mine_count):
                            reward[i] += rewards[WIN]
                            terminated[i] = True
                            for j in range(n):  # the view shows the mines settle_win flagged
                                if mines[i, j]:
                                    obs[i, j] = V_FLAG
        elif flags:
            if st[c] == HIDDEN_STATE:
                st[c] = FLAG_STATE
                obs[i, c] = V_FLAG
                reward[i] = rewards[FLAG_R]
            elif st[c] == FLAG_STATE:
                st[c] = HIDDEN_STATE
                obs[i, c] = V_HIDDEN
                reward[i] = rewards[FLAG_R]
            else:
                reward[i] = rewards[INVALID]
        if not terminated[i] and steps[i] >= step_limit:
            truncated[i] = True
        needs_reset[i] = terminated[i] or truncated[i]


@njit
def sample_masked(obs, flags, streams, out):
    """A uniformly random legal action per sub-environment (open a hidden cell; with flags, open or
    flag/unflag), by rejection; a sub-environment with none gets action 0 (it is about to reset)."""
    b, n = obs.shape
    width = 2 * n if flags else n
    for i in range(b):
        legal = 0
        for j in range(n):
            if obs[i, j] == V_HIDDEN or (flags and obs[i, j] == V_FLAG):
                legal += 1
        out[i] = 0
        if legal == 0:
            continue
        while True:
            streams[i], a = below(streams[i], width)
            v = obs[i, a % n]
            if v == V_HIDDEN or (a >= n and v == V_FLAG):
                out[i] = a
                break


class MinesweeperVectorEnv(VectorEnv):
    """`num_envs` games of one level stepped together; same arguments as MinesweeperEnv (no rendering).

    `info` holds `action_mask` (num_envs, actions), `board_seed` (num_envs,) and `bbbv` (num_envs,)
    when `bbbv=True` (0 until the board is laid).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 16, *, level=None, width=None, height=None, mines=None, first_click=None,
                 generator=None, topology="bounded", flags=False, one_hot=False, rewards=None, max_steps=None,
                 bbbv: bool = False, generator_options=None, render_mode=None):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise RLConfigError(f"num_envs must be a positive integer, got {num_envs!r}")
        if render_mode is not None:
            raise RLConfigError(f"the vector environment does not render (render_mode {render_mode!r}); "
                                "allowed: None; render a MinesweeperEnv on the same board_seed instead")
        self.config = cfg = Config.make(level=level, width=width, height=height, mines=mines,
                                        first_click=first_click, generator=generator, topology=topology,
                                        flags=flags, one_hot=one_hot, rewards=rewards, max_steps=max_steps,
                                        generator_options=generator_options)
        self.num_envs = int(num_envs)
        self.single_observation_space = cfg.observation_space()
        self.single_action_space = cfg.action_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        self.want_bbbv = bool(bbbv)
        b, n = self.num_envs, cfg.cells
        self._nbr = grid.neighbour_table(cfg.width, cfg.height, cfg.topology)
        self._state = np.zeros((b, n), dtype=np.int8)
        self._obs = np.full((b, n), V_HIDDEN, dtype=np.int8)
        self._mines = np.zeros((b, n), dtype=np.bool_)
        self._numbers = np.zeros((b, n), dtype=np.int8)
        self._laid = np.zeros(b, dtype=np.bool_)
        self._skip_win = np.zeros(b, dtype=np.bool_)
        self._opened = np.zeros(b, dtype=np.int64)
        self._steps = np.zeros(b, dtype=np.int64)
        self._streams = np.zeros(b, dtype=np.uint64)
        self._board_seeds = np.zeros(b, dtype=np.uint64)
        self._needs_reset = np.zeros(b, dtype=np.bool_)
        self._bbbv = np.zeros(b, dtype=np.int64)
        self._reward = np.zeros(b, dtype=np.float64)
        self._terminated = np.zeros(b, dtype=np.bool_)
        self._truncated = np.zeros(b, dtype=np.bool_)
        self._queue = np.empty(n, dtype=np.int32)
        self._excluded = np.zeros(n, dtype=np.bool_)
        self._actions = np.zeros(b, dtype=np.int64)
        self._sampler = np.zeros(b, dtype=np.uint64)
        self._rewards = cfg.rewards.array()
        self._lay = {"safe": LAY_SAFE, "opening": LAY_OPENING}[cfg.first_click] if cfg.in_kernel else LAY_NONE

    # --- the VectorEnv API ---------------------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if options:
            raise RLConfigError(f"unknown reset option {sorted(options)[0]!r}; the vector environment takes none")
        keys = self.np_random.integers(0, 1 << 63, size=(2, self.num_envs), dtype=np.int64).astype(np.uint64)
        self._streams[:], self._sampler[:] = keys
        reset_all(self._state, self._obs, self._laid, self._opened, self._steps, self._streams, self._board_seeds,
                  self._needs_reset)
        self._bbbv[:] = 0
        return self._observation(), self._info()

    def step(self, actions):
        cfg = self.config
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer) \
                or a.min() < 0 or a.max() >= cfg.actions:
            raise RLConfigError(f"actions must be {self.num_envs} integers in 0..{cfg.actions - 1}, got {actions!r}")
        self._actions[:] = a
        fresh = ~self._laid & ~self._needs_reset
        if self._lay == LAY_NONE and fresh.any():
            self._lay_in_python(fresh)
        step_all(self._actions, self._state, self._obs, self._mines, self._numbers, self._laid, self._skip_win,
                 self._opened, self._steps, self._streams, self._board_seeds, self._needs_reset, self._nbr,
                 cfg.mines, self._lay, cfg.flags, self._rewards, cfg.step_limit, self._reward, self._terminated,
                 self._truncated, self._queue, self._excluded)
        if self.want_bbbv:
            self._update_bbbv(fresh)
        return (self._observation(), self._reward.copy(), self._terminated.copy(), self._truncated.copy(),
                self._info())

    def action_masks(self) -> np.ndarray:
        """(num_envs, actions) bool: the legal actions of each sub-environment."""
        return self.config.mask(self._obs.reshape(self.num_envs, self.config.height, self.config.width))

    def sample_masked_actions(self) -> np.ndarray:
        """A uniformly random legal action per sub-environment, from the vector environment's own stream."""
        out = np.empty(self.num_envs, dtype=np.int64)
        sample_masked(self._obs, self.config.flags, self._sampler, out)
        return out

    @property
    def board_seeds(self) -> np.ndarray:
        """The seed of each sub-environment's current board (what MinesweeperEnv takes as board_seed)."""
        return self._board_seeds.copy()

    # --- internals -----------------------------------------------------------------------------
    def _observation(self) -> np.ndarray:
        cfg = self.config
        return cfg.observe(self._obs.reshape(self.num_envs, cfg.height, cfg.width).copy())

    def _info(self) -> dict:
        info = {"action_mask": self.action_masks(), "board_seed": self._board_seeds.copy()}
        if self.want_bbbv:
            info["bbbv"] = self._bbbv.copy()
        return info

    def _lay_in_python(self, fresh: np.ndarray) -> None:
        """The first click of a rule the kernel does not lay (shift, win7, noguess, ...): the rule
        lays the board, as it would in Game, and the kernel plays the click."""
        n, cfg = self.config.cells, self.config
        for i in np.flatnonzero(fresh):
            a = int(self._actions[i])
            if a >= n or self._state[i, a] == FLAG_STATE:
                continue
            placed = cfg.rule(int(self._board_seeds[i])).board_for(a % cfg.width, a // cfg.width)
            if placed is None:  # WinMine with no free cell to shift to: the click does nothing
                continue
            board, check_win = placed
            self._mines[i] = board.flat_mines
            self._numbers[i] = board.flat_numbers
            self._laid[i] = True
            self._skip_win[i] = not check_win

    def _update_bbbv(self, fresh: np.ndarray) -> None:
        from ..stats import bbbv_kernel
        for i in np.flatnonzero(fresh & self._laid):
            self._bbbv[i] = bbbv_kernel(self._mines[i], self._numbers[i], self._nbr)
        self._bbbv[~self._laid] = 0
