"""SQLite store of finished games: their records (mode, seed, board, actions with times) and best times.

A finished game is committed before the response that ends it is sent. The database runs in
WAL mode with synchronous=FULL, so a committed game survives the server being killed (and
the machine losing power). One connection, serialised by a lock: writes are one row each.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import threading
import time
from pathlib import Path

from ..errors import SweeplabError

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id TEXT NOT NULL UNIQUE,
    finished_at REAL NOT NULL,
    mode TEXT NOT NULL,
    level TEXT NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    mines INTEGER NOT NULL,
    seed INTEGER,
    seed_private INTEGER NOT NULL DEFAULT 0,
    marks INTEGER NOT NULL,
    hints INTEGER NOT NULL,
    status TEXT NOT NULL,
    elapsed REAL NOT NULL,
    timer INTEGER NOT NULL,
    bbbv INTEGER NOT NULL,
    bbbv_per_second REAL NOT NULL,
    ioe REAL NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS games_best ON games (status, hints, level, mode, elapsed);
"""
LEVELS = ("beginner", "intermediate", "expert")  # best times are kept for these, as in Windows
SUMMARY = ("id", "game_id", "finished_at", "mode", "level", "width", "height", "mines", "seed", "seed_private",
           "marks", "hints",
           "status", "elapsed", "timer", "bbbv", "bbbv_per_second", "ioe")


def default_db_path() -> Path:
    """The user's data directory: $XDG_DATA_HOME (or ~/.local/share), ~/Library/Application Support
    on macOS, %LOCALAPPDATA% on Windows; then sweeplab/sweeplab.db."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "sweeplab" / "sweeplab.db"


class NotFoundError(SweeplabError):
    """A record or game id that does not exist."""


class Store:
    """Finished games in SQLite. Thread-safe; every write is committed (and synced) before it returns."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            if str(path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.executescript(SCHEMA)
        except (sqlite3.Error, OSError) as e:
            raise SweeplabError(f"cannot open the game database {str(path)!r}: {e}; give a writable --db PATH") from e
        self._db.row_factory = sqlite3.Row

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def add(self, row: dict) -> int:
        """Write one finished game; returns its record id. `row` has SUMMARY's fields (no id) and `record`."""
        cols = [c for c in SUMMARY if c != "id"] + ["record"]
        values = [row[c] if c != "record" else json.dumps(row[c], separators=(",", ":")) for c in cols]
        values[cols.index("finished_at")] = row.get("finished_at") or time.time()
        with self._lock:
            cur = self._db.execute(f"INSERT INTO games ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                                   values)
            return int(cur.lastrowid)

    def best_times(self) -> list[dict]:
        """The fastest won game without hints per level and mode (custom boards have no best time)."""
        q = ("SELECT level, mode, MIN(elapsed) AS elapsed, timer, id, finished_at, COUNT(*) AS wins FROM games "
             "WHERE status = 'won' AND hints = 0 AND level IN (?, ?, ?) GROUP BY level, mode ORDER BY mode, level")
        with self._lock:
            rows = [dict(r) for r in self._db.execute(q, LEVELS)]
        rows.sort(key=lambda r: (r["mode"], LEVELS.index(r["level"])))
        return rows

    def records(self, *, limit: int = 50, offset: int = 0, mode: str | None = None, level: str | None = None,
                status: str | None = None) -> tuple[list[dict], int]:
        """Summaries of finished games, newest first, and how many match in all."""
        where, args = [], []
        for col, val in (("mode", mode), ("level", level), ("status", status)):
            if val is not None:
                where.append(f"{col} = ?")
                args.append(val)
        w = f" WHERE {' AND '.join(where)}" if where else ""
        with self._lock:
            total = self._db.execute(f"SELECT COUNT(*) FROM games{w}", args).fetchone()[0]
            rows = [dict(r) for r in self._db.execute(
                f"SELECT {', '.join(SUMMARY)} FROM games{w} ORDER BY id DESC LIMIT ? OFFSET ?", [*args, limit, offset])]
        return rows, int(total)

    def get(self, record_id: int) -> dict:
        with self._lock:
            r = self._db.execute(f"SELECT {', '.join(SUMMARY)}, record FROM games WHERE id = ?",
                                 (record_id,)).fetchone()
        if r is None:
            raise NotFoundError(f"no record with id {record_id}")
        out = dict(r)
        out["record"] = json.loads(out["record"])
        return out

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
