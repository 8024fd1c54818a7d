"""Heavy work never stalls another player, and every input is bounded: the real server process on a real
SQLite file, attacked as one client would (analyses, long games, large replays, dense boards, many games
from this machine)."""

from __future__ import annotations

import signal
import socket
import sqlite3
import threading
import time

import httpx
import pytest

from sweeplab.play.connections import HEADER_SECONDS
from sweeplab.play.games import Hub, most_actions
from sweeplab.play.replays import MAX_RECORD_ANSWER, answer_size
from sweeplab.play.store import Store

from .play_server import running, start, stop

# a 100x100 position whose analysis runs past any time limit (rows of 2s on hidden cells, every fourth row)
SLOW = "\n".join("".join("2" if y % 4 == 2 and x % 3 == 0 else "#" for x in range(100)) for y in range(100))
QUICK = {"text": "1#\n##", "mines": 1}


def slow(seconds: float) -> dict:
    return {"text": SLOW, "mines": 2000, "time_limit": seconds}


def client(url: str, address: str, timeout: float = 60) -> httpx.Client:
    """A client from one loopback address (each is a client of its own to the analysis queue)."""
    return httpx.Client(base_url=url, timeout=timeout, transport=httpx.HTTPTransport(local_address=address))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server for the tests that do not stop it: 3 games in play per client, a 3 s deadline for a
    dense first click."""
    db = tmp_path_factory.mktemp("bounds") / "play.db"
    proc, url = start(db, 0, "--per-client", "3", "--board-seconds", "3")
    with client(url, "127.0.0.9", timeout=900) as c:  # the analysis worker started (its kernels loaded)
        assert c.post("/api/analyse", json=QUICK).status_code == 200
    yield url, db
    stop(proc)


def test_analyses_past_the_queue_are_refused_and_a_stop_ends_the_server_within_seconds(tmp_path):
    proc, url = start(tmp_path / "play.db")
    try:
        with client(url, "127.0.0.2", timeout=900) as c:
            assert c.post("/api/analyse", json=QUICK).status_code == 200  # the worker started
        answers: dict[int, httpx.Response] = {}

        def analyse(i: int) -> None:
            with client(url, f"127.0.0.{10 + i}") as c:
                answers[i] = c.post("/api/analyse", json=slow(30))

        threads = [threading.Thread(target=analyse, args=(i,)) for i in range(5)]  # one running, 4 waiting
        for t in threads:
            t.start()
            time.sleep(0.3)
        with client(url, "127.0.0.30") as c:
            refused = c.post("/api/analyse", json=QUICK)
        assert refused.status_code == 503 and "4 analyses are waiting" in refused.json()["error"]
        with client(url, "127.0.0.12") as c:  # a client whose analysis waits already
            twice = c.post("/api/analyse", json=QUICK)
        assert twice.status_code == 429 and "one at a time" in twice.json()["error"]
        with httpx.Client(base_url=url, timeout=10) as c:  # the game goes on meanwhile
            t0 = time.perf_counter()
            assert c.post("/api/games", json={"mode": "safe"}).status_code == 201
            assert time.perf_counter() - t0 < 2
        t0 = time.perf_counter()
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
        assert time.perf_counter() - t0 < 5
        for t in threads:
            t.join(10)
        assert sorted(a.status_code for a in answers.values()) == [503] * 5
        assert all("the server is stopping" in a.json()["error"] for a in answers.values())
    finally:
        stop(proc)


def test_an_analysis_whose_client_goes_is_dropped(server):
    url, _ = server
    with client(url, "127.0.0.3", timeout=1.5) as c, pytest.raises(httpx.ReadTimeout):
        c.post("/api/analyse", json=slow(30))  # the client gives up after 1.5 s and closes its connection
    t0 = time.perf_counter()
    with client(url, "127.0.0.3") as c:  # the same client again: its first job is gone, and the worker free
        r = c.post("/api/analyse", json=QUICK)
        while r.status_code == 429 and time.perf_counter() - t0 < 10:  # (the server sees the client go soon after)
            time.sleep(0.1)
            r = c.post("/api/analyse", json=QUICK)
    assert r.status_code == 200 and r.json()["status"] == "ok"
    assert time.perf_counter() - t0 < 15  # not the 28 s the first job had left


def test_a_game_past_its_most_actions_is_refused(server):
    url, db = server
    store = Store(db)  # the server's own file: the game is played here, then asked of the server
    hub = Hub(store)
    pg = hub.new(mode="safe", level="beginner", seed="5", client="192.0.2.1")
    most = most_actions(9, 9)
    for i in range(most):
        hub.act(pg, "flag", 0, i % 2)  # two flags toggled on and off: a game that never ends
    store.close()
    with httpx.Client(base_url=url) as c:
        r = c.post(f"/api/games/{pg.id}/actions", json={"kind": "flag", "x": 1, "y": 1})
        assert r.status_code == 400
        assert f"{most:,} actions" in r.json()["error"] and "start a new game" in r.json()["error"]
        assert c.get(f"/api/games/{pg.id}").json()["cells"][10] == "#"  # the move was not made


def test_a_replay_past_its_answer_cap_is_refused_and_one_within_is_answered(server):
    url, db = server
    store = Store(db)
    hub = Hub(store)
    # a record from before games had their most actions: flags toggled on the game itself, past the cap
    big = hub.new(mode="safe", level="custom", width=30, height=24, mines=10, seed="7", client="192.0.2.2")
    g = big.game
    g.open(15, 12)
    mines = [(x, y) for y in range(24) for x in range(30) if g.board.mines[y, x]]
    while answer_size(30, 24, len(g.log)) <= MAX_RECORD_ANSWER:
        g.flag(*mines[0])
    assert len(g.log) > most_actions(30, 24)
    assert answer_size(30, 24, most_actions(30, 24)) <= MAX_RECORD_ANSWER  # the largest game played now fits
    g.open(*mines[1])
    small = hub.new(mode="safe", level="beginner", seed="8", client="192.0.2.2")
    small.game.open(4, 4)
    small.game.open(*next((x, y) for y in range(9) for x in range(9) if small.game.board.mines[y, x]))
    big_id, small_id = hub.file(big)["record_id"], hub.file(small)["record_id"]
    store.close()
    with httpx.Client(base_url=url, timeout=30) as c:
        r = c.get(f"/api/records/{big_id}/replay")
        assert r.status_code == 413
        assert "too many to show move by move" in r.json()["error"] and f"{len(g.log):,} moves" in r.json()["error"]
        r = c.get(f"/api/records/{small_id}/replay")
        assert r.status_code == 200 and len(r.json()["frames"]) == len(small.game.log) + 1
        assert r.json()["frames"][-1]["status"] == "lost"


def test_this_machine_is_never_locked_out_of_a_new_game(server):
    url, db = server
    ids = []
    for i in range(6):  # twice the cap, each game past its first click, from several loopback addresses
        with client(url, f"127.0.{i}.1") as c:
            g = c.post("/api/games", json={"mode": "safe"})
            assert g.status_code == 201, g.text
            opened = c.post(f"/api/games/{g.json()['id']}/actions", json={"kind": "open", "x": 0, "y": 0})
            assert opened.status_code == 200 and opened.json()["status"] == "playing"
            ids.append(g.json()["id"])
    with sqlite3.connect(db) as con:  # all of them one client: at most 3 in play, the newest
        live = {r[0] for r in con.execute("SELECT game_id FROM live_games WHERE owner = 'loopback'")}
        quit_ = {r[0] for r in con.execute("SELECT game_id FROM games WHERE status = 'quit'")}
    assert live == set(ids[3:])
    assert set(ids[:3]) <= quit_  # the stalest gave way, filed as quit


def test_idle_games_give_way_under_the_servers_cap(tmp_path):
    db = tmp_path / "play.db"
    store = Store(db)
    with running(store, hub=Hub(store, most_live=2)) as (url, app), httpx.Client(base_url=url) as c:
        first = [c.post("/api/games", json={"mode": "safe", "session": f"tab-{i}"}).json()["id"] for i in range(2)]
        full = c.post("/api/games", json={"mode": "safe", "session": "tab-2"})
        assert full.status_code == 503 and "2 games in play" in full.json()["error"]
        with sqlite3.connect(db) as con:  # the first game untouched for two hours
            con.execute("UPDATE live_games SET touched = touched - 7200 WHERE game_id = ?", (first[0],))
        assert c.post("/api/games", json={"mode": "safe", "session": "tab-2"}).status_code == 201
        assert c.get(f"/api/games/{first[0]}").status_code == 404
        assert c.get(f"/api/games/{first[1]}").status_code == 200
    store.close()


def test_a_dense_no_guess_first_click_runs_in_its_child_and_the_other_player_is_answered_meanwhile(server):
    url, _ = server
    with httpx.Client(base_url=url, timeout=900) as c:
        other = c.post("/api/games", json={"mode": "safe", "level": "expert", "seed": "3"}).json()["id"]
        c.post(f"/api/games/{other}/actions", json={"kind": "open", "x": 15, "y": 8})
        warm = c.post("/api/games", json={"mode": "noguess", "level": "custom", "width": 30, "height": 20,
                                          "mines": 100}).json()["id"]  # larger than expert: the child started
        laid = c.post(f"/api/games/{warm}/actions", json={"kind": "open", "x": 4, "y": 4})
        assert laid.status_code == 200 and laid.json()["status"] in ("playing", "won")
        # a board the generator needs far more than the 3 s deadline for (30x24 with 426 mines)
        dense = c.post("/api/games", json={"mode": "noguess", "level": "custom", "width": 30, "height": 24,
                                           "mines": 426}).json()["id"]
        answer: dict = {}

        def click() -> None:
            with httpx.Client(base_url=url, timeout=900) as d:
                t0 = time.perf_counter()
                answer["r"] = d.post(f"/api/games/{dense}/actions", json={"kind": "open", "x": 15, "y": 12})
                answer["s"] = time.perf_counter() - t0

        t = threading.Thread(target=click)
        t.start()
        times = []
        while t.is_alive():
            t0 = time.perf_counter()
            assert c.post(f"/api/games/{other}/actions", json={"kind": "flag", "x": 0, "y": 0}).status_code == 200
            times.append(time.perf_counter() - t0)
            time.sleep(0.02)
        t.join()
    r = answer["r"]
    assert r.status_code == 503 and "the most a first click may take is 3 s" in r.json()["error"]
    assert len(times) > 20 and sorted(times)[len(times) // 2] < 0.1 and max(times) < 1.0


def test_a_connection_that_does_not_finish_its_request_head_is_closed(server):
    url, _ = server
    host, port = url.split("//")[1].strip("/").split(":")
    silent, dribbling = socket.create_connection((host, int(port))), socket.create_connection((host, int(port)))
    dribbling.sendall(b"GET /api/modes HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the blank line
    t0 = time.perf_counter()
    for s in (silent, dribbling):
        s.settimeout(HEADER_SECONDS + 10)
        assert s.recv(1024) == b""  # closed by the server
        s.close()
    assert HEADER_SECONDS - 0.5 < time.perf_counter() - t0 < HEADER_SECONDS + 5
    with httpx.Client(base_url=url) as c:  # a whole request is answered as ever
        assert c.get("/api/modes").status_code == 200
