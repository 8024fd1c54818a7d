"""The real server process: SIGKILL loses no finished game; many games from many clients at once;
`sweeplab play` prints its address and stops cleanly on Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import httpx

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
    r = client.post("/api/games", json={"mode": "safe", "seed": seed})
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


def test_sigkill_loses_no_finished_game_and_many_clients_play_at_once(tmp_path):
    db = tmp_path / "kill.db"
    proc, url = start([sys.executable, "-m", "sweeplab.play.server", str(db), "0"])
    try:
        def player(k):  # one "tab" each: its own connection, several games, some left unfinished
            with httpx.Client(base_url=url, timeout=30) as c:
                done = [play_one(c, 100 * k + j, win=(j % 2 == 0)) for j in range(4)]
                c.post("/api/games", json={"mode": "safe", "seed": k})  # started, never finished
                return done

        with ThreadPoolExecutor(8) as pool:
            finished = [g for batch in pool.map(player, range(8)) for g in batch]
        assert len({rid for _, rid, _ in finished}) == 32
    finally:
        os.kill(proc.pid, signal.SIGKILL)  # no shutdown, no flush: what was committed must be there
        proc.wait(10)
        proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL
    store = Store(db)
    rows, total = store.records(limit=500)
    assert total == 32
    assert {(r["game_id"], r["id"], r["status"]) for r in rows} == set(finished)
    assert store.get(finished[0][1])["record"]["actions"]
    store.close()


def test_cli_prints_address_serves_and_stops_on_ctrl_c(tmp_path):
    db = tmp_path / "cli.db"
    proc, url = start([sys.executable, "-m", "sweeplab", "play", "--no-browser", "--db", str(db)])
    try:
        r = httpx.get(url + "api/modes", timeout=30)
        assert r.status_code == 200 and r.json()["default"] in ("noguess", "safe")
        assert "Minesweeper" in httpx.get(url, timeout=30).text
    finally:
        proc.send_signal(signal.SIGINT)
        out = proc.communicate(timeout=30)[0]
    assert proc.returncode == 0 and "stopped" in out
    assert db.exists()


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
