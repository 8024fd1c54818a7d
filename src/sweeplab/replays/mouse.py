"""Mouse events of a replay file turned into the game's actions (open, flag, chord), by the community's rules.

Replay files record the mouse, not moves: presses, releases and moves in pixels. Which of them
are left clicks, right clicks and chords is a convention that Minesweeper Arbiter set and that
every ranking site and ms-toollib follow; sweeplab counts clicks the same way so that its left,
right and chord counts equal theirs:

- a left click is a left release (on the board it opens, or does nothing on an open or
  flagged cell; off the board it is still counted);
- a right click is a right press (it flags or unflags a closed cell at once; on an open
  cell or off the board it does nothing, and is not counted if the left button joins it
  into a chord);
- a chord (double click) is the release of either button while both are down, or a
  middle release; the other button's release after it does nothing.

Before the first opening a player may place flags; removing the last of them (or a left
release off the board with no flag placed) resets the counts, as Arbiter does. Events after
the game is won or lost do nothing. Question marks play no part (the formats' programs
count right clicks as flag toggles).

Clicks the engine has no action for (off the board; a chord before the first opening,
which would start the engine's clock) are kept as `extra` counts beside the game's log.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..board import Board
from ..game import Action, Game

# the mouse: which buttons are down (as ms-toollib and Arbiter name the states)
UP_UP, UP_DOWN, UP_DOWN_OPEN, DOWN_UP, CHORDING, CHORDING_OPEN, DOWN_UP_AFTER_CHORD = range(7)
# where the game is: before any click on the board, flags placed before the first opening, playing, over
READY, PREFLAG, PLAYING, OVER = range(4)
KINDS = ("mv", "lc", "lr", "rc", "rr", "mc", "mr", "pf", "cc", "l", "r", "m")


@dataclass(frozen=True)
class MouseEvent:
    """One recorded mouse event: kind (see KINDS), seconds, and pixel position from the board's top left."""

    kind: str
    t: float
    x: int
    y: int


@dataclass
class Played:
    """A replay's play in sweeplab's engine: the game (actions and times) and the clicks it has no action for."""

    game: Game
    extra: dict = field(default_factory=lambda: {"left": 0, "right": 0, "chord": 0})
    zero_chords: list = field(default_factory=list)  # chords on an open 0 beside a closed cell (see _chord)
    lost_chords: list = field(default_factory=list)  # chords that lost beside a wrong flag on a 0 (see _chord)


class _Clock:
    """The replay's time, fed to the Game as its clock."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def play_events(board: Board, events, cell: int) -> Played:
    """Play `events` (MouseEvent, in order) on `board`, whose cells are `cell` pixels wide."""
    return _Translator(board, cell).run(events)


class _Translator:
    def __init__(self, board: Board, cell: int):
        self.board, self.cell = board, cell
        self.clock = _Clock()
        self.mouse = UP_UP
        self.middle = False
        self._reset()

    def _reset(self) -> None:
        saved, self.clock.now = self.clock.now, 0.0  # the game's log times count from 0
        self.played = Played(Game(self.board, marks=False, clock=self.clock))
        self.clock.now = saved
        self.phase = READY
        self.preflags = 0
        # a counted right click on an open cell (or off the board) that a chord may take back
        self.pending_right: str | Action | None = None

    # --- the engine's actions ----------------------------------------------------------------
    @property
    def game(self) -> Game:
        return self.played.game

    def _state(self, cell) -> str:
        return "outside" if cell is None else self.game.cell_state(*cell)

    def _after(self) -> None:
        if self.game.over:
            self.phase = OVER

    def _left(self, cell) -> None:
        if cell is None:
            self.played.extra["left"] += 1
        else:
            self.game.open(*cell)
            self._after()

    def _right(self, cell) -> None:
        """A counted right click: toggles a closed cell's flag; on an open cell or off the board it may
        yet be taken back by a chord."""
        if cell is None:
            self.played.extra["right"] += 1
            self.pending_right = "outside"
            return
        self.game.flag(*cell)
        self.pending_right = self.game.log[-1] if self._state(cell) == "open" else None

    def _take_back_right(self) -> None:
        if self.pending_right == "outside":
            self.played.extra["right"] -= 1
        elif self.pending_right is not None:  # a flag click on an open cell: it changed nothing
            log = self.game.log
            i = next(k for k in range(len(log) - 1, -1, -1) if log[k] is self.pending_right)
            del log[i]
        self.pending_right = None

    def _chord(self, cell) -> None:
        if self.phase != PLAYING:  # nothing is open: counted, and it must not start the engine's clock
            self.played.extra["chord"] += 1
            return
        x, y = cell
        if self._state(cell) == "open" and self.board.number(x, y) == 0 and any(
                self.game.cell_state(x + dx, y + dy) == "hidden" for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                if 0 <= x + dx < self.board.width and 0 <= y + dy < self.board.height):
            # Only after a flag beside a 0 was taken away. WinMine and ms-toollib open the 0's closed
            # neighbours here (0 flags = its number); sweeplab's engine chords on numbers 1-8 only.
            self.played.zero_chords.append((x, y, self.clock.now))
        self.game.chord(*cell)
        if self.game.status == "lost" and any(
                self.game.cell_state(x + dx, y + dy) == "flag" and not self.board.is_mine(x + dx, y + dy)
                and self.board.number(x + dx, y + dy) == 0 for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                if 0 <= x + dx < self.board.width and 0 <= y + dy < self.board.height):
            # ms-toollib then counts such a 0 as open in the 3BV solved; sweeplab leaves it flagged.
            self.played.lost_chords.append((x, y, self.clock.now))
        self._after()

    # --- the events ----------------------------------------------------------------------------
    def run(self, events) -> Played:
        w, h, c = self.board.width, self.board.height, self.cell
        for e in events:
            if self.phase == OVER:
                break
            if e.kind == "mv":
                continue
            self.clock.now = e.t
            cell = (e.x // c, e.y // c) if 0 <= e.x < w * c and 0 <= e.y < h * c else None
            if self.phase == READY:
                if self._ready(e.kind, cell):
                    continue
            elif self.phase == PREFLAG:
                if self._preflag(e.kind, cell):
                    continue
            self._playing(e.kind, cell)
        return self.played

    def _ready(self, kind, cell) -> bool:
        """Before any click on the board. True when the event is fully handled here."""
        m = self.mouse
        if kind in ("mc", "mr"):
            return True
        if kind == "lc":
            if m == UP_UP:
                self.mouse = DOWN_UP
                if cell is not None:
                    self.phase = PREFLAG
            elif m == UP_DOWN:
                self.mouse = CHORDING
            elif m == UP_DOWN_OPEN:
                self.mouse = CHORDING_OPEN
            return True
        if kind == "pf":
            self.preflags += 1
            self.phase = PREFLAG
            self._right(cell)
            return True
        if kind == "rc":
            if m == UP_UP:
                self.mouse = UP_DOWN
                if cell is not None:
                    self.preflags = 1
                    self.phase = PREFLAG
                    self._right(cell)
                return True
            if m == DOWN_UP_AFTER_CHORD:
                self.mouse = CHORDING
                return True
            return False
        if kind == "lr":
            if m in (CHORDING, CHORDING_OPEN):
                self.mouse = UP_DOWN
            elif m in (DOWN_UP_AFTER_CHORD, DOWN_UP, UP_UP):
                self.mouse = UP_UP
            else:
                return False
            return True
        if kind == "rr":
            if m == UP_DOWN:
                self.mouse = UP_UP
            elif m == CHORDING:
                self.mouse = DOWN_UP_AFTER_CHORD
            elif m != UP_UP:
                return False
            return True
        if kind == "cc":
            if m not in (CHORDING, CHORDING_OPEN):
                self.mouse = CHORDING_OPEN if m == UP_DOWN_OPEN else CHORDING
            return True
        return False

    def _preflag(self, kind, cell) -> bool:
        """Flags placed (or a left button down on the board) before the first opening."""
        m = self.mouse
        if kind == "lr":
            if m != DOWN_UP:
                return False
            if cell is None:
                self.mouse = UP_UP
                if self.preflags == 0:
                    self._reset()
                else:
                    self.played.extra["left"] += 1
            elif self._state(cell) == "hidden":
                self.mouse = UP_UP
                self.phase = PLAYING
                self._left(cell)
            else:  # on a flag: counted, changes nothing, and (as in ms-toollib) the left button stays "down"
                self.game.open(*cell)
            return True
        if kind == "pf":
            self.preflags += 1
            self._right(cell)
            return True
        if kind == "rc":
            if m == UP_UP:
                if cell is None:
                    self.mouse = UP_DOWN_OPEN
                    self._right(None)
                    return True
                self.mouse = UP_DOWN
                if self._state(cell) == "hidden":
                    self.preflags += 1
                else:
                    self.preflags -= 1
                    if self.preflags == 0:  # the last flag taken away: as if nothing had happened
                        mouse = self.mouse
                        self._reset()
                        self.mouse = mouse
                        return True
                self._right(cell)
                return True
            if m == DOWN_UP:
                self.mouse = CHORDING
                if cell is not None and self.preflags == 0:
                    self.phase = READY
                return True
            if m == DOWN_UP_AFTER_CHORD:
                self.mouse = CHORDING
            return True
        if kind == "cc":
            if m == DOWN_UP and cell is not None and self.preflags == 0:
                self.phase = READY
            self.mouse = CHORDING_OPEN if m == UP_DOWN_OPEN else CHORDING
            return True
        if kind == "mc":
            self.middle = True
        elif kind == "mr":
            self.middle = False
        return False

    def _playing(self, kind, cell) -> None:
        """The rules once the game is under way (and what the phases before it leave to them)."""
        m = self.mouse
        if kind == "lc":
            if m == UP_UP:
                self.mouse = DOWN_UP
            elif m == UP_DOWN:
                self.mouse = CHORDING
            elif m == UP_DOWN_OPEN:
                self.mouse = CHORDING_OPEN
        elif kind in ("lr", "l"):
            if m == DOWN_UP:
                self.mouse = UP_UP
                self._left(cell)
            elif m in (CHORDING, CHORDING_OPEN):
                self.mouse = UP_DOWN
                self._chord_release(cell, m)
            elif m == DOWN_UP_AFTER_CHORD:
                self.mouse = UP_UP
            elif kind == "l" and m == UP_UP:
                self.mouse = DOWN_UP
            elif kind == "l" and m == UP_DOWN:
                self.mouse = CHORDING
            elif kind == "l" and m == UP_DOWN_OPEN:
                self.mouse = CHORDING_OPEN
        elif kind in ("rc", "r") and m == UP_UP:
            if cell is not None:
                self.mouse = UP_DOWN_OPEN if self._state(cell) == "open" else UP_DOWN
                self._right(cell)
            elif kind == "rc":
                self.mouse = UP_DOWN_OPEN
                self._right(None)
        elif kind in ("rc", "r") and m in (DOWN_UP, DOWN_UP_AFTER_CHORD):
            self.mouse = CHORDING
        elif kind in ("rr", "r"):
            if m in (UP_DOWN, UP_DOWN_OPEN):
                self.mouse = UP_UP
                self.pending_right = None
            elif m in (CHORDING, CHORDING_OPEN):
                self.mouse = DOWN_UP_AFTER_CHORD
                self._chord_release(cell, m)
        elif kind == "mc":
            self.middle = True
        elif kind == "mr":
            self.middle = False
            if cell is not None:
                self._chord(cell)
        elif kind == "m":
            self.middle = not self.middle
            if not self.middle and cell is not None:
                self._chord(cell)
        elif kind == "cc":
            self.mouse = CHORDING_OPEN if m == UP_DOWN_OPEN else CHORDING
        elif kind == "pf" and cell is not None:
            self._right(cell)

    def _chord_release(self, cell, mouse) -> None:
        if mouse == CHORDING_OPEN:
            self._take_back_right()
        if cell is not None:
            self._chord(cell)

