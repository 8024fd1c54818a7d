"""WinMine (Windows 3.1 to XP), bit for bit: its versions, its session-long rand() stream, its first-click shift.

The program seeds rand() once, from the low 16 bits of the tick count, and every new game
(and every change of level) continues that one stream: for each mine it draws x = rand() % width,
then y = rand() % height, and draws again while the cell already holds a mine. A mine under
the first click is moved to the first free cell, scanning rows from the top and each row left
to right, stopping one short of the last row and the last column; after such a shift the game
does not test for a win (the one-click bug).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import grid
from .._numba_cache import njit
from ..board import Board
from ..errors import InvalidBoardError
from ..firstclick import FirstClick, Fixed
from ..msvc import INCREMENT, MULTIPLIER, RAND_MAX, check_state, divisor_magic
from ..presets import Level
from . import GeneratorInfo, Limits, register

TICK_SEEDS = 1 << 16  # the start-up seed is the low 16 bits of the tick count


@dataclass(frozen=True)
class Version:
    """One Windows release of WinMine: its name, its presets and its custom-size limits."""

    name: str
    title: str
    beginner: Level
    min_side: int          # smallest custom width and height
    max_width: int = 30
    max_height: int = 24
    min_mines: int = 10
    max_mines_cap: int = 999  # and at most (w-1)(h-1)

    @property
    def presets(self) -> dict[str, Level]:
        return {"beginner": self.beginner, "intermediate": Level(16, 16, 40), "expert": Level(30, 16, 99)}

    def max_mines(self, width: int, height: int) -> int:
        return min(self.max_mines_cap, (width - 1) * (height - 1))

    def level(self, preset: str | None = None, width: int | None = None, height: int | None = None,
              mines: int | None = None) -> Level:
        """A preset by name, or a custom size checked against this version's limits."""
        if preset is not None:
            if preset not in self.presets:
                raise InvalidBoardError(f"unknown preset {preset!r} for {self.name}; allowed: "
                                        f"{', '.join(self.presets)}")
            base = self.presets[preset]
            width = base.width if width is None else width
            height = base.height if height is None else height
            mines = base.mines if mines is None else mines
            if Level(width, height, mines) == base:
                return base
        if width is None or height is None or mines is None:
            raise InvalidBoardError("a custom WinMine level needs width, height and mines (or a preset)")
        self.check_custom(width, height, mines)
        return Level(int(width), int(height), int(mines))

    def check_custom(self, width: int, height: int, mines: int) -> None:
        for what, value, low, high in (("width", width, self.min_side, self.max_width),
                                       ("height", height, self.min_side, self.max_height)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
                raise InvalidBoardError(f"{self.name} custom {what} {value!r} is out of range; allowed {low}..{high}")
        top = self.max_mines(width, height)
        if isinstance(mines, bool) or not isinstance(mines, (int, np.integer)) or not self.min_mines <= mines <= top:
            raise InvalidBoardError(f"{self.name} custom {width}x{height} cannot hold {mines!r} mines; allowed "
                                    f"{self.min_mines}..{top} (at most min(999, (width-1)*(height-1)))")


_OLD, _NEW = Level(8, 8, 10), Level(9, 9, 10)
VERSIONS: dict[str, Version] = {v.name: v for v in (
    Version("win31", "Windows 3.1", _OLD, 8),
    Version("win95", "Windows 95", _OLD, 8),
    Version("win98", "Windows 98", _OLD, 8),
    Version("winme", "Windows ME", _OLD, 8),
    Version("winnt", "Windows NT 4", _OLD, 8),
    Version("win2000", "Windows 2000", _NEW, 9),
    Version("winxp", "Windows XP", _NEW, 9),
)}


def version(name: str) -> Version:
    key = name.lower()
    key = {"xp": "winxp", "2000": "win2000", "win2k": "win2000", "98": "win98", "95": "win95", "me": "winme",
           "nt": "winnt", "31": "win31", "win3.1": "win31"}.get(key, key)
    try:
        return VERSIONS[key]
    except KeyError:
        raise InvalidBoardError(f"unknown WinMine version {name!r}; allowed: {', '.join(VERSIONS)}") from None


# --- kernels ---------------------------------------------------------------------------------

_A2 = MULTIPLIER * MULTIPLIER & 0xFFFFFFFF          # two rand() steps at once
_C2 = (INCREMENT * MULTIPLIER + INCREMENT) & 0xFFFFFFFF


@njit(inline="always")
def draw_board(state, width, height, mines, magic_w, magic_h, occupied, order):
    """Lay one board from `state` into `occupied` (all False on entry) and `order` (cells in the
    order placed). Returns the state after the board. `magic_*` from msvc.divisor_magic.

    x and y come from one and two steps after the current state, both computed from it, so the
    chain of dependent multiplies is one per draw rather than two.
    """
    s = np.uint32(state)
    w = np.uint64(width)
    h = np.uint64(height)
    mw = np.uint64(magic_w)
    mh = np.uint64(magic_h)
    for k in range(mines):
        while True:
            s1 = np.uint32(s * np.uint32(MULTIPLIER) + np.uint32(INCREMENT))
            s = np.uint32(s * np.uint32(_A2) + np.uint32(_C2))
            rx = np.uint64((s1 >> np.uint32(16)) & np.uint32(RAND_MAX))
            ry = np.uint64((s >> np.uint32(16)) & np.uint32(RAND_MAX))
            x = rx - w * ((rx * mw) >> np.uint64(32))
            y = ry - h * ((ry * mh) >> np.uint64(32))
            i = np.int64(y * w + x)
            if not occupied[i]:
                break
        occupied[i] = True
        order[k] = i
    return s


@njit
def lay_winmine(state, width, height, mines, magic_w, magic_h):
    """One WinMine board from `state`: (mines as bool[width*height], state after it)."""
    occupied = np.zeros(width * height, dtype=np.bool_)
    order = np.empty(mines, dtype=np.int32)
    s = draw_board(state, width, height, mines, magic_w, magic_h, occupied, order)
    return occupied, s


@njit
def trace_winmine(state, width, height, mines):
    """One board with its history: the cells in the order placed, and for each the number of
    rand() calls made before its x was drawn; also the total calls and the state after."""
    occupied = np.zeros(width * height, dtype=np.bool_)
    order = np.empty(mines, dtype=np.int32)
    offsets = np.empty(mines, dtype=np.int64)
    s = np.uint32(state)
    calls = 0
    for k in range(mines):
        while True:
            offsets[k] = calls
            s = np.uint32(s * np.uint32(MULTIPLIER) + np.uint32(INCREMENT))
            x = np.int64((s >> np.uint32(16)) & np.uint32(RAND_MAX)) % width
            s = np.uint32(s * np.uint32(MULTIPLIER) + np.uint32(INCREMENT))
            y = np.int64((s >> np.uint32(16)) & np.uint32(RAND_MAX)) % height
            calls += 2
            i = y * width + x
            if not occupied[i]:
                break
        occupied[i] = True
        order[k] = i
    return order, offsets, calls, s


def winmine_board(state: int, width: int, height: int, mines: int) -> tuple[Board, int]:
    """The board WinMine lays from rand() state `state`, and the state after it (no limits checked
    beyond what a grid can hold; versions check theirs)."""
    check_state(state)
    grid.check_size(width, height)
    if not 0 <= mines < width * height:
        raise InvalidBoardError(f"{mines} mines on {width}x{height}: WinMine needs at least one free cell; "
                                f"allowed 0..{width * height - 1}")
    if width > RAND_MAX + 1 or height > RAND_MAX + 1:
        raise InvalidBoardError("WinMine draws cells with rand() % side; sides are limited to 32768")
    flat, s = lay_winmine(np.uint32(state), width, height, mines, divisor_magic(width), divisor_magic(height))
    return Board._from_flat(width, height, flat), int(s)


# --- the first click ---------------------------------------------------------------------------

def shift_target(board: Board) -> tuple[int, int] | None:
    """Where a mine under the first click goes: the first free cell scanning rows top to bottom,
    left to right, stopping one short of the last row and column; None if there is none."""
    inner = ~board.mines[:-1, :-1]
    free = np.flatnonzero(inner)
    if free.size == 0:
        return None
    y, x = divmod(int(free[0]), board.width - 1)
    return x, y


class Shift(FirstClick):
    """`shift`: WinMine's first click. The board exists before the click; a mine under the first
    opening click moves to `shift_target`, and then the game skips its win test."""

    name = "shift"
    check_win_on_first = False  # after a shift; a first click on a safe cell is tested as usual

    def __init__(self, board: Board, *, origin: dict | None = None):
        if board.topology != "bounded":
            raise InvalidBoardError("the WinMine shift is defined on bounded boards only; allowed topology: bounded")
        super().__init__(board.width, board.height, board.mine_count, board.topology)
        self.board = board
        self.origin = dict(origin or {})

    def board_before(self) -> Board:
        return self.board

    def board_for(self, x, y):
        if not self.board.is_mine(x, y):
            return self.board, True
        target = shift_target(self.board)
        if target is None:
            return None  # the binary finds no free cell and the click does nothing
        return self.board.with_mine_moved((x, y), target), False

    def spec(self) -> dict:
        return {"rule": self.name, **self.origin}


def _state_factory(width: int, height: int, mines: int, seed: int, *, first_click: str = "shift",
                   topology: str = "bounded", board: Board | None = None, **_: object) -> FirstClick:
    """The `winmine` generator (and the `shift` rule): the shift on `board`, or on the WinMine board laid from
    rand() state `seed`; with first click `none`, that board as laid."""
    if board is None:
        grid.check_topology(topology)
        if topology != "bounded":
            raise InvalidBoardError("the WinMine shift is defined on bounded boards only; allowed topology: bounded")
        board, _s = winmine_board(check_state(seed), width, height, mines)
        origin: dict[str, int] = {"state": int(seed)}
    else:
        origin = {}
    return Fixed(board) if first_click == "none" else Shift(board, origin=origin)


register(GeneratorInfo("winmine", "WinMine's layout from any 32-bit rand() state, with no version's limits; "
                                  "its first-click shift", ("shift", "none"), _state_factory, rules=("shift",),
                       seed_bits=32))


# --- the program: one session, one stream --------------------------------------------------------

class WinMineSession:
    """One run of WinMine: seeded once (a 16-bit tick, or any rand() state), every game continuing
    the same stream, level changes included.

    >>> s = WinMineSession("win98", tick=0)
    >>> s.level
    Level(width=8, height=8, mines=10)
    >>> b = s.next_board(); s.games
    1
    """

    def __init__(self, version_name: str = "winxp", *, tick: int | None = None, state: int | None = None,
                 preset: str = "beginner"):
        self.version = version(version_name)
        if (tick is None) == (state is None):
            raise InvalidBoardError("seed a WinMine session with exactly one of tick (0..65535) or state (0..2**32-1)")
        if tick is not None:
            if isinstance(tick, bool) or not isinstance(tick, (int, np.integer)) or not 0 <= tick < TICK_SEEDS:
                raise InvalidBoardError(f"tick {tick!r} is out of range; WinMine seeds with the low 16 bits of the "
                                        f"tick count, allowed 0..65535 (give state= for any rand() state)")
            state = int(tick)
        assert state is not None  # one of the two was given
        self.start_state = check_state(state)
        self.state = self.start_state
        self.level = self.version.level(preset)
        self.games = 0

    def set_level(self, preset: str | None = None, *, width: int | None = None, height: int | None = None,
                  mines: int | None = None) -> Level:
        """Change level or custom size; draws nothing and does not reseed."""
        self.level = self.version.level(preset, width, height, mines)
        return self.level

    def next_board(self, preset: str | None = None, **custom) -> Board:
        """The next board of the stream (optionally after a level change)."""
        if preset is not None or custom:
            self.set_level(preset, **custom)
        w, h, m = self.level
        flat, s = lay_winmine(np.uint32(self.state), w, h, m, divisor_magic(w), divisor_magic(h))
        self.state = int(s)
        self.games += 1
        return Board._from_flat(w, h, flat)

    def next_rule(self, preset: str | None = None, **custom) -> Shift:
        """The next board with WinMine's first-click shift, as a first-click rule for a Game:
        `Game(rule=session.next_rule())` (a generator makes boards; the Game plays them)."""
        state = self.state
        board = self.next_board(preset, **custom)
        return Shift(board, origin={"version": self.version.name, "state": state})

    def boards(self, n: int) -> list[Board]:
        return [self.next_board() for _ in range(n)]

    def __repr__(self) -> str:
        return (f"WinMineSession({self.version.name!r}, state={self.state}) # started at {self.start_state}, "
                f"{self.games} games, level {tuple(self.level)}")


# --- registry ------------------------------------------------------------------------------------

def _factory(version_name):
    def make(width, height, mines, seed, *, first_click, topology="bounded", state=None, game=0):
        v = version(version_name)
        if topology != "bounded":
            raise InvalidBoardError(f"{v.name} boards are bounded; allowed topology: bounded")
        level = Level(width, height, mines)
        if level not in v.presets.values():
            v.check_custom(width, height, mines)
        if state is None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < TICK_SEEDS:
                raise InvalidBoardError(f"a {v.name} seed is the 16-bit start-up tick, allowed 0..65535, got "
                                        f"{seed!r}; give state= (--state) for any 32-bit rand() state")
            session = WinMineSession(v.name, tick=int(seed))
        else:
            session = WinMineSession(v.name, state=state)
        session.level = level
        for _ in range(game):  # the game-th board of the session (0: the start-up board)
            session.next_board()
        laid_from = session.state
        board = session.next_board()
        if first_click == "none":
            return Fixed(board)
        return Shift(board, origin={"version": v.name, "state": laid_from})
    return make


for _v in VERSIONS.values():
    _aliases = {"winxp": ("xp",), "win2000": ("2000", "win2k"), "win98": ("98",), "win95": ("95",),
                "winme": ("me",), "winnt": ("nt", "nt4"), "win31": ("win3.1", "31")}[_v.name]
    register(GeneratorInfo(_v.name, f"WinMine as in {_v.title}: one rand() stream per session, "
                                    f"mines laid before the first click, which shifts a mine away",
                           ("shift", "none"), _factory(_v.name), aliases=_aliases,
                           limits=Limits(_v.min_side, _v.max_width, _v.max_height, _v.min_mines, _v.max_mines_cap)))
