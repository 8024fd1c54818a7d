"""View: what a player sees, and nothing more. Solvers take only this.

A View is built from copies of the visible cells; it holds no reference to a game or a
board, so a solver handed one cannot reach an unrevealed mine.

Cells: 0..8 an open number, HIDDEN (-1, "?" marks included), FLAG (-2).
Text format: optional `key: value` header lines (`mines`, `topology`), then one row a
line: `#` hidden, `F` flag, `0`-`8` open.
"""

from __future__ import annotations

import numpy as np

from . import grid
from .errors import FormatError, InvalidBoardError
from .svg import FLAG_CELL, HIDDEN_CELL, draw_cells

HIDDEN = HIDDEN_CELL  # -1: a View's cells are drawing codes (svg.py)
FLAG = FLAG_CELL  # -2
_CHARS = {"#": HIDDEN, "F": FLAG, **{str(k): k for k in range(9)}}
_OUT = {v: k for k, v in _CHARS.items()}


class View:
    """What a player sees: open numbers, flags, hidden cells, the mine total, size and topology."""

    __slots__ = ("_width", "_height", "_topology", "_mine_count", "_cells")

    def __init__(self, cells: np.ndarray, mine_count: int, topology: str = "bounded"):
        cells = np.array(cells, dtype=np.int8)  # always a private copy
        if cells.ndim != 2:
            raise InvalidBoardError(f"view cells must be 2-D (height, width), got shape {cells.shape}")
        height, width = cells.shape
        grid.check_size(width, height, topology)
        if ((cells < FLAG) | (cells > 8)).any():
            raise InvalidBoardError("view cells must be -2 (flag), -1 (hidden) or 0..8 (open number)")
        if isinstance(mine_count, bool) or not isinstance(mine_count, (int, np.integer)) \
                or not 0 <= mine_count <= width * height:
            raise InvalidBoardError(f"mine total {mine_count!r} must be an integer in 0..{width * height}")
        cells.setflags(write=False)
        self._width, self._height, self._topology = width, height, topology
        self._mine_count, self._cells = int(mine_count), cells

    width = property(lambda self: self._width)
    height = property(lambda self: self._height)
    topology = property(lambda self: self._topology)
    mine_count = property(lambda self: self._mine_count, doc="Mines on the whole board.")
    cells = property(lambda self: self._cells, doc="Read-only int8 (height, width).")

    @property
    def size(self) -> int:
        return self._width * self._height

    @property
    def opened(self) -> np.ndarray:
        return self._cells >= 0

    @property
    def hidden(self) -> np.ndarray:
        return self._cells == HIDDEN

    @property
    def flagged(self) -> np.ndarray:
        return self._cells == FLAG

    @property
    def mines_left(self) -> int:
        """The counter: mines minus flags (may go negative)."""
        return self._mine_count - int(np.count_nonzero(self.flagged))

    @property
    def flat(self) -> np.ndarray:
        """The cells in one row, a copy the engine's kernels take: writable, as the no-guess plays'
        numbers are (they change in place), since a read-only array is another type to numba and
        every kernel it reaches would be compiled once more for it."""
        return self._cells.reshape(-1).copy()

    @property
    def neighbours(self) -> np.ndarray:
        return grid.neighbour_table(self._width, self._height, self._topology)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, View):
            return NotImplemented
        return (self._topology, self._mine_count) == (other._topology, other._mine_count) \
            and np.array_equal(self._cells, other._cells)

    __hash__ = None  # type: ignore[assignment]  # a view changes as play goes on: not hashable

    def __repr__(self) -> str:
        return f"View.from_text({self.to_text()!r})"

    def __str__(self) -> str:
        return self.to_text().rstrip("\n")

    def to_text(self) -> str:
        head = f"mines: {self._mine_count}\n"
        if self._topology != "bounded":
            head += f"topology: {self._topology}\n"
        return head + "".join("".join(_OUT[int(c)] for c in row) + "\n" for row in self._cells)

    @classmethod
    def from_text(cls, text: str) -> View:
        lines = [ln.rstrip("\r") for ln in text.split("\n")]
        meta: dict[str, str] = {}
        rows: list[str] = []
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            if ":" in line and not rows:
                key, _, value = line.partition(":")
                key = key.strip().lower()
                if key not in ("mines", "topology"):
                    raise FormatError(f"view text line {n}: unknown header {key!r}; allowed: mines, topology")
                meta[key] = value.strip()
                continue
            bad = set(line) - set(_CHARS)
            if bad:
                raise FormatError(f"view text line {n} holds {''.join(sorted(bad))!r}; allowed: '#' hidden, "
                                  "'F' flag, '0'-'8' open")
            rows.append(line)
        if not rows:
            raise FormatError("view text has no rows; expected rows of '#', 'F' and '0'-'8'")
        if "mines" not in meta:
            raise FormatError("view text needs a 'mines: N' header line giving the board's mine total")
        if any(len(r) != len(rows[0]) for r in rows):
            raise FormatError("view text rows differ in length; every row must have as many cells as the first")
        try:
            mines = int(meta["mines"])
        except ValueError:
            raise FormatError(f"'mines: {meta['mines']}' is not an integer") from None
        cells = np.array([[_CHARS[c] for c in r] for r in rows], dtype=np.int8)
        try:
            return cls(cells, mines, meta.get("topology", "bounded"))
        except InvalidBoardError as e:
            raise FormatError(str(e)) from None

    def cell_codes(self) -> np.ndarray:
        """Codes for svg.draw_cells: the View's own cells."""
        return self._cells.astype(np.int16)

    def to_svg(self, *, cell: int = 20, probabilities: np.ndarray | None = None,
               highlight: np.ndarray | None = None) -> str:
        return draw_cells(self.cell_codes(), cell=cell, probabilities=probabilities, highlight=highlight)

    def _repr_svg_(self) -> str:
        return self.to_svg()
