"""Game: one play of a board, with the rules of WinMine, a clock, and an action log that replays.

Actions: `open` (left release), `flag` (right click: hidden -> flag -> "?" -> hidden, the
"?" only when marks are on), `chord` (an open number whose adjacent flags equal it opens
every other neighbour, "?" included). Clicks that change nothing are legal and logged (they
count for IOE); clicks off the board or on a finished game raise.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import kernels as K
from .board import Board
from .errors import GameOverError, IllegalMoveError
from .firstclick import FirstClick, Fixed
from .grid import neighbour_table
from .svg import EXPLODED_CELL, FLAG_CELL, HIDDEN_CELL, MINE_CELL, QUESTION_CELL, WRONG_FLAG_CELL, draw_cells
from .view import FLAG, HIDDEN, View

ACTIONS = ("open", "flag", "chord")
READY, PLAYING, WON, LOST = "ready", "playing", "won", "lost"


@dataclass(frozen=True)
class Action:
    """One logged action: kind, cell, seconds since the game was created, cells it opened."""

    kind: str
    x: int
    y: int
    t: float
    opened: int = 0
    flagged: bool = False  # a flag action that placed a flag

    def to_list(self) -> list:
        return [self.kind, self.x, self.y, round(self.t, 6)]


class Game:
    """One play of a board. `Game(board)` plays a fixed board; `Game(rule=...)` lays it at the first click.

    >>> g = Game(Board("*..\\n...\\n..."))
    >>> g.open(2, 2)
    8
    >>> g.status
    'won'
    """

    def __init__(self, board: Board | None = None, *, rule: FirstClick | None = None, marks: bool = True,
                 clock: Callable[[], float] = time.monotonic):
        if (board is None) == (rule is None):
            raise IllegalMoveError("give either a board (first-click rule 'none') or a first-click rule, not both")
        if rule is None:
            assert board is not None  # checked just above: exactly one is given
            rule = Fixed(board)
        self.rule: FirstClick = rule
        self.width, self.height = self.rule.width, self.rule.height
        self.topology, self.mine_count = self.rule.topology, self.rule.mines
        self.marks = marks
        self._clock = clock
        self._created = clock()
        self._started: float | None = None
        self._ended: float | None = None
        self.laid: Board | None = self.rule.board_before()  # before any first-click change
        self.board: Board | None = self.laid
        n = self.width * self.height
        self._state = np.zeros(n, dtype=np.int8)
        self._queue = np.empty(n, dtype=np.int32)
        self._hits = np.empty(8, dtype=np.int64)
        self._nbr = neighbour_table(self.width, self.height, self.topology)
        self._opened = 0
        self._flags = 0
        self.status = READY
        self.exploded: list[tuple[int, int]] = []
        self.log: list[Action] = []

    # --- what a player sees -----------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.status in (WON, LOST)

    @property
    def mines_left(self) -> int:
        """The mine counter: mines minus flags; it may go negative."""
        return self.mine_count - self._flags

    @property
    def elapsed(self) -> float:
        """Seconds since the first opening action (0 before it); frozen when the game ends."""
        if self._started is None:
            return 0.0
        end = self._ended if self._ended is not None else self._clock()
        return end - self._started

    @property
    def timer(self) -> int:
        """What the classic counter shows: 1 at once after the first click, stopping at 999."""
        return 0 if self._started is None else min(999, int(self.elapsed) + 1)

    @property
    def now(self) -> float:
        """Seconds since the game was created, on its clock (the time the next action would log)."""
        return self._clock() - self._created

    def run_clock_from(self, now: float) -> None:
        """From here on the clock runs in real time from `now` seconds after the game's creation: a game
        made again goes on from where its clock stood (or, for a game kept while its program was
        closed, from where it was left, so the time away does not count)."""
        offset = time.monotonic() - (self._created + now)  # (the clock keeps its base: _started stays right)
        self._clock = lambda: time.monotonic() - offset

    def view(self) -> View:
        cells = np.full(self.width * self.height, HIDDEN, dtype=np.int8)
        if self.board is not None:
            open_ = self._state == K.OPEN_STATE
            cells[open_] = self.board.flat_numbers[open_]
        cells[self._state == K.FLAG_STATE] = FLAG
        if self.status == LOST:  # exploded mines are not numbers; they stay hidden in the view
            for x, y in self.exploded:
                cells[y * self.width + x] = HIDDEN
        return View(cells.reshape(self.height, self.width), self.mine_count, self.topology)

    def cell_state(self, x: int, y: int) -> str:
        self._index(x, y)
        return ("hidden", "open", "flag", "question")[self._state[y * self.width + x]]

    def cell_codes(self) -> np.ndarray:
        """Codes for drawing: as the player sees it while playing; with mines shown once it is over."""
        st = self._state
        codes = np.full(st.shape, HIDDEN_CELL, dtype=np.int16)
        codes[st == K.FLAG_STATE] = FLAG_CELL
        codes[st == K.QUESTION_STATE] = QUESTION_CELL
        if self.board is not None:
            open_ = st == K.OPEN_STATE
            codes[open_] = self.board.flat_numbers[open_]
            if self.status == LOST:
                mines = self.board.flat_mines
                codes[mines & (st != K.FLAG_STATE)] = MINE_CELL
                codes[(st == K.FLAG_STATE) & ~mines] = WRONG_FLAG_CELL
                for x, y in self.exploded:
                    codes[y * self.width + x] = EXPLODED_CELL
        return codes.reshape(self.height, self.width)

    def to_svg(self, *, cell: int = 20) -> str:
        return draw_cells(self.cell_codes(), cell=cell)

    def _repr_svg_(self) -> str:
        return self.to_svg()

    # --- actions -----------------------------------------------------------------------
    def act(self, kind: str, x: int, y: int) -> int:
        """Do one action by name; returns the number of cells it opened."""
        if kind == "open":
            return self.open(x, y)
        if kind == "flag":
            self.flag(x, y)
            return 0
        if kind == "chord":
            return self.chord(x, y)
        raise IllegalMoveError(f"unknown action {kind!r}; allowed: {', '.join(ACTIONS)}")

    def open(self, x: int, y: int) -> int:
        """Left release on (x, y). Returns cells opened (0 if it was open, flagged, or a mine)."""
        i = self._check(x, y)
        t = self._clock()
        check_win = True
        if self.board is None or self.status == READY:
            if self._state[i] == K.FLAG_STATE:  # a flagged cell cannot be opened; not the first click yet
                self._log("open", x, y, t)
                return 0
            placed = self.rule.board_for(x, y)
            if placed is None:  # WinMine with no free cell to shift to: the click does nothing
                self._log("open", x, y, t)
                return 0
            self.board, check_win = placed
            if self.laid is None:  # laid just now: the clock starts once the board exists, not
                t = self._clock()  # while a generator (or its compiler) was still working on it
                self.laid = self.board
            self.status = PLAYING
        self._start(t)
        opened, hit = K.open_cell(self._state, self.board.flat_numbers, self.board.flat_mines, self._nbr, i,
                                  self._queue)
        self._opened += opened
        self._end_if_over([hit] if hit >= 0 else [], t, check_win)
        self._log("open", x, y, t, opened)
        return opened

    def open_cells(self, cells: Sequence[tuple[int, int]]) -> list[int]:
        """Left release on each of `cells` ((x, y) pairs) in turn, as `open`, in one pass of the reveal
        kernel, until the game ends. Per click made: the cells it opened, or -1 where its cell was
        already open when its turn came (then it is no action and is not logged). A click after the
        game ended is not made, so the list may be shorter than `cells`."""
        if not cells:
            return []
        flat = np.array([self._index(x, y) for x, y in cells], dtype=np.int64)
        if self.over:
            raise GameOverError(f"the game is over ({self.status}); start a new game")
        if self.board is None or self.status == READY:  # the first click lays the board
            return [self.open(*cells[0]), *(self.open_cells(cells[1:]) if not self.over else [])]
        t = self._clock()
        self._start(t)
        opened = np.empty(len(flat), dtype=np.int64)
        safe_left = self.width * self.height - self.board.mine_count - self._opened
        made, hit = K.open_cells(self._state, self.board.flat_numbers, self.board.flat_mines, self._nbr, flat,
                                 self._queue, opened, safe_left)
        got = opened[:made].tolist()
        for (x, y), n in zip(cells, got):
            if n >= 0:
                self._opened += n
                self._log("open", x, y, t, n)
        self._end_if_over([hit] if hit >= 0 else [], t)
        return got

    def flag(self, x: int, y: int) -> str:
        """Right click: cycle hidden -> flag -> "?" (marks on) -> hidden. Returns the new state."""
        i = self._check(x, y)
        t = self._clock()
        s = self._state[i]
        placed = False
        if s == K.HIDDEN_STATE:
            self._state[i] = K.FLAG_STATE
            self._flags += 1
            placed = True
        elif s == K.FLAG_STATE:
            self._state[i] = K.QUESTION_STATE if self.marks else K.HIDDEN_STATE
            self._flags -= 1
        elif s == K.QUESTION_STATE:
            self._state[i] = K.HIDDEN_STATE
        self.log.append(Action("flag", x, y, t - self._created, 0, placed))
        return self.cell_state(x, y)

    def chord(self, x: int, y: int) -> int:
        """Chord on (x, y): if it is an open number with as many adjacent flags, open the rest."""
        i = self._check(x, y)
        t = self._clock()
        self._start(t)  # WinMine: a chord starts the clock even when it opens nothing
        opened = 0
        if self.board is not None and self.status == PLAYING:
            opened, hits = K.chord(self._state, self.board.flat_numbers, self.board.flat_mines, self._nbr, i,
                                   self._hits, self._queue)
            self._opened += opened
            self._end_if_over(list(self._hits[:hits]), t)
        self._log("chord", x, y, t, opened)
        return opened

    # --- internals ------------------------------------------------------------------------
    def _check(self, x: int, y: int) -> int:
        if self.over:
            raise GameOverError(f"the game is over ({self.status}); start a new game")
        return self._index(x, y)

    def _index(self, x: int, y: int) -> int:
        if isinstance(x, bool) or isinstance(y, bool) or not isinstance(x, (int, np.integer)) \
                or not isinstance(y, (int, np.integer)):
            raise IllegalMoveError(f"cell coordinates must be integers, got ({x!r}, {y!r})")
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise IllegalMoveError(f"cell ({x}, {y}) is off the board; x in 0..{self.width - 1}, "
                                   f"y in 0..{self.height - 1}")
        return int(y) * self.width + int(x)

    def _start(self, t: float) -> None:
        if self._started is None:
            self._started = t

    def _log(self, kind: str, x: int, y: int, t: float, opened: int = 0) -> None:
        self.log.append(Action(kind, int(x), int(y), t - self._created, opened))

    def _end_if_over(self, hits: list[int], t: float, check_win: bool = True) -> None:
        """After cells were opened: lost where `hits` (mines opened) are, else won if every safe cell is
        open (unless the first click's rule says its click is not to be tested for a win)."""
        if hits:
            self._lose(hits, t)
        elif check_win:
            self._check_win(t)

    def _check_win(self, t: float) -> None:
        assert self.board is not None  # laid at the first opening click, before any win
        if K.settle_win(self._state, self.board.flat_mines, self._opened,
                        self.width * self.height - self.board.mine_count):
            self.status = WON
            self._ended = t
            self._flags = self.board.mine_count

    def _lose(self, hits: Iterable[int], t: float) -> None:
        self.status = LOST
        self._ended = t
        self.exploded = [(int(i) % self.width, int(i) // self.width) for i in hits]

    # --- records and replay --------------------------------------------------------------
    def record(self) -> dict:
        """Everything needed to replay this game exactly: the board as laid, the rule, the actions."""
        return {
            "width": self.width, "height": self.height, "mines": self.mine_count, "topology": self.topology,
            "rule": self.rule.spec(), "marks": self.marks,
            "board": None if self.laid is None else self.laid.to_dict(),
            "status": self.status, "elapsed": self.elapsed,
            "actions": [a.to_list() for a in self.log],
        }


def replay_steps(board: Board | None, actions: Iterable[Action | Sequence[Any]], *, rule: FirstClick | None = None,
                 marks: bool = True) -> Iterator[Game]:
    """Play `actions` ([kind, x, y, t] or Action) again on `board` (the board as laid) or from `rule`,
    yielding the game (one object, advanced in place) after each action with its clock held at that
    action's time, so its `timer`, `elapsed` and cells read as they did right after it. The first
    yield is the game before any action."""
    at = [0.0]
    game = Game(board if rule is None else None, rule=rule, marks=marks, clock=lambda: at[0])
    yield game
    for a in actions:
        kind, x, y, t = (a.kind, a.x, a.y, a.t) if isinstance(a, Action) else (a[0], a[1], a[2], a[3])
        at[0] = float(t)
        game.act(kind, x, y)
        yield game


def replay(board: Board | None, actions: Iterable[Action | Sequence[Any]], *, rule: FirstClick | None = None,
           marks: bool = True,
           now: float | None = None) -> Game:
    """Play `actions` ([kind, x, y, t] or Action) again on `board` (the board as laid) or from `rule`
    (deterministic: the same rule and clicks lay the same board), with the action times, so the result
    (state, status, clock) is the same as the original game's. From then on the clock runs in real
    time, continuing from `now` seconds after the game's creation (default: the last action's time);
    a game kept across a restart of its program passes the wall-clock seconds since it was created,
    so the time it was away still counts."""
    actions = list(actions)
    for game in replay_steps(board, actions, rule=rule, marks=marks):  # noqa: B007 (the last step is the game)
        pass
    if now is None:
        now = float(actions[-1].t if isinstance(actions[-1], Action) else actions[-1][3]) if actions else 0.0
    game.run_clock_from(now)
    return game
