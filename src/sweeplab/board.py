"""Board: an immutable mine layout on a bounded or torus grid, its numbers, and its formats.

Formats come in pairs that round-trip: text (`*` mine, `.` safe, one row a line),
MBF (byte width, byte height, 2-byte big-endian count, one (x, y) byte pair per mine)
and JSON. `repr` is a call that rebuilds the board; `str` is the text grid. Files hold one
board or several (`dump_boards` / `parse_boards`), their format told from the content.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from . import grid
from .errors import FormatError, InvalidBoardError
from .kernels import count_numbers
from .svg import EXPLODED_CELL, MINE_CELL, draw_cells

MINE_CHAR, SAFE_CHAR = "*", "."


class Board:
    """An immutable mine layout. Build one from text, a (height, width) bool array, or indices.

    >>> b = Board("*..\\n...\\n..*")
    >>> b.width, b.height, b.mine_count
    (3, 3, 2)
    >>> b.number(1, 1)
    2
    """

    __slots__ = ("_width", "_height", "_topology", "_mines", "_numbers", "_hash")

    def __init__(self, layout: str | np.ndarray, topology: str = "bounded"):
        if isinstance(layout, str):
            mines = _parse_text(layout)
        else:
            mines = np.asarray(layout)
            if mines.ndim != 2:
                raise InvalidBoardError(f"a board layout must be 2-D (height, width), got shape {mines.shape}")
            if mines.dtype != np.bool_:
                if not np.isin(mines, (0, 1)).all():
                    raise InvalidBoardError("a board layout array must hold only booleans or 0/1")
                mines = mines.astype(np.bool_)
        height, width = mines.shape
        grid.check_size(width, height, topology)
        self._init(width, height, topology, np.ascontiguousarray(mines).reshape(-1).copy())

    def _init(self, width: int, height: int, topology: str, flat: np.ndarray) -> None:
        self._width, self._height, self._topology = int(width), int(height), topology
        # counted while still writable: the certifier counts writable mines, so the kernel compiles once
        numbers = count_numbers(flat, grid.neighbour_table(self._width, self._height, topology))
        flat.setflags(write=False)
        self._mines = flat
        numbers.setflags(write=False)
        self._numbers = numbers
        self._hash: int | None = None

    @classmethod
    def _from_flat(cls, width: int, height: int, flat: np.ndarray, topology: str = "bounded") -> Board:
        """Trusted fast path for generators: `flat` is a fresh bool array of width*height."""
        board = object.__new__(cls)
        board._init(width, height, topology, flat)
        return board

    @classmethod
    def from_indices(cls, width: int, height: int, indices: Iterable[int], topology: str = "bounded") -> Board:
        """A board with mines at the given flat indices (y * width + x); duplicates are an error."""
        grid.check_size(width, height, topology)
        idx = np.asarray(list(indices) if not isinstance(indices, np.ndarray) else indices, dtype=np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= width * height):
            raise InvalidBoardError(f"mine index out of range; allowed 0..{width * height - 1}")
        flat = np.zeros(width * height, dtype=np.bool_)
        flat[idx] = True
        if flat.sum() != idx.size:
            raise InvalidBoardError("the same cell is given as a mine twice")
        return cls._from_flat(width, height, flat, topology)

    # --- what a board is -------------------------------------------------------------
    @property
    def width(self) -> int:
        return self._width

    @property
    def height(self) -> int:
        return self._height

    @property
    def topology(self) -> str:
        return self._topology

    @property
    def size(self) -> int:
        return self._width * self._height

    @property
    def mine_count(self) -> int:
        return int(np.count_nonzero(self._mines))

    @property
    def mines(self) -> np.ndarray:
        """Read-only bool array of shape (height, width)."""
        return self._mines.reshape(self._height, self._width)

    @property
    def numbers(self) -> np.ndarray:
        """Read-only int8 array (height, width): mines among the 8 neighbours (mine cells included)."""
        return self._numbers.reshape(self._height, self._width)

    @property
    def flat_mines(self) -> np.ndarray:
        return self._mines

    @property
    def flat_numbers(self) -> np.ndarray:
        return self._numbers

    @property
    def neighbours(self) -> np.ndarray:
        """The flat neighbour table, shape (size, 8), -1 where a bounded grid ends."""
        return grid.neighbour_table(self._width, self._height, self._topology)

    def mine_positions(self) -> list[tuple[int, int]]:
        """Mines as (x, y), in row-major order."""
        ys, xs = np.nonzero(self.mines)
        return [(int(x), int(y)) for y, x in zip(ys, xs)]

    def is_mine(self, x: int, y: int) -> bool:
        return bool(self._mines[self._index(x, y)])

    def number(self, x: int, y: int) -> int:
        return int(self._numbers[self._index(x, y)])

    def _index(self, x: int, y: int) -> int:
        if not (0 <= x < self._width and 0 <= y < self._height):
            raise InvalidBoardError(f"cell ({x}, {y}) is off the board; x in 0..{self._width - 1}, y in 0..{self._height - 1}")
        return y * self._width + x

    def with_mine_moved(self, source: tuple[int, int], target: tuple[int, int]) -> Board:
        """A new board with the mine at `source` moved to the free cell `target`."""
        s, t = self._index(*source), self._index(*target)
        if not self._mines[s] or self._mines[t]:
            raise InvalidBoardError(f"cannot move a mine from {source} to {target}: "
                                    "need a mine at the first and none at the second")
        flat = self._mines.copy()
        flat[s], flat[t] = False, True
        return Board._from_flat(self._width, self._height, flat, self._topology)

    # --- identity ----------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (self._width, self._height, self._topology) == (other._width, other._height, other._topology) \
            and np.array_equal(self._mines, other._mines)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self._width, self._height, self._topology, np.packbits(self._mines).tobytes()))
        return self._hash

    def __repr__(self) -> str:
        topo = "" if self._topology == "bounded" else f", topology={self._topology!r}"
        return f"Board({self.to_text()!r}{topo})"

    def __str__(self) -> str:
        return self.to_text().rstrip("\n")

    # --- formats -------------------------------------------------------------------------
    def to_text(self) -> str:
        rows = np.where(self.mines, MINE_CHAR, SAFE_CHAR)
        return "".join("".join(r) + "\n" for r in rows)

    @classmethod
    def from_text(cls, text: str, topology: str = "bounded") -> Board:
        return cls(text, topology)

    def to_mbf(self) -> bytes:
        if self._width > 255 or self._height > 255 or self.mine_count > 65535:
            raise FormatError(f"MBF holds at most 255x255 and 65535 mines; this board is {self._width}x{self._height} "
                              f"with {self.mine_count}")
        if self._topology != "bounded":
            raise FormatError("MBF has no topology field; only bounded boards can be written as MBF")
        out = bytearray([self._width, self._height])
        out += self.mine_count.to_bytes(2, "big")
        for x, y in self.mine_positions():
            out += bytes((x, y))
        return bytes(out)

    @classmethod
    def from_mbf(cls, data: bytes) -> Board:
        if len(data) < 4:
            raise FormatError(f"MBF too short: {len(data)} bytes; it needs 4 header bytes (width, height, 2-byte count)")
        width, height, count = data[0], data[1], int.from_bytes(data[2:4], "big")
        if width == 0 or height == 0:
            raise FormatError(f"MBF size {width}x{height}: width and height must be 1..255")
        if len(data) != 4 + 2 * count:
            raise FormatError(f"MBF says {count} mines, so it needs {4 + 2 * count} bytes; it has {len(data)}")
        pairs = np.frombuffer(data[4:], dtype=np.uint8).reshape(-1, 2).astype(np.int64)
        if count and (pairs[:, 0].max() >= width or pairs[:, 1].max() >= height):
            raise FormatError(f"MBF mine off the {width}x{height} board")
        try:
            return cls.from_indices(width, height, pairs[:, 1] * width + pairs[:, 0])
        except InvalidBoardError as e:
            raise FormatError(f"MBF: {e}") from None

    def to_dict(self) -> dict:
        return {"width": self._width, "height": self._height, "topology": self._topology,
                "mines": [[x, y] for x, y in self.mine_positions()]}

    @classmethod
    def from_dict(cls, data: dict) -> Board:
        if not isinstance(data, dict):
            raise FormatError("a JSON board must be an object with width, height, mines and optional topology")
        missing = {"width", "height", "mines"} - data.keys()
        if missing:
            raise FormatError(f"JSON board lacks {', '.join(sorted(missing))}; it needs width, height, mines ([[x, y], ...])")
        width, height, mines = data["width"], data["height"], data["mines"]
        topology = data.get("topology", "bounded")
        try:
            grid.check_size(width, height, topology)
        except InvalidBoardError as e:
            raise FormatError(f"JSON board: {e}") from None
        if not isinstance(mines, list) or not all(
                isinstance(p, list) and len(p) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in p)
                for p in mines):
            raise FormatError("JSON board 'mines' must be a list of [x, y] integer pairs")
        for x, y in mines:
            if not (0 <= x < width and 0 <= y < height):
                raise FormatError(f"JSON board mine ({x}, {y}) is off the {width}x{height} board")
        try:
            return cls.from_indices(width, height, [y * width + x for x, y in mines], topology)
        except InvalidBoardError as e:
            raise FormatError(f"JSON board: {e}") from None

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> Board:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise FormatError(f"not valid JSON: {e}") from None
        except (ValueError, RecursionError) as e:
            raise _json_error(e) from None
        return cls.from_dict(data)

    # --- drawing ---------------------------------------------------------------------------
    def cell_codes(self) -> np.ndarray:
        """Codes for svg.draw_cells: every cell shown, mines as mines."""
        codes = self.numbers.astype(np.int16)
        codes[self.mines] = MINE_CELL
        return codes

    def to_svg(self, *, cell: int = 20, highlight: np.ndarray | None = None,
               exploded: tuple[int, int] | None = None) -> str:
        codes = self.cell_codes()
        if exploded is not None:
            codes[exploded[1], exploded[0]] = EXPLODED_CELL
        return draw_cells(codes, cell=cell, highlight=highlight)

    def _repr_svg_(self) -> str:
        return self.to_svg()


def _parse_text(text: str) -> np.ndarray:
    rows = [r.rstrip("\r") for r in text.split("\n")]
    while rows and rows[-1] == "":
        rows.pop()
    if not rows:
        raise FormatError("empty board text; expected rows of '*' (mine) and '.' (safe)")
    width = len(rows[0])
    for n, r in enumerate(rows, 1):
        if len(r) != width:
            raise FormatError(f"board text row {n} has {len(r)} cells, row 1 has {width}; all rows must be equally long")
        bad = set(r) - {MINE_CHAR, SAFE_CHAR}
        if bad:
            raise FormatError(f"board text row {n} holds {''.join(sorted(bad))!r}; allowed: '*' (mine) and '.' (safe)")
    return np.array([[c == MINE_CHAR for c in r] for r in rows], dtype=np.bool_)


# --- files of one or several boards --------------------------------------------------------
# A multi-board file is a sequence of records in one format: text boards separated by a blank
# line, JSON as one object per line (JSON lines) or one array, MBF records one after another
# (each header says how long its record is). A text record may start with a `topology: NAME`
# line, which is how text carries a torus; MBF has no room for it (bounded boards only).
FORMATS = ("text", "mbf", "json")
TOPOLOGY_LINE = "topology:"
CLICK_LINE = "click:"  # the first click a board was laid for (informative: the board is the same without it)


def detect_format(data: bytes) -> str:
    """'json', 'text' or 'mbf', from the content (never the file name): printable text is JSON when it
    starts with '{' or '[', else a text board; anything else is MBF, whose header bytes are not text."""
    if not data.strip():
        raise FormatError("empty input; expected a board as text ('*' mine, '.' safe), MBF or JSON")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "mbf"
    if any((ord(c) < 0x20 and c not in "\t\n\r") or c == "\x7f" for c in text):
        return "mbf"  # an MBF header holds control bytes (sizes below 32, the count's high byte)
    return "json" if text.lstrip()[:1] in ("{", "[") else "text"


def dump_board(board: Board, fmt: str, *, click: tuple[int, int] | None = None) -> bytes:
    """One board as a record of a multi-board file (a whole file when it is alone). `click`: the first
    click the board was laid for (a no-guess board is solvable from there only), kept in text (a
    `click: X,Y` line, 0-based) and JSON (`"click": [x, y]`); MBF has no room for it."""
    if fmt == "text":
        head = "" if board.topology == "bounded" else f"{TOPOLOGY_LINE} {board.topology}\n"
        if click is not None:
            head += f"{CLICK_LINE} {click[0]},{click[1]}\n"
        return (head + board.to_text()).encode()
    if fmt == "json":
        data = board.to_dict() if click is None else {**board.to_dict(), "click": list(click)}
        return (json.dumps(data) + "\n").encode()
    if fmt == "mbf":
        return board.to_mbf()
    raise FormatError(f"unknown board format {fmt!r}; allowed: {', '.join(FORMATS)}")


def dump_boards(boards: Iterable[Board], fmt: str) -> bytes:
    """Several boards as one file that `parse_boards` reads back (text boards split by a blank line)."""
    sep = b"\n" if fmt == "text" else b""
    return sep.join(dump_board(b, fmt) for b in boards)


def parse_boards(data: bytes, topology: str | None = None) -> list[Board]:
    """Every board in a file of one or several boards, in any format (detected from the content).
    `topology` applies to text and MBF records that do not name theirs (default bounded); a record
    that names another is an error."""
    return [Board._from_flat(*layout) for layout in iter_layouts(data, topology)]


# (width, height, flat mines, topology): a board's layout without a Board made of it
Layout = tuple[int, int, np.ndarray, str]


def iter_layouts(data: bytes, topology: str | None = None) -> Iterator[Layout]:
    """(width, height, flat mines, topology) of every board in a file, in order, one at a time: what
    `parse_boards` makes its Boards of, for a reader of thousands of boards that needs none (stats).
    The same checks and errors as `parse_boards`."""
    fmt = detect_format(data)
    if fmt == "json":
        items = _json_items(data.decode("utf-8"))
        for i, d in enumerate(items):
            yield _layout(_numbered(_json_record, i, len(items), d, topology))
    elif fmt == "text":
        chunks = [c for c in data.decode("utf-8").replace("\r\n", "\n").split("\n\n") if c.strip("\n")]
        for i, c in enumerate(chunks):
            quick = _plain_text_layout(c, topology)
            yield quick if quick is not None else _layout(_numbered(_text_record, i, len(chunks), c, topology))
    else:
        records, at = [], 0
        while at < len(data):  # each header says how long its record is; a short one is explained by from_mbf
            end = at + 4 + 2 * int.from_bytes(data[at + 2:at + 4], "big") if len(data) - at >= 4 else len(data)
            records.append((at, end))
            at = end
        for i, (a, b) in enumerate(records):
            yield _layout(_numbered(_mbf_record, i, len(records), data[a:b], topology))


def _layout(board: Board) -> Layout:
    return board.width, board.height, board.flat_mines, board.topology


def _plain_text_layout(chunk: str, topology: str | None) -> Layout | None:
    """The layout of a text record without a topology line whose rows are all well formed, taken in a
    few string operations (thousands of tiny boards a second); None for anything else, which the
    full reader then reads or explains."""
    lines = chunk.strip("\n").split("\n")
    width, height = len(lines[0]), len(lines)
    body = "".join(lines)
    topo = topology or "bounded"
    low = 3 if topo == "torus" else 1
    if (body.count(MINE_CHAR) + body.count(SAFE_CHAR) != len(body) or len(set(map(len, lines))) != 1
            or not (low <= width <= grid.MAX_SIDE and low <= height <= grid.MAX_SIDE)
            or topo not in grid.TOPOLOGIES):
        return None
    return width, height, np.frombuffer(body.encode("ascii"), dtype=np.uint8) == ord(MINE_CHAR), topo


def _json_items(text: str) -> list:
    """The board objects of a JSON file: one object, one array of them, or JSON lines. A number too
    long or nesting too deep for any board is a format error, not a crash."""
    try:
        try:
            value = json.loads(text)
            return value if isinstance(value, list) else [value]
        except json.JSONDecodeError:  # JSON lines: one board object per line
            items = []
            for n, line in enumerate(text.splitlines(), 1):
                if line.strip():
                    try:
                        items.append(json.loads(line))
                    except json.JSONDecodeError as e:
                        raise FormatError(f"JSON line {n}: not valid JSON ({e}); expected one board object "
                                          "per line, or one array of them") from None
            return items
    except FormatError:
        raise
    except (RecursionError, ValueError) as e:
        raise _json_error(e) from None


def _json_error(e: Exception) -> FormatError:
    """What JSON that parses as no board says: nesting too deep, or a number too long (Python's limit
    on the digits of an integer), both far past any board."""
    what = "is nested too deeply" if isinstance(e, RecursionError) else f"holds a number too long ({e})"
    return FormatError(f"the JSON {what} to be a board; a board is an object with width, height and mines "
                       "([[x, y], ...])")


def _json_record(data: dict, topology: str | None) -> Board:
    board = Board.from_dict(data)
    if topology is not None and board.topology != topology:
        raise FormatError(f"the JSON board is {board.topology} but topology {topology} was asked for")
    return board


def _mbf_record(data: bytes, topology: str | None) -> Board:
    board = Board.from_mbf(data)
    if topology in (None, "bounded"):
        return board
    try:
        return Board(board.mines, topology)
    except InvalidBoardError as e:
        raise FormatError(str(e)) from None


def _numbered(read: Callable[..., Board], i: int, n: int, *args: Any) -> Board:
    """Run one record's reader; in a file of several, say which record failed."""
    try:
        return read(*args)
    except FormatError as e:
        raise FormatError(f"board {i + 1}: {e}" if n > 1 else str(e)) from None


def _text_record(chunk: str, topology: str | None) -> Board:
    lines = chunk.strip("\n").split("\n")
    named = None
    try:
        if lines[0].startswith(TOPOLOGY_LINE):
            named = grid.check_topology(lines.pop(0)[len(TOPOLOGY_LINE):].strip())
            if topology is not None and named != topology:
                raise FormatError(f"the text board says '{TOPOLOGY_LINE} {named}' but topology {topology} "
                                  "was asked for")
        click = lines.pop(0)[len(CLICK_LINE):].strip() if lines and lines[0].startswith(CLICK_LINE) else None
        board = Board("\n".join(lines), named or topology or "bounded")
        if click is not None:
            _check_click(click, board)
        return board
    except InvalidBoardError as e:
        raise FormatError(str(e)) from None


def _check_click(text: str, board: Board) -> None:
    try:
        x, y = (int(v) for v in text.split(","))
    except ValueError:
        raise FormatError(f"'{CLICK_LINE} {text}' is not a cell; write X,Y, 0-based") from None
    if not (0 <= x < board.width and 0 <= y < board.height):
        raise FormatError(f"'{CLICK_LINE} {text}' is off the {board.width}x{board.height} board")


def load_boards(path: str | Path, topology: str | None = None) -> list[Board]:
    """Every board in a file ('-' reads stdin) of one or several boards, in any format."""
    import sys
    data = sys.stdin.buffer.read() if str(path) == "-" else Path(path).read_bytes()
    return parse_boards(data, topology)


def load_board(path: str | Path, topology: str | None = None) -> Board:
    """Read a file of one board in any format: JSON, text or MBF (by content, whatever the name)."""
    return parse_board(Path(path).read_bytes(), topology)


def parse_board(data: bytes, topology: str | None = None) -> Board:
    """The one board in `data` (text, MBF or JSON, detected from the content); FormatError for none or several."""
    boards = parse_boards(data, topology)
    if len(boards) != 1:
        raise FormatError(f"expected one board, found {len(boards)}; read a file of several with load_boards")
    return boards[0]
