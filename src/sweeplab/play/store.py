"""SQLite store of games: finished ones (mode, seed, board, actions with times), best times and
statistics, and the games still in play (how each was made and its actions so far), so that a
game survives a restart of the server.

Every write is one transaction (BEGIN IMMEDIATE ... COMMIT, or ROLLBACK of all of it when any part
fails), so a failed statement never leaves one open for later writes to vanish into. A finished game
is committed before the response that ends it is sent, with synchronous=FULL: it survives the server
being killed and the machine losing power. An action of a game in play is committed before its
answer too, with synchronous=NORMAL (WAL): it survives the server being killed, not a power cut,
which costs an fsync per move less. One connection, serialised by a lock; a write that finds another
program holding the write lock waits for it a bounded time (WAIT) without holding that lock, so reads
go on, then says so (StoreBusyError). Opening checks the file (quick_check) and makes one write, so a
damaged or read-only database is said at the start, not by every request after it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from ..errors import (
    BadRequest,
    GameOverError,
    NotFoundError,
    StoreBusyError,
    StoreError,
    StoreFullError,
    SweeplabError,
    TooManyGamesError,
)
from .paths import decode_path, encode_path

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
# Columns added after the first release, by table: (name, declaration); old databases get them on opening.
ADDED = {"games": (("practice", "INTEGER NOT NULL DEFAULT 0"), ("player", "TEXT")),
         "live_games": (("owner", "TEXT"), ("touched", "REAL"))}
STYLES = ("flag", "nf")
LEVELS = ("beginner", "intermediate", "expert")  # best times are kept for these, as in Windows
SUMMARY = ("id", "game_id", "finished_at", "mode", "level", "width", "height", "mines", "seed", "seed_private",
           "marks", "hints",
           "status", "elapsed", "timer", "bbbv", "bbbv_per_second", "ioe", "practice", "player", "style")
# A best time: a win without hints on a named level of a board the player could not know (not practice).
ELIGIBLE = "status = 'won' AND hints = 0 AND practice = 0 AND level IN ('beginner', 'intermediate', 'expert')"
MAX_LIVE = 5000  # games in play the server keeps in all; beyond, a new game waits for room (503)
PER_CLIENT = 100  # games in play one client (address) may keep; beyond, its own games without a move go
WAIT = 2.0  # seconds a write waits for another program's write lock before it gives up
# A game ended on the player's word in play (a new game, another level...): a loss in the statistics, as
# in Windows 7; "abandoned" is a game the server could not make again, which counts for nothing.
COUNTED = ("won", "lost", "quit")


def style_of(record: dict) -> str:
    """A game's style: "nf" when no flag was ever put on a mine (EVF's NF: no effective right click), else
    "flag". A flag on a safe cell is a wasted click, not a flag of the style, as ms-toollib counts it.
    A mine is never open while the game goes on, so the first flag action on a mine always puts a flag
    there: no replay is needed, only the board."""
    from ..board import Board
    pb, acts = record.get("played_board"), record.get("actions") or []
    flags = [a for a in acts if a[0] == "flag"]
    if not pb or not flags:
        return "nf"
    board = Board.from_dict(pb)
    return "flag" if any(board.is_mine(a[1], a[2]) for a in flags) else "nf"


def _style_or_flag(record_json: str) -> str:
    try:
        return style_of(json.loads(record_json))
    except (SweeplabError, ValueError, KeyError, IndexError, TypeError):  # a record no game replays: no NF claim
        return "flag"


def _style_filter(style: str | None) -> tuple[str, list]:
    if style is None:
        return "", []
    if style not in STYLES:
        raise BadRequest(f"style must be one of {', '.join(STYLES)} (nf: won without a flag), got {style!r}")
    return " AND style = ?", [style]


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


SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_NOTADB = 5, 6, 8, 11, 13, 26


def _code(e: sqlite3.Error) -> int:
    return (getattr(e, "sqlite_errorcode", None) or 0) & 0xFF


class Store:
    """Finished games in SQLite. Thread-safe; every write is one transaction, committed (and synced)
    before it returns or rolled back whole when any part of it fails.

    A write that finds another program holding the write lock waits up to `wait` seconds for it
    (retrying outside the store's own lock, so reads go on meanwhile), then raises StoreBusyError;
    `wait=0` tries once (what the server's event loop does: it hands a busy write to a thread)."""

    def __init__(self, path: str | Path, *, wait: float = WAIT):
        self.path = Path(path)
        self.wait = wait
        self._lock = threading.Lock()
        where = f"the game database {str(path)!r}"
        try:
            if str(path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute(f"PRAGMA busy_timeout={int(wait * 1000)}")  # opening waits for another program
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # FULL around finished games only (see add)
            problems = [line.strip() for r in self._db.execute("PRAGMA quick_check(1)") for line in r[0].splitlines()
                        if line.strip() and not line.startswith("***")]
            if problems != ["ok"]:
                raise SweeplabError(f"{where} is damaged ({problems[0] if problems else 'no answer'}); move it aside "
                                    "and start again, or give another --db PATH")
            self._db.execute("BEGIN IMMEDIATE")  # schema and a write: a read-only file fails here, not later
            try:
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                for table, added in ADDED.items():
                    have = {r[1] for r in self._db.execute(f"PRAGMA table_info({table})")}
                    for name, decl in added:
                        if name not in have:
                            self._db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {decl}")
                self._db.execute("CREATE INDEX IF NOT EXISTS live_owner ON live_games (owner)")
                self._db.execute("UPDATE live_games SET touched = created WHERE touched IS NULL")  # (kept before)
                version = self._db.execute("PRAGMA user_version").fetchone()[0]
                self._db.execute(f"PRAGMA user_version={int(version)}")  # a write, even when nothing changed
                self._db.execute("COMMIT")
            except BaseException:
                try:
                    self._db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass  # (SQLite rolled back by itself: a full disk; the error that did it is said, not this)
                raise
            self._db.execute("PRAGMA busy_timeout=0")  # from now on _write waits, outside the store's lock
        except SweeplabError:
            self._close_quietly()
            raise
        except sqlite3.Error as e:
            self._close_quietly()
            if _code(e) == SQLITE_READONLY:
                raise SweeplabError(f"{where} is read-only ({e}); make it writable or give a writable "
                                    "--db PATH") from None
            if _code(e) in (SQLITE_CORRUPT, SQLITE_NOTADB):
                raise SweeplabError(f"{where} is damaged ({e}); move it aside and start again, or give another "
                                    "--db PATH") from None
            if _code(e) == SQLITE_FULL:
                raise SweeplabError(f"the disk of {where} is full ({e}); free some space, or give another "
                                    "--db PATH") from None
            if _code(e) in (SQLITE_BUSY, SQLITE_LOCKED):
                raise SweeplabError(f"{where} is locked by another program ({e}); close it or give another "
                                    "--db PATH") from None
            raise SweeplabError(f"cannot use {where}: {e}; give a writable --db PATH") from None
        except OSError as e:
            raise SweeplabError(f"cannot open {where}: {e}; give a writable --db PATH") from e
        self._db.row_factory = sqlite3.Row
        self._records_schema()

    def _close_quietly(self) -> None:
        db = getattr(self, "_db", None)
        if db is not None:
            try:
                db.close()
            except sqlite3.Error:
                pass

    def close(self) -> None:
        """Checkpoint the WAL into the database file and close: no -wal or -shm file is left behind."""
        with self._lock:
            try:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error:
                pass  # (closing checkpoints too; a busy database keeps its WAL, which is safe)
            self._db.close()

    # --- transactions ------------------------------------------------------------------------
    def _failed(self, e: sqlite3.Error, wait: float) -> StoreError:
        code = _code(e)
        if code in (SQLITE_BUSY, SQLITE_LOCKED):
            return StoreBusyError(f"the game database is locked by another program (for over {wait:g} s); nothing "
                                  "was changed: try again in a moment")
        if code == SQLITE_READONLY:
            return StoreError(f"the game database {str(self.path)!r} has become read-only; nothing was changed")
        if code == SQLITE_FULL:
            return StoreError("the disk of the game database is full; nothing was changed")
        return StoreError(f"the game database did not take the change ({e}); nothing was changed")

    @contextmanager
    def _write(self, wait: float | None = None, *, full: bool = False):
        """One transaction (BEGIN IMMEDIATE ... COMMIT) on the connection, under the store's lock: all of
        it is kept or none (ROLLBACK on any error). Waits up to `wait` s for another program's write
        lock, retrying outside the lock; a database error becomes a StoreError that says nothing was kept."""
        wait = self.wait if wait is None else wait
        deadline = time.monotonic() + wait
        pause = 0.002
        while True:
            self._lock.acquire()
            try:
                if full:
                    self._db.execute("PRAGMA synchronous=FULL")
                self._db.execute("BEGIN IMMEDIATE")
                break
            except sqlite3.Error as e:
                self._sync_normal(full)
                self._lock.release()
                left = deadline - time.monotonic()
                if _code(e) not in (SQLITE_BUSY, SQLITE_LOCKED) or left <= 0:
                    raise self._failed(e, wait) from None
            time.sleep(min(pause, left))
            pause = min(2 * pause, 0.05)
        try:
            yield self._db
            self._db.execute("COMMIT")
        except BaseException as e:
            try:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # (SQLite rolls back by itself when the failure was the disk's)
            if isinstance(e, sqlite3.Error):
                raise self._failed(e, wait) from None
            raise
        finally:
            self._sync_normal(full)
            self._lock.release()

    def _sync_normal(self, full: bool) -> None:
        if full:
            try:
                self._db.execute("PRAGMA synchronous=NORMAL")
            except sqlite3.Error:
                pass

    @contextmanager
    def _read(self):
        with self._lock:
            try:
                yield self._db
            except sqlite3.Error as e:
                raise StoreError(f"the game database could not be read ({e})") from None

    def add(self, row: dict, *, wait: float | None = None) -> int:
        """Write one finished game (and drop it from the games in play); returns its record id.
        `row` has SUMMARY's fields (no id; practice, player and style optional) and `record`."""
        row = {"practice": 0, "player": None, **row}
        row.setdefault("style", style_of(row["record"]))
        cols = [c for c in SUMMARY if c != "id"] + ["record"]
        values = [row[c] if c != "record" else json.dumps(row[c], separators=(",", ":")) for c in cols]
        values[cols.index("finished_at")] = row.get("finished_at") or time.time()
        with self._write(wait, full=True) as db:
            cur = db.execute(f"INSERT INTO games ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})", values)
            self._drop_live(row["game_id"])
            return int(cur.lastrowid)

    # --- games in play ---------------------------------------------------------------------------
    def start_live(self, game_id: str, spec: dict, *, created: float, session: str | None = None,
                   owner: str = "local", per_client: int = PER_CLIENT, most: int = MAX_LIVE,
                   wait: float | None = None) -> None:
        """Keep a new game in play: `spec` says how to make it again. A new game of a session throws that
        session's unfinished games away (the caller files any that was in play first), as a new game does
        in Windows. `owner` (the client's address) may keep `per_client` games: beyond, its own oldest
        games without a move are dropped; if all of them have moves, TooManyGamesError. No game with a
        move is ever dropped here, and no other client's game at all."""
        with self._write(wait) as db:
            if session is not None:
                for (old,) in db.execute("SELECT game_id FROM live_games WHERE session = ?", (session,)).fetchall():
                    self._drop_live(old)
            mine = db.execute("SELECT COUNT(*) FROM live_games WHERE owner = ?", (owner,)).fetchone()[0]
            if mine >= per_client:
                idle = db.execute("SELECT game_id FROM live_games g WHERE owner = ? AND NOT EXISTS (SELECT 1 FROM "
                                  "live_actions a WHERE a.game_id = g.game_id) ORDER BY created LIMIT ?",
                                  (owner, mine - per_client + 1)).fetchall()
                if mine - len(idle) >= per_client:
                    raise TooManyGamesError(f"this client has {mine} games in play, the most one client may keep; "
                                            "finish one of them first")
                for (old,) in idle:
                    self._drop_live(old)
            if db.execute("SELECT COUNT(*) FROM live_games").fetchone()[0] >= most:
                raise StoreFullError(f"the server keeps {most} games in play, its most; try again later")
            db.execute("INSERT INTO live_games (game_id, session, created, spec, owner, touched) "
                       "VALUES (?, ?, ?, ?, ?, ?)",
                       (game_id, session, created, json.dumps(spec, separators=(",", ":")), owner, created))

    def add_action(self, game_id: str, n: int, kind: str, x: int, y: int, t: float, *,
                   wait: float | None = None) -> None:
        """Keep the n-th action (from 0) of a game in play."""
        with self._write(wait) as db:
            db.execute("INSERT OR REPLACE INTO live_actions (game_id, n, kind, x, y, t) VALUES (?, ?, ?, ?, ?, ?)",
                       (game_id, n, kind, x, y, t))
            db.execute("UPDATE live_games SET touched = ? WHERE game_id = ?", (time.time(), game_id))

    def set_live_hints(self, game_id: str, hints: int, *, wait: float | None = None) -> None:
        with self._write(wait) as db:
            db.execute("UPDATE live_games SET hints = ? WHERE game_id = ?", (hints, game_id))

    def drop_live(self, game_id: str, *, wait: float | None = None) -> None:
        """Forget a game in play that had no move (nothing of it is worth a record)."""
        with self._write(wait):
            self._drop_live(game_id)

    def live(self, game_id: str) -> dict | None:
        """A game in play: its spec, created (wall clock), hints and actions [kind, x, y, t]; or None."""
        with self._read() as db:
            r = db.execute("SELECT spec, created, hints, session, owner FROM live_games WHERE game_id = ?",
                           (game_id,)).fetchone()
            if r is None:
                return None
            acts = [list(a) for a in db.execute(
                "SELECT kind, x, y, t FROM live_actions WHERE game_id = ? ORDER BY n", (game_id,))]
        return {"spec": json.loads(r[0]), "created": r[1], "hints": r[2], "session": r[3], "owner": r[4],
                "actions": acts}

    def live_of_session(self, session: str) -> str | None:
        """The game a session has in play, if any."""
        with self._read() as db:
            r = db.execute("SELECT game_id FROM live_games WHERE session = ? ORDER BY created DESC LIMIT 1",
                           (session,)).fetchone()
        return None if r is None else r[0]

    def idle_game(self, owner: str | None, before: float) -> str | None:
        """The owner's least recently touched game in play with a move, if untouched since `before`; with
        `owner` None, anyone's game, with a move or without."""
        with self._read() as db:
            if owner is None:
                r = db.execute("SELECT game_id FROM live_games WHERE touched < ? ORDER BY touched LIMIT 1",
                               (before,)).fetchone()
            else:
                r = db.execute("SELECT game_id FROM live_games g WHERE owner = ? AND touched < ? AND EXISTS (SELECT 1 "
                               "FROM live_actions a WHERE a.game_id = g.game_id) ORDER BY touched LIMIT 1",
                               (owner, before)).fetchone()
        return None if r is None else r[0]

    def live_count(self) -> int:
        with self._read() as db:
            return int(db.execute("SELECT COUNT(*) FROM live_games").fetchone()[0])

    def _drop_live(self, game_id: str) -> None:
        self._db.execute("DELETE FROM live_games WHERE game_id = ?", (game_id,))
        self._db.execute("DELETE FROM live_actions WHERE game_id = ?", (game_id,))

    # --- finished games ----------------------------------------------------------------------------
    def best_times(self) -> list[dict]:
        """The fastest eligible win per level and mode (custom boards and practice have no best time)."""
        q = (f"SELECT level, mode, MIN(elapsed) AS elapsed, timer, id, finished_at, player, COUNT(*) AS wins "
             f"FROM games WHERE {ELIGIBLE} GROUP BY level, mode ORDER BY mode, level")
        with self._read() as db:
            rows = [dict(r) for r in db.execute(q)]
        rows.sort(key=lambda r: (r["mode"], LEVELS.index(r["level"])))
        return rows

    def top_times(self, n: int = 10) -> list[dict]:
        """The n fastest eligible wins of each mode and level, fastest first, with date and player."""
        q = (f"SELECT * FROM (SELECT mode, level, elapsed, timer, id, finished_at, player, ROW_NUMBER() OVER "
             f"(PARTITION BY mode, level ORDER BY elapsed, id) AS rank FROM games WHERE {ELIGIBLE}) WHERE rank <= ?")
        with self._read() as db:
            rows = [dict(r) for r in db.execute(q, (n,))]
        rows.sort(key=lambda r: (r["mode"], LEVELS.index(r["level"]), r["rank"]))
        return rows

    def statistics(self, style: str | None = None) -> list[dict]:
        """Per mode and level: games played (won or lost, practice not counted), won, win %, the current
        streak of wins and the longest; of one style only ("flag" or "nf") when `style` is given."""
        where, args = _style_filter(style)
        with self._read() as db:
            rows = db.execute(f"SELECT mode, level, status FROM games WHERE practice = 0 AND status IN {COUNTED}"
                              f"{where} ORDER BY id", args).fetchall()
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
        with self._read() as db:
            return db.execute("SELECT 1 FROM games WHERE mode = ? AND seed = ? LIMIT 1",
                                    (mode, seed)).fetchone() is not None

    def set_player(self, game_id: str, player: str) -> int:
        """Name the player of a finished game (given by its game id, which only its player holds)."""
        with self._write() as db:
            n = db.execute("UPDATE games SET player = ? WHERE game_id = ?", (player, game_id)).rowcount
        if n == 0:
            raise NotFoundError(f"no finished game {game_id!r}")
        return n

    def records(self, *, limit: int = 50, offset: int = 0, mode: str | None = None, level: str | None = None,
                status: str | None = None, style: str | None = None) -> tuple[list[dict], int]:
        """Summaries of finished games, newest first, and how many match in all."""
        if style is not None:
            _style_filter(style)  # (checks it)
        where, args = [], []
        for col, val in (("mode", mode), ("level", level), ("status", status), ("style", style)):
            if val is not None:
                where.append(f"{col} = ?")
                args.append(val)
        w = f" WHERE {' AND '.join(where)}" if where else ""
        with self._read() as db:
            total = db.execute(f"SELECT COUNT(*) FROM games{w}", args).fetchone()[0]
            rows = [dict(r) for r in db.execute(
                f"SELECT {', '.join(SUMMARY)} FROM games{w} ORDER BY id DESC LIMIT ? OFFSET ?", [*args, limit, offset])]
        return rows, int(total)

    def actions_of(self, record_id: int) -> tuple[int, int, int]:
        """A record's (width, height, actions), counted by SQLite: its record is not read into Python."""
        with self._read() as db:
            r = db.execute("SELECT width, height, json_array_length(record, '$.actions') FROM games WHERE id = ?",
                           (record_id,)).fetchone()
        if r is None:
            raise NotFoundError(f"no record with id {record_id}")
        return int(r[0]), int(r[1]), int(r[2] or 0)

    def record_text(self, record_id: int) -> str:
        """A record's `record` as the JSON text it is kept in (for a child process to read, so the
        server never parses a large record itself)."""
        with self._read() as db:
            r = db.execute("SELECT record FROM games WHERE id = ?", (record_id,)).fetchone()
        if r is None:
            raise NotFoundError(f"no record with id {record_id}")
        return r[0]

    def get(self, record_id: int) -> dict:
        """A finished game: SUMMARY's fields, its `record` and its recorded mouse `path` (None when the
        page sent none: a game of the terminal, or of a page before paths were recorded)."""
        with self._read() as db:
            r = db.execute(f"SELECT {', '.join(SUMMARY)}, record, (SELECT path FROM paths p WHERE p.id = games.id) "
                           "AS path FROM games WHERE id = ?", (record_id,)).fetchone()
        if r is None:
            raise NotFoundError(f"no record with id {record_id}")
        out = dict(r)
        out["record"] = json.loads(out["record"])
        out["path"] = None if out["path"] is None else decode_path(out["path"])
        return out

    # --- records by style, the tables of bests, recorded mouse paths -----------------------------
    def tables(self, style: str | None = None) -> list[dict]:
        """Per mode and level, over the wins eligible for best times (of one style when `style` is given):
        the best time, the best 3BV/s and the best IOE, each with its record id (ties: the earlier game)."""
        where, args = _style_filter(style)
        out = []
        with self._read() as db:
            for what, order in (("time", "elapsed ASC"), ("bbbv_per_second", "bbbv_per_second DESC"),
                                ("ioe", "ioe DESC")):
                q = (f"SELECT mode, level, id, elapsed, bbbv_per_second, ioe, player, style FROM (SELECT *, ROW_NUMBER() "
                     f"OVER (PARTITION BY mode, level ORDER BY {order}, id) AS rank FROM games WHERE {ELIGIBLE}{where}) "
                     "WHERE rank = 1")
                for r in db.execute(q, args):
                    out.append({"best": what, **dict(r)})
        out.sort(key=lambda r: (r["mode"], LEVELS.index(r["level"]), r["best"]))
        return out

    def set_path(self, game_id: str, path: list[int]) -> int:
        """Keep the mouse path its page recorded of a finished game (given by its game id, which only its
        player holds), once; returns the record id. NotFoundError for a game not filed; GameOverError
        when it has a path already."""
        blob = encode_path(path)
        with self._write() as db:
            r = db.execute("SELECT id FROM games WHERE game_id = ?", (game_id,)).fetchone()
            if r is None:
                raise NotFoundError(f"no finished game {game_id!r}; a mouse path is sent once its game is over")
            if db.execute("SELECT 1 FROM paths WHERE id = ?", (r[0],)).fetchone() is not None:
                raise GameOverError(f"record {r[0]} has its mouse path already; a path is sent once")
            db.execute("INSERT INTO paths (id, path) VALUES (?, ?)", (r[0], blob))
        return int(r[0])

    def record_of(self, game_id: str) -> int:
        """The record id of a finished game, by its game id."""
        with self._read() as db:
            r = db.execute("SELECT id FROM games WHERE game_id = ?", (game_id,)).fetchone()
        if r is None:
            raise NotFoundError(f"no finished game {game_id!r}; a mouse path is sent once its game is over")
        return int(r[0])

    def path_bytes(self) -> int:
        """The bytes the recorded mouse paths take in all (compressed, as kept)."""
        with self._read() as db:
            return int(db.execute("SELECT COALESCE(SUM(LENGTH(path)), 0) FROM paths").fetchone()[0])

    def _records_schema(self) -> None:
        """The recorded mouse paths' table (by record id: compressed, see paths.py) and the games' style
        column ("nf": no flag ever put on a mine, EVF's NF; or "flag"), added to a database made before
        them; games filed before styles were kept get theirs, once (a replay of each game's actions)."""
        with self._write() as db:
            db.execute("CREATE TABLE IF NOT EXISTS paths (id INTEGER PRIMARY KEY REFERENCES games (id), "
                       "path BLOB NOT NULL)")
            if "style" not in {r[1] for r in db.execute("PRAGMA table_info(games)")}:
                db.execute("ALTER TABLE games ADD COLUMN style TEXT")
        with self._read() as db:
            todo = [(r[0], r[1]) for r in db.execute("SELECT id, record FROM games WHERE style IS NULL")]
        if todo:
            styles = [(_style_or_flag(rec), rid) for rid, rec in todo]
            with self._write() as db:
                db.executemany("UPDATE games SET style = ? WHERE id = ?", styles)

    def count(self) -> int:
        with self._read() as db:
            return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
