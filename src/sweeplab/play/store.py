"""SQLite store of games: finished ones (mode, seed, board, actions with times), best times and
statistics, and the games still in play (how each was made and its actions so far), so that a
game survives a restart of the server.

A finished game is committed before the response that ends it is sent, with synchronous=FULL:
it survives the server being killed and the machine losing power. An action of a game in play
is committed before its answer too, with synchronous=NORMAL (WAL): it survives the server being
killed, not a power cut, which costs an fsync per move less. One connection, serialised by a lock.
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
CREATE INDEX IF NOT EXISTS games_seed ON games (mode, seed);
CREATE TABLE IF NOT EXISTS live_games (
    game_id TEXT PRIMARY KEY,
    session TEXT,
    created REAL NOT NULL,
    spec TEXT NOT NULL,
    hints INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS live_session ON live_games (session);
CREATE TABLE IF NOT EXISTS live_actions (
    game_id TEXT NOT NULL,
    n INTEGER NOT NULL,
    kind TEXT NOT NULL,
    x INTEGER NOT NULL,
    y INTEGER NOT NULL,
    t REAL NOT NULL,
    PRIMARY KEY (game_id, n)
) WITHOUT ROWID;
"""
# Columns added after the first release: (name, declaration); old databases get them on opening.
ADDED = (("practice", "INTEGER NOT NULL DEFAULT 0"), ("player", "TEXT"))
LEVELS = ("beginner", "intermediate", "expert")  # best times are kept for these, as in Windows
SUMMARY = ("id", "game_id", "finished_at", "mode", "level", "width", "height", "mines", "seed", "seed_private",
           "marks", "hints",
           "status", "elapsed", "timer", "bbbv", "bbbv_per_second", "ioe", "practice", "player")
# A best time: a win without hints on a named level of a board the player could not know (not practice).
ELIGIBLE = "status = 'won' AND hints = 0 AND practice = 0 AND level IN ('beginner', 'intermediate', 'expert')"
MAX_LIVE = 5000  # games in play kept; beyond, the least recently started are dropped


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
            have = {r[1] for r in self._db.execute("PRAGMA table_info(games)")}
            for name, decl in ADDED:
                if name not in have:
                    self._db.execute(f"ALTER TABLE games ADD COLUMN {name} {decl}")
            self._db.execute("PRAGMA synchronous=NORMAL")  # FULL around finished games only (see add)
        except (sqlite3.Error, OSError) as e:
            raise SweeplabError(f"cannot open the game database {str(path)!r}: {e}; give a writable --db PATH") from e
        self._db.row_factory = sqlite3.Row

    def close(self) -> None:
        """Checkpoint the WAL into the database file and close: no -wal or -shm file is left behind."""
        with self._lock:
            try:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error:
                pass  # (closing checkpoints too; a busy database keeps its WAL, which is safe)
            self._db.close()

    def add(self, row: dict) -> int:
        """Write one finished game (and drop it from the games in play); returns its record id.
        `row` has SUMMARY's fields (no id; practice and player optional) and `record`."""
        row = {"practice": 0, "player": None, **row}
        cols = [c for c in SUMMARY if c != "id"] + ["record"]
        values = [row[c] if c != "record" else json.dumps(row[c], separators=(",", ":")) for c in cols]
        values[cols.index("finished_at")] = row.get("finished_at") or time.time()
        with self._lock:
            self._db.execute("PRAGMA synchronous=FULL")
            try:
                self._db.execute("BEGIN IMMEDIATE")
                cur = self._db.execute(f"INSERT INTO games ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                                       values)
                self._db.execute("DELETE FROM live_games WHERE game_id = ?", (row["game_id"],))
                self._db.execute("DELETE FROM live_actions WHERE game_id = ?", (row["game_id"],))
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            finally:
                self._db.execute("PRAGMA synchronous=NORMAL")
            return int(cur.lastrowid)

    # --- games in play ---------------------------------------------------------------------------
    def start_live(self, game_id: str, spec: dict, *, created: float, session: str | None = None) -> None:
        """Keep a new game in play: `spec` says how to make it again. A new game of a session throws
        that session's unfinished game away, as a new game does in Windows."""
        with self._lock:
            self._db.execute("BEGIN")
            if session is not None:
                for (old,) in self._db.execute("SELECT game_id FROM live_games WHERE session = ?", (session,)).fetchall():
                    self._drop_live(old)
            self._db.execute("INSERT INTO live_games (game_id, session, created, spec) VALUES (?, ?, ?, ?)",
                             (game_id, session, created, json.dumps(spec, separators=(",", ":"))))
            extra = self._db.execute("SELECT COUNT(*) FROM live_games").fetchone()[0] - MAX_LIVE
            if extra > 0:
                for (old,) in self._db.execute("SELECT game_id FROM live_games ORDER BY created LIMIT ?",
                                               (extra,)).fetchall():
                    self._drop_live(old)
            self._db.execute("COMMIT")

    def add_action(self, game_id: str, n: int, kind: str, x: int, y: int, t: float) -> None:
        """Keep the n-th action (from 0) of a game in play."""
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO live_actions (game_id, n, kind, x, y, t) VALUES (?, ?, ?, ?, ?, ?)",
                             (game_id, n, kind, x, y, t))

    def set_live_hints(self, game_id: str, hints: int) -> None:
        with self._lock:
            self._db.execute("UPDATE live_games SET hints = ? WHERE game_id = ?", (hints, game_id))

    def live(self, game_id: str) -> dict | None:
        """A game in play: its spec, created (wall clock), hints and actions [kind, x, y, t]; or None."""
        with self._lock:
            r = self._db.execute("SELECT spec, created, hints, session FROM live_games WHERE game_id = ?",
                                 (game_id,)).fetchone()
            if r is None:
                return None
            acts = [list(a) for a in self._db.execute(
                "SELECT kind, x, y, t FROM live_actions WHERE game_id = ? ORDER BY n", (game_id,))]
        return {"spec": json.loads(r[0]), "created": r[1], "hints": r[2], "session": r[3], "actions": acts}

    def live_of_session(self, session: str) -> str | None:
        """The game a session has in play, if any."""
        with self._lock:
            r = self._db.execute("SELECT game_id FROM live_games WHERE session = ? ORDER BY created DESC LIMIT 1",
                                 (session,)).fetchone()
        return None if r is None else r[0]

    def live_count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM live_games").fetchone()[0])

    def _drop_live(self, game_id: str) -> None:
        self._db.execute("DELETE FROM live_games WHERE game_id = ?", (game_id,))
        self._db.execute("DELETE FROM live_actions WHERE game_id = ?", (game_id,))

    # --- finished games ----------------------------------------------------------------------------
    def best_times(self) -> list[dict]:
        """The fastest eligible win per level and mode (custom boards and practice have no best time)."""
        q = (f"SELECT level, mode, MIN(elapsed) AS elapsed, timer, id, finished_at, player, COUNT(*) AS wins "
             f"FROM games WHERE {ELIGIBLE} GROUP BY level, mode ORDER BY mode, level")
        with self._lock:
            rows = [dict(r) for r in self._db.execute(q)]
        rows.sort(key=lambda r: (r["mode"], LEVELS.index(r["level"])))
        return rows

    def top_times(self, n: int = 10) -> list[dict]:
        """The n fastest eligible wins of each mode and level, fastest first, with date and player."""
        q = (f"SELECT * FROM (SELECT mode, level, elapsed, timer, id, finished_at, player, ROW_NUMBER() OVER "
             f"(PARTITION BY mode, level ORDER BY elapsed, id) AS rank FROM games WHERE {ELIGIBLE}) WHERE rank <= ?")
        with self._lock:
            rows = [dict(r) for r in self._db.execute(q, (n,))]
        rows.sort(key=lambda r: (r["mode"], LEVELS.index(r["level"]), r["rank"]))
        return rows

    def statistics(self) -> list[dict]:
        """Per mode and level: games played (won or lost, practice not counted), won, win %, the current
        streak of wins and the longest."""
        with self._lock:
            rows = self._db.execute("SELECT mode, level, status FROM games WHERE practice = 0 AND status IN "
                                    "('won', 'lost') ORDER BY id").fetchall()
        out: dict[tuple[str, str], dict] = {}
        for mode, level, status in rows:
            s = out.setdefault((mode, level), {"mode": mode, "level": level, "played": 0, "won": 0, "streak": 0,
                                               "best_streak": 0})
            s["played"] += 1
            if status == "won":
                s["won"] += 1
                s["streak"] += 1
                s["best_streak"] = max(s["best_streak"], s["streak"])
            else:
                s["streak"] = 0
        for s in out.values():
            s["win_percent"] = round(100 * s["won"] / s["played"], 1)
        order = {lv: i for i, lv in enumerate((*LEVELS, "custom"))}
        return sorted(out.values(), key=lambda s: (s["mode"], order.get(s["level"], 9)))

    def seen(self, mode: str, seed: int) -> bool:
        """Whether a finished game of this mode already had this seed (its board may be known)."""
        with self._lock:
            return self._db.execute("SELECT 1 FROM games WHERE mode = ? AND seed = ? LIMIT 1",
                                    (mode, seed)).fetchone() is not None

    def set_player(self, game_id: str, player: str) -> int:
        """Name the player of a finished game (given by its game id, which only its player holds)."""
        with self._lock:
            cur = self._db.execute("UPDATE games SET player = ? WHERE game_id = ?", (player, game_id))
        if cur.rowcount == 0:
            raise NotFoundError(f"no finished game {game_id!r}")
        return cur.rowcount

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
