"""What a 200 means: over real HTTP to the real server process on a real SQLite file, killed (SIGKILL)
and started again. A lone surrogate, another program holding the write lock, or a write the database
refuses loses no acknowledged move and makes no unacknowledged one; a read-only or damaged database
stops the server at its start with one line."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from sweeplab import generators
from sweeplab.play.store import Store

from .play_server import ROOT, process, restart

SEED = 31  # a beginner board (safe first click at 4, 4)


def board():
    return generators.make("uniform", 9, 9, 10, SEED, first_click="safe").board_for(4, 4)[0]


def post(url, path, body, **kw):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.post(url + path.lstrip("/"), content=raw, headers={"content-type": "application/json"},
                      timeout=60, **kw)


def new_game(url, **body) -> str:
    r = post(url, "api/games", {"mode": "safe", "seed": str(SEED), **body})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    assert post(url, f"api/games/{gid}/actions", {"kind": "open", "x": 4, "y": 4}).status_code == 200
    return gid


def hidden(url, gid, n):
    """n closed cells of the game (to flag), none of them a mine (to open later)."""
    b, s = board(), cells(url, gid)["cells"]
    out = [(i % 9, i // 9) for i, ch in enumerate(s) if ch == "#" and not b.flat_mines[i]][:n]
    assert len(out) == n
    return out


def flag(url, gid, x, y):
    return post(url, f"api/games/{gid}/actions", {"kind": "flag", "x": x, "y": y})


def cells(url, gid):
    r = httpx.get(url + f"api/games/{gid}", timeout=60)
    assert r.status_code == 200, r.text
    return r.json()


def test_a_lone_surrogate_is_refused_and_every_acknowledged_move_survives_a_kill(tmp_path):
    with process(tmp_path / "play.db") as box:
        url = box["url"]
        gid = new_game(url)
        spots = hidden(url, gid, 6)
        for x, y in spots[:3]:
            assert flag(url, gid, x, y).status_code == 200
        for body in (b'{"session": "\\udfff"}', b'{"player": "ab\\ud800"}', b'{"mode": "safe", "\\udfff": 1}'):
            r = post(url, "api/games", body)
            assert r.status_code == 400 and "surrogate" in r.json()["error"], r.text
        for x, y in spots[3:]:
            assert flag(url, gid, x, y).status_code == 200
        other = new_game(url, session="tab-2")  # new games are still made, and kept
        x, y = next(iter(board().mine_positions()))
        lost = post(url, f"api/games/{other}/actions", {"kind": "open", "x": x, "y": y}).json()
        assert lost["status"] == "lost" and lost["record_id"]
        url = restart(box)  # SIGKILL: only what was committed is there
        s = cells(url, gid)
        assert s["status"] == "playing" and s["cells"].count("F") == 6
        assert all(s["cells"][y * 9 + x] == "F" for x, y in spots)
        rec = httpx.get(url + f"api/records/{lost['record_id']}", timeout=60).json()
        assert rec["status"] == "lost" and len(rec["record"]["actions"]) == 2


def test_a_held_write_lock_is_waited_for_then_a_503_and_nothing_is_lost(tmp_path):
    db = tmp_path / "play.db"
    with process(db) as box:
        url = box["url"]
        gid = new_game(url)
        (a, b, c) = hidden(url, gid, 3)
        before = cells(url, gid)["cells"]
        other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")  # another program takes the write lock and keeps it
        try:
            r = flag(url, gid, *a)
            assert r.status_code == 503 and "locked by another program" in r.json()["error"], r.text
            assert post(url, "api/games", {"mode": "safe"}).status_code == 503
            assert httpx.get(url + "api/records", timeout=60).status_code == 200  # reading goes on
            assert cells(url, gid)["cells"] == before  # the move answered 503 was not made
        finally:
            other.execute("ROLLBACK")
        # a lock held for less than the store waits: the move waits for it and is made
        other.execute("BEGIN IMMEDIATE")
        threading.Timer(0.5, lambda: other.execute("ROLLBACK")).start()
        assert flag(url, gid, *b).status_code == 200
        time.sleep(0.6)
        assert flag(url, gid, *c).status_code == 200
        other.close()
        url = restart(box)
        s = cells(url, gid)["cells"]
        assert s[a[1] * 9 + a[0]] == "#" and s[b[1] * 9 + b[0]] == "F" and s[c[1] * 9 + c[0]] == "F"


def test_a_move_the_database_refuses_is_not_made_and_a_finished_game_is_filed_later(tmp_path):
    db = tmp_path / "play.db"
    with process(db) as box:
        url = box["url"]
        gid = new_game(url)
        before = cells(url, gid)
        other = sqlite3.connect(db, isolation_level=None)  # a real refusal, by SQLite itself
        other.execute("CREATE TRIGGER refuse BEFORE INSERT ON live_actions BEGIN SELECT RAISE(ABORT, 'refused'); END")
        x, y = next(iter(board().mine_positions()))
        r = post(url, f"api/games/{gid}/actions", {"kind": "open", "x": x, "y": y})  # a losing click
        assert r.status_code == 503 and "nothing was changed" in r.json()["error"], r.text
        assert cells(url, gid) | {"timer": 0, "elapsed": 0} == before | {"timer": 0, "elapsed": 0}  # still in play
        other.execute("DROP TRIGGER refuse")
        url = restart(box)
        assert cells(url, gid)["cells"] == before["cells"]  # the same after a restart

        # the losing click taken, but filing the finished game refused: the move is kept, and said so
        other.execute("CREATE TRIGGER refuse BEFORE INSERT ON games BEGIN SELECT RAISE(ABORT, 'refused'); END")
        r = post(url, f"api/games/{gid}/actions", {"kind": "open", "x": x, "y": y})
        assert r.status_code == 503 and "moves are kept" in r.json()["error"], r.text
        assert httpx.get(url + f"api/games/{gid}", timeout=60).status_code == 503  # not filed yet
        other.execute("DROP TRIGGER refuse")
        s = cells(url, gid)  # asked again: filed now
        assert s["status"] == "lost" and s["record_id"]
        other.close()
        url = restart(box)
        rec = httpx.get(url + f"api/records/{s['record_id']}", timeout=60).json()
        assert rec["status"] == "lost" and len(rec["record"]["actions"]) == 2


def sweeplab_play(db, *, prefix=()):
    return subprocess.run([*prefix, sys.executable, "-m", "sweeplab", "play", "--no-browser", "--db", str(db)],
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))


def a_database_with_games(path: Path) -> None:
    store = Store(path)
    for i in range(200):
        store.add({"game_id": f"g{i}", "finished_at": i + 1.0, "mode": "safe", "level": "beginner", "width": 9,
                   "height": 9, "mines": 10, "seed": i, "seed_private": 0, "marks": 1, "hints": 0, "status": "won",
                   "elapsed": 10.0, "timer": 11, "bbbv": 5, "bbbv_per_second": 0.5, "ioe": 1.0,
                   "record": {"note": "x" * 400}})
    store.close()


def test_a_damaged_database_stops_the_server_at_its_start_in_one_line(tmp_path):
    db = tmp_path / "play.db"
    a_database_with_games(db)
    raw = bytearray(db.read_bytes())
    page = 4096
    assert len(raw) > 8 * page
    raw[3 * page:5 * page] = bytes(range(256)) * (2 * page // 256)  # two pages of the games table overwritten
    db.write_bytes(bytes(raw))
    r = sweeplab_play(db)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "damaged" in r.stderr, r.stderr


def test_a_read_only_database_stops_the_server_at_its_start_in_one_line(tmp_path):
    db = tmp_path / "play.db"
    a_database_with_games(db)
    db.chmod(0o444)
    # root writes to any file whatever its mode, by its capability to pass over file modes: without it
    # (setpriv drops it for the command), the file's mode holds for root too
    prefix = ("setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--") if os.geteuid() == 0 else ()
    r = sweeplab_play(db, prefix=prefix)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "read-only" in r.stderr, r.stderr
