"""The real server process: SIGKILL loses no finished game and no game in play; many games from many
clients at once; `sweeplab play` prints its address and stops cleanly on Ctrl-C and on SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from sweeplab import generators
from sweeplab.play.store import Store, default_db_path


def board_for(seed, x, y):
    return generators.make("uniform", 9, 9, 10, seed, first_click="safe").board_for(x, y)[0]


def start(args, env=None):
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    line = p.stdout.readline()
    assert "http://127.0.0.1:" in line, line + p.stdout.read()
    return p, line[line.index("http://"):].split()[0]


def play_one(client: httpx.Client, seed: int, win: bool) -> tuple[str, int, str]:
    r = client.post("/api/games", json={"mode": "safe", "seed": str(seed)})
    gid = r.json()["id"]
    s = client.post(f"/api/games/{gid}/actions", json={"kind": "open", "x": 4, "y": 4}).json()
    b = board_for(seed, 4, 4)
    if win:
        for y in range(9):
            for x in range(9):
                if not b.is_mine(x, y) and s["status"] == "playing":
                    s = client.post(f"/api/games/{gid}/actions", json={"kind": "open", "x": x, "y": y}).json()
    else:
        x, y = b.mine_positions()[0]
        s = client.post(f"/api/games/{gid}/actions", json={"kind": "open", "x": x, "y": y}).json()
    assert s["status"] == ("won" if win else "lost")
    return gid, s["record_id"], s["status"]


@pytest.mark.slow
def test_sigkill_loses_no_finished_game_and_many_clients_play_at_once(tmp_path):
    db = tmp_path / "kill.db"
    proc, url = start([sys.executable, "-m", "sweeplab.play.server", str(db), "0"])
    try:
        def player(k):  # one "tab" each: its own connection, several games, some left unfinished
            with httpx.Client(base_url=url, timeout=30) as c:
                done = [play_one(c, 100 * k + j, win=(j % 2 == 0)) for j in range(4)]
                g = c.post("/api/games", json={"mode": "safe", "seed": str(k)}).json()  # left unfinished
                c.post(f"/api/games/{g['id']}/actions", json={"kind": "flag", "x": 1, "y": 2})
                return done + [(g["id"], None, "playing")]

        with ThreadPoolExecutor(8) as pool:
            finished = [g for batch in pool.map(player, range(8)) for g in batch]
        assert len({rid for _, rid, _ in finished if rid}) == 32
    finally:
        os.kill(proc.pid, signal.SIGKILL)  # no shutdown, no flush: what was committed must be there
        proc.wait(10)
        proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL
    store = Store(db)
    rows, total = store.records(limit=500)
    assert total == 32
    assert {(r["game_id"], r["id"], r["status"]) for r in rows} == {g for g in finished if g[1]}
    assert store.get(finished[0][1])["record"]["actions"]
    for gid, _, _ in (g for g in finished if not g[1]):  # the games in play, with their moves
        assert store.live(gid)["actions"] == [["flag", 1, 2, store.live(gid)["actions"][0][3]]]
    store.close()


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_cli_prints_address_serves_and_stops_cleanly(tmp_path, stop):
    db = tmp_path / "cli.db"
    proc, url = start([sys.executable, "-m", "sweeplab", "play", "--no-browser", "--db", str(db)])
    try:
        r = httpx.get(url + "api/modes", timeout=30)
        assert r.status_code == 200 and r.json()["default"] in ("noguess", "safe")
        assert "Minesweeper" in httpx.get(url, timeout=30).text
        g = httpx.post(url + "api/games", json={"mode": "safe"}, timeout=30).json()
        httpx.post(url + f"api/games/{g['id']}/actions", json={"kind": "open", "x": 0, "y": 0}, timeout=30)
    finally:
        proc.send_signal(stop)
        out = proc.communicate(timeout=30)[0]
    assert proc.returncode == 0 and "sweeplab play: stopped" in out, out
    assert db.exists() and not (tmp_path / "cli.db-wal").exists() and not (tmp_path / "cli.db-shm").exists()
    store = Store(db)
    assert len(store.live(g["id"])["actions"]) == 1  # the game in play is kept for the next start
    store.close()


@pytest.mark.slow
def test_cli_bad_db_path_is_one_line_and_exit_2(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    r = subprocess.run([sys.executable, "-m", "sweeplab", "play", "--no-browser", "--db", str(blocker / "x.db")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--db" in r.stderr


def test_default_db_is_in_the_users_data_directory(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_db_path() == tmp_path / "sweeplab" / "sweeplab.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_db_path() == tmp_path / "home" / ".local" / "share" / "sweeplab" / "sweeplab.db"


def test_listening_socket_is_tcp_so_responses_are_not_delayed():
    """asyncio sets TCP_NODELAY only on sockets whose proto is TCP; without it a JSON response
    (headers and body written apart) waits ~40 ms for a delayed ACK."""
    import socket

    from sweeplab.play.server import bind
    s = bind("127.0.0.1", 0)
    try:
        assert s.proto == socket.IPPROTO_TCP
    finally:
        s.close()
