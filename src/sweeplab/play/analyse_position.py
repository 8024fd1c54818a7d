"""Positions for the analysis board: what a player sees (a View's cells), with a mine total or none,
read from every form a person brings one in, and written as the short code a link carries.

Forms read (`read_position`, detected from the content):

- the View's text format: a `mines: N` header line, then rows of `#` hidden, `F` flag, `0`-`8` open;
- JSMinesweeper's position file: a `WxHxM` header line, then rows of `H` hidden, `F` or `M` flag,
  `0`-`8` open;
- a board file (sweeplab's text board of `*` and `.`, JSON, or MBF bytes): the board before its
  first click, every cell hidden, its mine count the total;
- a text grid as forums write it: rows of cells, with or without spaces or `|` between them;
  `#` `?` `H` `h` `-` hidden, `F` `f` `*` `!` `P` `M` flag, `0`-`8` open and `.` `_` an open 0;
  lines of only `-`, `+`, `|` or `=` (table borders) are skipped. No mine total.

The link code (`AnalysisPosition.code`): `WxHxM` (`M` is `-` without a total), `.torus` on a torus, then
`.` and the cells row by row, run-length coded: `H` hidden, `F` flag, `a`-`i` the numbers 0-8, each
followed by its run length when that is more than 1 (`H45a3b` is 45 hidden cells, three 0s, a 1).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

import numpy as np

from .. import grid
from ..board import Board, parse_board
from ..errors import InvalidBoardError, PositionError, SweeplabError
from ..view import FLAG, HIDDEN, View

MAX_CELLS = 10_000  # what the analysis board takes: 100x100, far past any level
VIEW_CHARS = {"#": HIDDEN, "F": FLAG, **{str(k): k for k in range(9)}}
VIEW_OUT = {v: k for k, v in VIEW_CHARS.items()}
# A game's cells as the play API writes them (games.CODE_CHARS) read as what the player saw before the
# game ended: a "?" mark is a hidden cell, a mine shown at the end was hidden, a wrong flag a flag.
GAME_CHARS = {**VIEW_CHARS, "?": HIDDEN, "*": HIDDEN, "X": HIDDEN, "W": FLAG}
JSM_CHARS = {"H": HIDDEN, "F": FLAG, "M": FLAG, **{str(k): k for k in range(9)}}
FORUM_CHARS = {**{c: HIDDEN for c in "#?Hh-"}, **{c: FLAG for c in "FfP*!M"}, ".": 0, "_": 0,
               **{str(k): k for k in range(9)}}
CODE_CHARS = {"H": HIDDEN, "F": FLAG, **{chr(ord("a") + k): k for k in range(9)}}
CODE_OUT = {v: k for k, v in CODE_CHARS.items()}
JSM_HEADER = re.compile(r"\s*(\d+)\s*x\s*(\d+)\s*x\s*(\d+)\s*")
CODE = re.compile(r"(\d{1,4})x(\d{1,4})x(\d{1,5}|-)(?:\.([a-z]+))?\.([A-Za-z0-9]*)")
RUN = re.compile(r"([HFa-i])(\d*)")
BORDER = re.compile(r"[-+|=\s]+")


@dataclass(frozen=True, eq=False)
class AnalysisPosition:
    """What a player sees (`cells`: a View's codes, int8 (height, width)) and the mine total, or None
    when it is not known."""

    cells: np.ndarray
    mines: int | None
    topology: str = "bounded"

    def __post_init__(self):
        cells = np.array(self.cells, dtype=np.int8)
        try:
            if cells.ndim != 2:
                raise InvalidBoardError(f"cells must be rows of equal length, got shape {cells.shape}")
            grid.check_size(cells.shape[1], cells.shape[0], self.topology)
        except InvalidBoardError as e:
            raise PositionError(str(e)) from None
        if cells.size > MAX_CELLS:
            raise PositionError(f"{cells.shape[1]}x{cells.shape[0]} is {cells.size:,} cells; the analysis board "
                                f"takes at most {MAX_CELLS:,}")
        if ((cells < FLAG) | (cells > 8)).any():
            raise PositionError("cells must be -2 (flag), -1 (hidden) or 0..8 (open number)")
        m = self.mines
        if m is not None and (isinstance(m, bool) or not isinstance(m, (int, np.integer)) or not 0 <= m <= cells.size):
            raise PositionError(f"mine total {m!r} must be an integer in 0..{cells.size} (the cells), or none")
        cells.setflags(write=False)
        object.__setattr__(self, "cells", cells)
        object.__setattr__(self, "mines", None if m is None else int(m))

    width = property(lambda self: self.cells.shape[1])
    height = property(lambda self: self.cells.shape[0])

    def __eq__(self, other):
        return isinstance(other, AnalysisPosition) and (self.mines, self.topology) == (other.mines, other.topology) \
            and np.array_equal(self.cells, other.cells)

    def view(self, mines: int | None = None) -> View:
        """The View of this position; `mines` stands in for a total it lacks."""
        total = self.mines if mines is None else mines
        if total is None:
            raise PositionError("this position has no mine total; give one")
        return View(self.cells, total, self.topology)

    @property
    def text(self) -> str:
        """The cells as one string, row by row, in the View's characters (`#`, `F`, `0`-`8`)."""
        return "".join(VIEW_OUT[int(c)] for c in self.cells.reshape(-1))

    @property
    def code(self) -> str:
        flat = self.cells.reshape(-1)
        runs = []
        i = 0
        while i < flat.size:
            j = i
            while j < flat.size and flat[j] == flat[i]:
                j += 1
            runs.append(CODE_OUT[int(flat[i])] + (str(j - i) if j - i > 1 else ""))
            i = j
        total = "-" if self.mines is None else str(self.mines)
        topo = "" if self.topology == "bounded" else f".{self.topology}"
        return f"{self.width}x{self.height}x{total}{topo}." + "".join(runs)

    @classmethod
    def from_code(cls, code: str) -> AnalysisPosition:
        if not isinstance(code, str) or len(code) > 4 * MAX_CELLS:
            raise PositionError("a position code must be a string such as 9x9x10.H81")
        m = CODE.fullmatch(code)
        if m is None:
            raise PositionError(f"{code[:40]!r} is not a position code; expected WxHxM (M a number, or - for no "
                                "total), then '.' and the cells: H hidden, F flag, a-i the numbers 0-8, each with "
                                "its run length, e.g. 9x9x10.H81")
        w, h = int(m.group(1)), int(m.group(2))
        topology = m.group(4) or "bounded"
        if w * h > MAX_CELLS:
            raise PositionError(f"{w}x{h} is {w * h:,} cells; the analysis board takes at most {MAX_CELLS:,}")
        body = m.group(5)
        flat: list[int] = []
        at = 0
        for run in RUN.finditer(body):
            if run.start() != at:
                break
            at = run.end()
            n = int(run.group(2) or 1)
            if n < 1 or len(flat) + n > w * h:
                raise PositionError(f"position code cells run past the {w}x{h} board")
            flat += [CODE_CHARS[run.group(1)]] * n
        if at != len(body):
            raise PositionError(f"position code cells hold {body[at:at + 1]!r} at {at}; allowed: H hidden, F flag, "
                                "a-i the numbers 0-8, each followed by its run length")
        if len(flat) != w * h:
            raise PositionError(f"position code gives {len(flat)} cells; a {w}x{h} board has {w * h}")
        return cls(np.array(flat, dtype=np.int8).reshape(h, w), None if m.group(3) == "-" else int(m.group(3)),
                   topology)


def _side(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PositionError(f"{name} must be an integer, got {value!r}")
    return value


def from_cells(cells: object, width: object, height: object, mines, topology: str = "bounded") -> AnalysisPosition:
    """A position from a cells string as the editor or a game sends it (`#`, `F`, `0`-`8`; a game's `?`,
    `*`, `X` and `W` too: what the player saw before it ended)."""
    width, height = _side("width", width), _side("height", height)
    if not isinstance(cells, str):
        raise PositionError("cells must be a string, one character a cell, row by row")
    if width * height > MAX_CELLS or width < 1 or height < 1:
        raise PositionError(f"{width}x{height}: width and height must be at least 1 and the board at most "
                            f"{MAX_CELLS:,} cells")
    if len(cells) != width * height:
        raise PositionError(f"cells has {len(cells)} characters; a {width}x{height} board has {width * height}")
    bad = set(cells) - set(GAME_CHARS)
    if bad:
        raise PositionError(f"cells hold {''.join(sorted(bad))!r}; allowed: '#' hidden, 'F' flag, '0'-'8' open "
                            "(and a game's '?', '*', 'X', 'W')")
    flat = np.array([GAME_CHARS[c] for c in cells], dtype=np.int8)
    return AnalysisPosition(flat.reshape(height, width), mines, topology)


def read_position(data: bytes | str) -> tuple[AnalysisPosition, Board | None]:
    """A position from text or a file in any form the module reads; with the board when it was a
    board file."""
    raw = data.encode() if isinstance(data, str) else bytes(data)
    if not raw.strip():
        raise PositionError("nothing to read; paste a position (rows of cells) or open a file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is None or any((ord(c) < 0x20 and c not in "\t\n\r") for c in text):
        return _board_position(raw)  # binary: an MBF file
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
    if lines[0].lower().startswith(("mines:", "topology:")):
        try:
            v = View.from_text(text)
        except SweeplabError as e:
            raise PositionError(f"View text: {e}") from None
        return AnalysisPosition(v.cells, v.mine_count, v.topology), None
    jsm = JSM_HEADER.fullmatch(lines[0])
    if jsm:
        return _jsm(jsm, lines[1:]), None
    if text.lstrip()[:1] in "{[" or set("".join(lines)) <= {"*", "."}:
        return _board_position(raw)
    return _forum(lines), None


def _board_position(raw: bytes) -> tuple[AnalysisPosition, Board]:
    try:
        board = parse_board(raw)
    except SweeplabError as e:
        raise PositionError(f"as a board file: {e}") from None
    return AnalysisPosition(np.full((board.height, board.width), HIDDEN, dtype=np.int8), board.mine_count,
                    board.topology), board


def _jsm(header: re.Match, rows: list[str]) -> AnalysisPosition:
    w, h, m = (int(g) for g in header.groups())
    if len(rows) < h:
        raise PositionError(f"the header says {w}x{h}x{m}: {h} rows of cells, but {len(rows)} follow")
    cells = []
    for n, row in enumerate(rows[:h], 2):
        bad = set(row) - set(JSM_CHARS)
        if len(row) != w or bad:
            raise PositionError(f"line {n} is {row[:40]!r}; each row needs {w} cells of 'H' hidden, 'F' or 'M' "
                                "flag, '0'-'8' open" + (f" (not {''.join(sorted(bad))!r})" if bad else ""))
        cells.append([JSM_CHARS[c] for c in row])
    return AnalysisPosition(np.array(cells, dtype=np.int8), m)


def _forum(lines: list[str]) -> AnalysisPosition:
    rows = []
    for line in lines:
        if BORDER.fullmatch(line):
            continue
        line = line.strip("|").strip()
        cells = line.replace("|", " ").split() if re.search(r"\S\s+\S", line) or "|" in line else list(line)
        bad = [c for c in cells if c not in FORUM_CHARS]
        if bad:
            raise PositionError(
                f"cannot read the row {line[:40]!r} ({bad[0][:8]!r}): a text grid takes '#', '?', 'H', 'h' or '-' "
                "hidden; 'F', 'f', 'P', '*', '!' or 'M' flag; '0'-'8' open and '.' or '_' an open 0 (or give the "
                "View text with a 'mines: N' line, or a JSMinesweeper 'WxHxM' position)")
        rows.append([FORUM_CHARS[c] for c in cells])
    if not rows:
        raise PositionError("no rows of cells found")
    if any(len(r) != len(rows[0]) for r in rows):
        lengths = sorted({len(r) for r in rows})
        raise PositionError(f"the rows differ in length ({', '.join(map(str, lengths))} cells); every row must have "
                            "as many cells as the first")
    return AnalysisPosition(np.array(rows, dtype=np.int8), None)


def read_file_field(value) -> bytes:
    """A file's bytes sent in JSON (base64)."""
    if not isinstance(value, str) or len(value) > 4 * MAX_CELLS * 2:
        raise PositionError("file must be the file's bytes in base64, at most a few tens of kB")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise PositionError("file is not valid base64") from None
