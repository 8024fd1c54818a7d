"""Writing EVF (version 4, the open format of Metasweeper and ms-toollib) from a sweeplab game or mouse events.

ms-toollib writes EVF only for games it recorded itself in real time (its BaseVideo takes the wall
clock), so this writer follows the EVF standard (ms-toollib's "evf format" document, v0.4) by hand.
Integers are big-endian. A game's actions become the mouse events a player makes:
open = left press and release, flag = right press and release, chord = left press, right press,
left release, right release; each at the centre of its cell, at the action's time in whole
milliseconds. The file carries no checksum (the programs key theirs with a secret).

A game of `sweeplab play` whose page recorded the player's mouse (play/paths.py) is written with
that path, its own times and positions, rather than the made-up one.

The NF flag ("no flag") is set when no right click put a flag on a mine (no effective right click,
as ms-toollib counts them). EVF has no level field: readers name the level from the size, and
beginner is 8x8/10 there (the rankings' beginner), so a 9x9/10 game, beginner in Windows 7 and in
sweeplab, reads back as custom.

The formats' readers (ms-toollib, ranking sites) know no "?" marks: a right click takes a flag
away, the next one flags again. A game played with marks therefore exports with marks off, and
a right click that took a "?" away is left out, so that every reader sees the flags the player saw.
"""

from __future__ import annotations

import struct
import time as _time

from ..board import Board
from ..errors import EvfWriteError
from ..game import Game
from ..stats import bbbv
from .mouse import MouseEvent, play_events

VERSION = 4
CELL = 16  # pixels, as in Windows
SOFTWARE = "sweeplab"
MOUSE_CODES = {"mv": 1, "lc": 2, "lr": 3, "rc": 4, "rr": 5, "mc": 6, "mr": 7, "pf": 8, "cc": 9, "l": 10, "r": 11,
               "m": 12}
# EVF game modes: 0 standard, 4 Windows 7, 5 "competitive solvable" (a certified board, a guess still plays on)
MODES = {"none": 0, "safe": 0, "opening": 0, "shift": 0, "win7": 4, "noguess": 5}


# EVF has no level field: its readers (ms-toollib) name the level from the board's size and mines.
EVF_LEVELS = {(8, 8, 10): "beginner", (16, 16, 40): "intermediate", (30, 16, 99): "expert"}


def evf_level(width: int, height: int, mines: int) -> str:
    """The level an EVF reader names a board of this size: beginner, intermediate, expert or custom."""
    return EVF_LEVELS.get((width, height, mines), "custom")


PATH_KINDS = ("mv", "lc", "lr", "rc", "rr", "mc", "mr")  # move; left, right, middle press (c) and release (r)


def button_events(events) -> list[MouseEvent]:
    """The presses and releases among mouse events: moves change nothing in the game (and are most of a path)."""
    return [e for e in events if e.kind != "mv"]


def path_events(path: list[int]) -> list[MouseEvent]:
    """A recorded mouse path's events, from its delta form (play/paths.py): four integers per event, the
    kind (an index into PATH_KINDS), milliseconds since the event before, and the pixel step from the
    event before (the position itself for the first). Times in seconds from the recording's start."""
    out, t, x, y = [], 0, 0, 0
    for i in range(0, len(path), 4):
        kind, dt, dx, dy = path[i:i + 4]
        t += dt
        x, y = (dx, dy) if i == 0 else (x + dx, y + dy)
        out.append(MouseEvent(PATH_KINDS[kind], t / 1000, x, y))
    return out


def game_events(game: Game, *, cell: int = CELL) -> list[MouseEvent]:
    """The mouse events that replay `game` under the community's click rules, times from its first action."""
    if not game.log:
        return []
    t0 = game.log[0].t
    out: list[MouseEvent] = []
    marks = Game(game.board, marks=game.marks) if game.board is not None else None
    for a in game.log:
        t = a.t - t0
        px, py = a.x * cell + cell // 2, a.y * cell + cell // 2
        if a.kind == "open":
            out += [MouseEvent("lc", t, px, py), MouseEvent("lr", t, px, py)]
        elif a.kind == "flag":
            if marks is not None and marks.cell_state(a.x, a.y) == "question":
                marks.flag(a.x, a.y)  # "?" -> hidden: the formats have no "?", so no click
                continue
            out += [MouseEvent("rc", t, px, py), MouseEvent("rr", t, px, py)]
        else:
            out += [MouseEvent("lc", t, px, py), MouseEvent("rc", t, px, py), MouseEvent("lr", t, px, py),
                    MouseEvent("rr", t, px, py)]
        if marks is not None and not marks.over:
            marks.act(a.kind, a.x, a.y)
    return out


def game_to_evf(game: Game, *, player: str = "", country: str = "", mode: int | None = None,
                finished_at: float | None = None, software: str = SOFTWARE) -> bytes:
    """EVF bytes of a sweeplab game (won, lost or unfinished) that has its board."""
    if game.board is None:
        raise EvfWriteError("the game has no board yet (no cell was opened); nothing to export")
    events = game_events(game)
    rule = game.rule.spec().get("rule", "none")
    if mode is None:
        mode = MODES.get(rule, 0)
    finished_at = _time.time() if finished_at is None else finished_at
    return write_evf(game.board, events, won=game.status == "won", time=game.elapsed, player=player,
                     country=country, mode=mode, start=finished_at - game.elapsed, end=finished_at,
                     software=software)


def _cstring(text: str) -> bytes:
    raw = text.encode("utf-8")
    if b"\0" in raw:
        raise EvfWriteError(f"EVF strings end at a NUL byte; {text!r} holds one")
    return raw + b"\0"


def write_evf(board: Board, events, *, won: bool, time: float, player: str = "", country: str = "",
              mode: int = 0, start: float = 0.0, end: float = 0.0, software: str = SOFTWARE,
              cell: int = CELL, flagged: bool | None = None) -> bytes:
    """EVF v4 bytes for mouse `events` (MouseEvent, times in seconds, pixels) on `board`.

    Events off the board must be at pixel (columns * cell, rows * cell), as the standard asks.
    """
    w, h = board.width, board.height
    if board.topology != "bounded":
        raise EvfWriteError("EVF holds bounded boards only; this board is a torus")
    if not (1 <= w <= 255 and 1 <= h <= 255) or not 5 <= cell <= 255 or max(w, h) * cell > 32767:
        raise EvfWriteError(f"EVF holds boards of 1..255 rows and columns with cells of 5..255 pixels; got {w}x{h}, "
                            f"{cell} px")
    if not 0 <= time < 2 ** 32 / 1000:
        raise EvfWriteError(f"time {time} s is out of EVF's range (0 to 49 days)")
    if flagged is None:  # an effective right click: one that put a flag on a mine
        played = play_events(board, button_events(events), cell).game
        flagged = any(a.flagged and board.is_mine(a.x, a.y) for a in played.log)
    code = len(country.encode("utf-8"))
    if code not in (0, 2):
        raise EvfWriteError(f"country must be a two-letter ISO 3166 code or empty, got {country!r}")
    summary = (0x80 if won else 0) | (0x20 if won else 0) | (0 if flagged else 0x10)
    settings = 0x80  # question marks off: the formats' readers have none
    out = bytearray(struct.pack(">BBBBBHBHHI", VERSION, summary, settings, h, w, board.mine_count, cell, mode,
                                min(bbbv(board), 65535), round(time * 1000)))
    out += (country.encode("utf-8") if code == 2 else b"  ")
    out += struct.pack(">QQ", max(0, round(start * 1e6)), max(0, round(end * 1e6)))
    out += _cstring(software) + _cstring(player) + _cstring("") + _cstring("")
    out += struct.pack(">H", 0)  # no device uuid
    bits = board.flat_mines
    padded = bytearray((len(bits) + 7) // 8)
    for i in range(len(bits)):
        if bits[i]:
            padded[i // 8] |= 0x80 >> (i % 8)
    out += padded
    out += struct.pack(">H", 0)  # no custom metrics
    out += _events(events)
    out += b"\0" + struct.pack(">H", 0)  # end of events; no checksum
    return bytes(out)


def _events(events) -> bytes:
    out = bytearray()
    events = list(events)
    if not events:
        events = [MouseEvent("mv", 0.0, 0, 0)]
    if events[0].kind not in ("mv", "lc", "rc", "pf"):  # the standard's first event is one of these
        events.insert(0, MouseEvent("mv", events[0].t, events[0].x, events[0].y))
    last_ms, last_x, last_y = None, 0, 0
    for e in events:
        ms = round(e.t * 1000)
        if not 0 <= e.x <= 32767 or not 0 <= e.y <= 32767:
            raise EvfWriteError(f"mouse position ({e.x}, {e.y}) is out of EVF's range 0..32767")
        if last_ms is None:
            if not 0 <= ms <= 255:
                raise EvfWriteError("the first event must come within 255 ms of time 0")
            out += struct.pack(">BBHH", MOUSE_CODES[e.kind], ms, e.x, e.y)
        else:
            dt = ms - last_ms
            if dt < 0:
                raise EvfWriteError(f"event times must not go back (at {e.t:.3f} s)")
            while dt > 255:  # a pause event carries up to 65535 ms; the next event the rest
                step = min(dt - 255, 65535)
                out += struct.pack(">BH", 255, step)
                dt -= step
            out += struct.pack(">BBhh", MOUSE_CODES[e.kind], dt, e.x - last_x, e.y - last_y)
        last_ms, last_x, last_y = ms, e.x, e.y
    return bytes(out)


PLAY_MODES = {"noguess": 5, "win7": 4}  # `sweeplab play` modes; the others lay uniform boards (standard)


def record_game(record: dict) -> Game:
    """The game of a `sweeplab play` record (the store's `record` field), played again on its board."""
    from ..game import replay
    board = record.get("played_board") or record.get("board")
    if board is None:
        raise EvfWriteError("this record has no board (the game ended before any cell was opened); nothing to export")
    return replay(Board.from_dict(board), record.get("actions", []), marks=record.get("marks", True))


def record_to_evf(row: dict, *, player: str = "", country: str = "") -> bytes:
    """EVF bytes of a finished game from the play store (a row of `Store.get`): with the mouse path its
    page recorded (`row["path"]`, play/paths.py's form) when it has one, else the path made up from its
    moves; the player's name is the record's unless `player` gives one."""
    game = record_game(row["record"])
    player = player or row.get("player") or ""
    mode = PLAY_MODES.get(row.get("mode") or "", 0)
    if row.get("path") is None:
        return game_to_evf(game, player=player, country=country, mode=mode, finished_at=row.get("finished_at"))
    events = path_events(row["path"])
    t0 = events[0].t  # the file's clock starts at its first event
    events = [MouseEvent(e.kind, e.t - t0, e.x, e.y) for e in events]
    finished_at = _time.time() if row.get("finished_at") is None else row["finished_at"]
    assert game.board is not None  # (record_game refuses a record without one)
    # the file's time is the path's own, from its first opening click to its last move, as its readers count
    played = play_events(game.board, button_events(events), CELL).game
    return write_evf(game.board, events, won=played.status == "won", time=played.elapsed, player=player,
                     country=country, mode=mode, start=finished_at - played.elapsed, end=finished_at)
