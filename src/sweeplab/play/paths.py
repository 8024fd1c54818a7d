"""The mouse path a player's page records while it plays (static/recorder.js): its wire form, its
bounds, and how the store keeps it (replays/evf.py reads it as mouse events: path_events).

On the wire a path is one flat list of integers, four per event: the event's kind (an index into
KINDS), the milliseconds since the event before (since the recording started for the first), and
the pixel step from the event before (the position itself for the first). Positions are board
pixels of CELL-pixel cells from the board's top left, as replay files keep them; an event off the
board is at (columns * CELL, rows * CELL), as EVF asks. The store keeps the list as compressed
JSON: a beginner game takes about a kB, a path of MAX_EVENTS about 50 kB.
"""

from __future__ import annotations

import json
import zlib

from ..errors import BadRequest, BodyTooLarge
from ..replays.evf import CELL, path_events
from ..replays.evf import PATH_KINDS as KINDS

MAX_EVENTS = 20_000  # about 5 minutes of moves at the page's 60 a second, and every click
MAX_BODY = 512 * 1024  # what MAX_EVENTS events take as JSON, with room
MAX_GAP_MS = 3_600_000  # an hour between two events: a page left open


def check_path(path, width: int, height: int) -> list[int]:
    """The path as sent by a page, checked: a list of 4 integers per event, at most MAX_EVENTS events,
    known kinds, times that never go back, positions on the board or at its off-board point."""
    if not isinstance(path, list) or len(path) % 4 or not path:
        raise BadRequest("path must be a non-empty list of 4 integers per event: kind, milliseconds since the "
                         "event before, x step, y step (board pixels)")
    if len(path) // 4 > MAX_EVENTS:
        raise BodyTooLarge(f"a path of {len(path) // 4} events is too long; at most {MAX_EVENTS}")
    if not all(type(v) is int for v in path):
        raise BadRequest("path must hold integers only")
    x = y = 0
    for i in range(0, len(path), 4):
        kind, dt, dx, dy = path[i:i + 4]
        if not 0 <= kind < len(KINDS):
            raise BadRequest(f"event {i // 4}: kind {kind} is not one of 0..{len(KINDS) - 1} ({', '.join(KINDS)})")
        if not 0 <= dt <= MAX_GAP_MS:
            raise BadRequest(f"event {i // 4}: {dt} ms since the event before; allowed 0..{MAX_GAP_MS}")
        x, y = (dx, dy) if i == 0 else (x + dx, y + dy)
        if not ((0 <= x < width * CELL and 0 <= y < height * CELL) or (x, y) == (width * CELL, height * CELL)):
            raise BadRequest(f"event {i // 4}: ({x}, {y}) is off the {width}x{height} board's "
                             f"{width * CELL}x{height * CELL} pixels (off the board is ({width * CELL}, "
                             f"{height * CELL}))")
    return path


def encode_path(path: list[int]) -> bytes:
    return zlib.compress(json.dumps(path, separators=(",", ":")).encode("ascii"), 9)


def decode_path(blob: bytes) -> list[int]:
    return json.loads(zlib.decompress(blob))

__all__ = ["CELL", "KINDS", "MAX_BODY", "MAX_EVENTS", "check_path", "decode_path", "encode_path", "path_events"]
