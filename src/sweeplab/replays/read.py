"""Reading replay files (AVF, RMV, MVF, EVF) into a sweeplab Board and a Game with its timed action log.

ms-toollib parses the binary formats (in a child process: see _toollib_worker); sweeplab turns
the mouse events into actions by the community's click rules (mouse.py), plays them through its
own engine, and computes 3BV, ZiNi and the click counts with its own code. `Replay.check()` lists
every figure where sweeplab and ms-toollib disagree.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from ..board import Board
from ..errors import ChildError, ReplayError
from ..extras import install_hint
from ..game import Game
from ..stats import game_stats, label_openings, rqp, zini
from ..userfile import read_user_file
from .child import Child
from .mouse import KINDS, MouseEvent, play_events

FORMATS = {".avf": "avf", ".rmv": "rmv", ".mvf": "mvf", ".evf": "evf"}
PROGRAMS = {"avf": "Minesweeper Arbiter", "rmv": "Viennasweeper", "mvf": "Minesweeper Clone", "evf": "Metasweeper"}
LEVELS = {3: "beginner", 4: "intermediate", 5: "expert"}
WORKER = Path(__file__).with_name("_toollib_worker.py")
TIMEOUT = 60.0  # seconds one file may take in ms-toollib before it is given up as unreadable
MEMORY = 2 ** 30  # bytes of address space the ms-toollib child may use
MAX_BYTES = 16 * 1024 * 1024  # the longest real replays are a few hundred kB


class _Worker:
    """The ms-toollib child (child.py): bounded memory, a deadline per file, started again after it dies."""

    def __init__(self):
        self._child = Child([sys.executable, str(WORKER)], memory=MEMORY)

    def read(self, fmt: str, data: bytes, features: bool, timeout: float = TIMEOUT) -> dict:
        try:
            import ms_toollib  # noqa: F401  (only to say clearly when it is missing)
        except ImportError:
            raise ReplayError("reading replay files needs ms-toollib; install it with: "
                              f"{install_hint('replays')}") from None
        try:
            return self._child.ask((fmt, data, features), timeout=timeout)
        except ChildError as e:
            raise ReplayError(f"ms-toollib stopped on it: {e} (a truncated, malformed or crafted file)") from None

    def close(self) -> None:
        self._child.close()


_WORKER = _Worker()
atexit.register(_WORKER.close)


@dataclass
class Replay:
    """One replay file, read: its metadata, the board, and the game played again in sweeplab's engine.

    `extra` holds the clicks the community counts that the engine has no action for (off the
    board; chords before the first opening); `toollib` holds ms-toollib's own figures.
    """

    name: str
    format: str
    program: str
    player: str
    country: str
    started: datetime | None
    level: str
    mode: int
    board: Board
    game: Game
    cell: int
    time: float
    checksum: bytes
    clicks: list = field(repr=False)
    extra: dict = field(default_factory=dict)
    zero_chords: list = field(default_factory=list)
    lost_chords: list = field(default_factory=list)
    toollib: dict = field(default_factory=dict, repr=False)

    @property
    def won(self) -> bool:
        return self.game.status == "won"

    def stats(self) -> dict:
        """The standard figures, computed by sweeplab (time is the file's recorded time)."""
        gs = game_stats(self.game)
        left, right, chords = (gs.left_clicks + self.extra["left"], gs.right_clicks + self.extra["right"],
                               gs.chords + self.extra["chord"])
        clicks = left + right + chords
        t = self.time
        solved = gs.bbbv_solved
        return {
            "file": self.name, "format": self.format, "program": self.program, "player": self.player,
            "country": self.country, "date": self.started.isoformat(timespec="seconds") if self.started else None,
            "level": self.level, "width": self.board.width, "height": self.board.height,
            "mines": self.board.mine_count, "won": self.won, "time": round(t, 3), "bbbv": gs.bbbv,
            "bbbv_solved": solved, "bbbv_per_second": solved / t if t > 0 else 0.0, "left": left, "right": right,
            "chords": chords, "clicks": clicks, "ioe": solved / clicks if clicks else 0.0,
            "rqp": rqp(t, solved) if solved else None, "zini": zini(self.board), "checksum": self.checksum_state,
        }

    @property
    def checksum_state(self) -> str:
        """'none' when the file carries no checksum; 'placeholder' for a checksum of identical bytes (a
        test build's); else 'present, unverifiable': the programs key their checksums with a secret that
        no public specification gives, so no independent reader can check them."""
        if not self.checksum:
            return "none"
        if len(set(self.checksum)) == 1:
            return "placeholder"
        return "present, unverifiable"

    def partly_open_openings(self) -> int:
        """Openings with some of their zeros open and some closed (a flag stopped the cascade)."""
        b = self.game.board
        assert b is not None  # a replay's board is laid
        labels, _ = label_openings(b.flat_mines, b.flat_numbers, b.neighbours)
        zeros = (labels > 0) & (b.flat_numbers == 0) & ~b.flat_mines
        opened = np.array(self.game.cell_codes()).reshape(-1) >= 0
        return len(set(labels[zeros & opened].tolist()) & set(labels[zeros & ~opened].tolist()))

    def check(self, stats: dict | None = None) -> list[str]:
        """Every figure where sweeplab's reading disagrees with ms-toollib's; [] when they agree.

        ZiNi is a greedy count and the two break ties differently (docs/replays.md), so a ZiNi
        difference is listed apart, prefixed 'zini (ties)'."""
        t, s, out = self.toollib, stats or self.stats(), []
        pairs = (("3BV", s["bbbv"], t["bbbv"]), ("left clicks", s["left"], t["left"]),
                 ("right clicks", s["right"], t["right"]), ("chords", s["chords"], t["double"]),
                 ("won", s["won"], t["is_completed"]), ("3BV solved", s["bbbv_solved"], t["bbbv_solved"]))
        for name, ours, theirs in pairs:
            if ours != theirs and name == "3BV solved" and self.lost_chords:
                x, y, when = self.lost_chords[-1]
                out.append(f"3BV solved: sweeplab {ours}, ms-toollib {theirs}: the game was lost by a chord at "
                           f"{x},{y} ({when:.3f} s) beside a wrong flag on a 0, which ms-toollib counts as open; "
                           "sweeplab counts an opening only when all its zeros are open")
            elif ours != theirs and name == "3BV solved" and theirs > t["bbbv"]:
                out.append(f"3BV solved, ms-toollib past its own 3BV: sweeplab {ours}, ms-toollib {theirs} of the "
                           f"board's {t['bbbv']}; a count past the total cannot be right")
            elif ours != theirs and name == "3BV solved" and self.partly_open_openings():
                out.append(f"3BV solved: sweeplab {ours}, ms-toollib {theirs}: an opening is partly open (flags "
                           "stopped its cascade), where ms-toollib's count can differ; sweeplab counts an opening "
                           "only when all its zeros are open")
            elif ours != theirs:
                out.append(f"{name}: sweeplab {ours}, ms-toollib {theirs}")
        ours = np.array(self.game.cell_codes()) >= 0  # open cells (numbers)
        theirs = np.array(t["game_board"]) < 10
        if not np.array_equal(ours, theirs):
            out.append(f"open cells: {int((ours != theirs).sum())} differ")
        if self.game.status in ("won", "lost") and abs(self.game.elapsed - self.time) > 0.011:
            out.append(f"time: engine {self.game.elapsed:.3f} s, file {self.time:.3f} s")
        for x, y, when in self.zero_chords:
            out.append(f"chord on a 0 at {x},{y} ({when:.3f} s): ms-toollib and WinMine open its closed "
                       "neighbours, sweeplab's engine chords on 1-8 only")
        if s["zini"] != t["zini"]:
            out.append(f"zini (ties): sweeplab {s['zini']}, ms-toollib {t['zini']}")
        return out


def replay_format(name: str) -> str:
    fmt = FORMATS.get(Path(name).suffix.lower())
    if fmt is None:
        raise ReplayError(f"{name}: unknown replay format {Path(name).suffix or '(no extension)'!r}; "
                          f"allowed: {', '.join(FORMATS)}")
    return fmt


def read_file(path, name: str | None = None) -> bytes:
    """The bytes of a replay file: a regular file of at most MAX_BYTES, read no further than that (a
    device such as /dev/zero, a pipe or a folder is refused before anything is read)."""
    return read_user_file(path, what="a replay", limit=MAX_BYTES, error=ReplayError, name=name)


def read_replay(source: str | os.PathLike | bytes, *, name: str | None = None, features: bool = False,
                timeout: float = TIMEOUT, _worker: _Worker | None = None) -> Replay:
    """Read one replay file (a path, or its bytes with `name` giving the extension) into a Replay.

    `features` also asks ms-toollib for its own click analysis (high_risk_guess, needless_guess,
    pluck), kept in `toollib` for comparison with sweeplab's judgement. `timeout`: seconds ms-toollib
    may take on it. A file whose board and clicks would need more memory than the ms-toollib child
    has is refused before it is analysed.
    """
    if isinstance(source, (bytes, bytearray)):
        if name is None:
            raise ReplayError("give the file name with its bytes, so the format is known (e.g. name='game.evf')")
        data = bytes(source)
    else:
        name = name or str(source)
        data = read_file(source, name)
    fmt = replay_format(name)
    if len(data) > MAX_BYTES:
        raise ReplayError(f"{name}: {len(data)} bytes is too large for a replay; at most {MAX_BYTES}")
    if len(data) < 8:
        raise ReplayError(f"{name}: {len(data)} bytes is too short for a replay file ({fmt.upper()})")
    worker = _worker or _WORKER
    try:
        raw = worker.read(fmt, data, features, timeout)
    except ReplayError as e:
        if not features:
            raise ReplayError(f"{name}: {e}") from None
        try:  # ms-toollib's own click analysis may stop where its reading does not: read without it
            raw = worker.read(fmt, data, False, timeout)
        except ReplayError:
            raise ReplayError(f"{name}: {e}") from None
        raw["toollib_analysis_failed"] = str(e)
    if "refused" in raw:
        raise ReplayError(f"{name}: refused before reading: {raw['refused']}")
    if "error" in raw:
        raise ReplayError(f"{name}: not a readable {fmt.upper()} replay ({raw['error']})")
    try:
        return _build(name, fmt, raw)
    except ReplayError:
        raise
    except (ValueError, IndexError, KeyError, TypeError) as e:  # what ms-toollib read does not make a game
        raise ReplayError(f"{name}: not a consistent {fmt.upper()} replay ({e})") from None


def _notes(raw: dict) -> dict:
    """ms-toollib's comments on events, keyed by (time, kind, pixel x, pixel y)."""
    kinds, times, xs, ys = (np.frombuffer(raw["events"][0], np.uint8), np.frombuffer(raw["events"][1], np.float64),
                            np.frombuffer(raw["events"][2], np.int32), np.frombuffer(raw["events"][3], np.int32))
    return {(float(times[i]), KINDS[int(kinds[i])], int(xs[i]), int(ys[i])): text for i, text in raw.get("notes", [])}


def toollib_analysis_later(path) -> Callable[[], dict]:
    """Start ms-toollib's own click analysis (pluck, high_risk_guess, needless_guess) of a file in a process
    of its own, beside whatever this one does meanwhile; the function returned waits for it and gives
    {"pluck", "notes"} (pluck None and "toollib_analysis_failed" when ms-toollib stopped on it)."""
    box: dict = {}
    worker = _Worker()

    def run():
        try:
            box["raw"] = worker.read(replay_format(str(path)), read_file(path), True)
        except ReplayError as e:
            box["raw"] = {"error": str(e)}
        finally:
            worker.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def result() -> dict:
        thread.join()
        raw = box["raw"]
        if "error" in raw or "refused" in raw:
            return {"pluck": None, "notes": {}, "toollib_analysis_failed": raw.get("error") or raw["refused"]}
        return {"pluck": raw["pluck"], "notes": _notes(raw)}
    return result


def _build(name: str, fmt: str, raw: dict) -> Replay:
    mines = np.array(raw["board"], dtype=np.int64) == -1
    if mines.ndim != 2 or mines.size == 0 or raw["pix_size"] <= 0:
        raise ReplayError(f"{name}: the file's board is empty or has no cell size; not a complete {fmt.upper()} replay")
    board = Board(mines)
    kinds, times, xs, ys = (np.frombuffer(raw["events"][0], np.uint8), np.frombuffer(raw["events"][1], np.float64),
                            np.frombuffer(raw["events"][2], np.int32), np.frombuffer(raw["events"][3], np.int32))
    press = np.flatnonzero(kinds != 0)  # mouse moves change nothing in the game
    clicks = [MouseEvent(KINDS[k], t, x, y) for k, t, x, y in zip(kinds[press].tolist(), times[press].tolist(),
                                                                 xs[press].tolist(), ys[press].tolist())]
    played = play_events(board, clicks, raw["pix_size"])
    start = raw["start_time"]
    try:
        started = datetime.fromtimestamp(start / 1e6, tz=UTC) if start > 0 else None
    except (OverflowError, OSError, ValueError):
        started = None
    toollib = {k: v for k, v in raw.items() if k not in ("events", "notes")}
    toollib["notes"] = _notes(raw)
    return Replay(name=Path(name).name, format=fmt, program=raw["software"] or PROGRAMS[fmt],
                  player=raw["player_identifier"], country=raw["country"], started=started,
                  level=LEVELS.get(raw["level"], "custom"), mode=raw["mode"], board=board, game=played.game,
                  cell=raw["pix_size"], time=float(raw["rtime"]), checksum=raw["checksum"], clicks=clicks,
                  extra=played.extra, zero_chords=played.zero_chords, lost_chords=played.lost_chords,
                  toollib=toollib)


def replay_paths(args) -> tuple[list[Path], list[str]]:
    """Files named by `args`: files, folders (every replay file under them) and globs. Returns the files in
    order, and one line for each argument that names none."""
    import glob
    files, missing = [], []
    for arg in args:
        p = Path(arg)
        if p.is_dir():
            found = sorted(q for q in p.rglob("*") if q.suffix.lower() in FORMATS and q.is_file())
            if not found:
                missing.append(f"{arg}: no replay files ({', '.join(FORMATS)}) in this folder")
            files += found
        elif p.exists():
            files.append(p)
        elif any(c in arg for c in "*?["):
            found = sorted(Path(q) for q in glob.glob(arg, recursive=True) if Path(q).is_file())
            if not found:
                missing.append(f"{arg}: no file matches this pattern")
            files += found
        else:
            missing.append(f"{arg}: no such file or folder")
    return files, missing


def read_many(paths, *, features: bool = False, workers: int = 2):
    """Yield (path, Replay or ReplayError) for each path, in order; a bad file does not stop the rest.

    `workers` ms-toollib processes parse files while this one plays the previous ones through the engine."""
    import queue
    from concurrent.futures import ThreadPoolExecutor

    free: queue.Queue = queue.Queue()
    extra = [_Worker() for _ in range(max(0, workers - 1))]
    for w in [_WORKER, *extra]:
        free.put(w)

    def one(p):
        w = free.get()
        try:
            return p, read_replay(p, features=features, _worker=w)
        except ReplayError as e:
            return p, e
        finally:
            free.put(w)

    try:
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            yield from pool.map(one, paths)
    finally:
        for w in extra:
            w.close()
