"""The play server attacked as an intruder would, over real HTTP against a real uvicorn server: a
corpus of hostile requests while games are live gets no 5xx and no mine in any answer; cross-site
requests (a text/plain POST, a form POST, a foreign Host as DNS rebinding sends) are refused."""

from __future__ import annotations

import json

import httpx
import numpy as np
import pytest

from sweeplab.play.store import Store

from .play_server import running

MINE_CHARS = set("*XW")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("intrusion") / "play.db")
    with running(store) as (url, app), httpx.Client(base_url=url, timeout=300) as c:
        yield c, app.state.hub, store
    store.close()


def live_games(client, hub):
    """Live games of several modes, each opened once (so that a board exists to leak)."""
    out = []
    for mode in ("safe", "noguess", "win7", "winxp"):
        s = client.post("/api/games", json={"mode": mode, "level": "beginner"}).json()
        client.post(f"/api/games/{s['id']}/actions", json={"kind": "open", "x": 4, "y": 4})
        out.append(s["id"])
    done = client.post("/api/games", json={"mode": "safe", "seed": "77"}).json()
    client.post(f"/api/games/{done['id']}/actions", json={"kind": "open", "x": 4, "y": 4})
    board = hub.get(done["id"]).game.board
    x, y = next(iter(board.mine_positions()))
    rid = client.post(f"/api/games/{done['id']}/actions", json={"kind": "open", "x": x, "y": y}).json()["record_id"]
    return out, done["id"], rid


def hostile(gid, done, rid):
    """(method, path, headers, body) of what an intruder sends."""
    j = {"content-type": "application/json"}
    reqs = []
    for body in (b"", b"{", b"null", b"[]", b'"x"', b"1e999", b'{"kind":"open","x":1e308,"y":0}',
                 b'{"kind":"open","x":-1,"y":0}', b'{"kind":"open","x":0,"y":99999999999999999999}',
                 b'{"kind":"chord","x":"0","y":0}', b'{"kind":["open"],"x":0,"y":0}', b'{"kind":"open","x":0}',
                 b'{"kind":"open","x":0,"y":0,"mine":true}', b'{"__proto__":{"x":1}}', b"\xff\xfe\x00",
                 b'{"kind":"open","x":0,"y":0}' * 1000, json.dumps({"a" * 5000: 1}).encode(),
                 b"[" * 5000 + b"]" * 5000):
        reqs.append(("POST", f"/api/games/{gid}/actions", j, body))
    for body in ({"seed": 2 ** 63}, {"seed": "9" * 30}, {"seed": "１"}, {"seed": "0x10"}, {"seed": " 5"},
                 {"seed": "5", "again": 1}, {"again": 10 ** 30}, {"again": -1}, {"again": True}, {"mode": "../etc"},
                 {"level": "custom", "width": 10 ** 9, "height": 9, "mines": 1},
                 {"level": "custom", "width": 30, "height": 24, "mines": 10 ** 6}, {"mode": "winxp", "seed": "-1"},
                 {"player": "<script>alert(1)</script>" * 3}, {"player": "a\x00b"}, {"session": "x" * 100},
                 {"marks": None}, {"width": 5}):
        reqs.append(("POST", "/api/games", j, json.dumps(body).encode()))
    for path in (f"/api/games/{gid}", f"/api/games/{gid}/hint", f"/api/games/{gid}/player", f"/api/games/{done}",
                 "/api/records/１", "/api/records/１/replay", "/api/records/0x1", "/api/records/+1", "/api/records/ 1",
                 f"/api/records/{rid}", f"/api/records/{rid}/replay", "/api/records/99999999999999999999",
                 "/api/records?limit=1e3", "/api/records?offset=-1", "/api/records?mode=';drop table games;--",
                 "/api/records?status=won&status=lost", "/api/best?x=1", "/api/stats", "/api/modes",
                 "/static/../store.py", "/static/%2e%2e/store.py", "/api/games/%00", "/api/games/" + "a" * 5000,
                 "/..%2f..%2fetc/passwd", "/records?x=<script>"):
        reqs.append(("GET", path, {}, b""))
        reqs.append(("POST", path, j, b"{}"))
        reqs.append(("DELETE", path, {}, b""))
    reqs.append(("POST", f"/api/games/{done}/player", j, json.dumps({"player": "x" * 33}).encode()))
    reqs.append(("POST", f"/api/games/{gid}/player", j, json.dumps({"player": "me"}).encode()))  # not finished
    reqs.append(("PUT", "/api/games", j, b"{}"))
    reqs.append(("OPTIONS", "/api/games", {"origin": "http://evil.example", "access-control-request-method": "POST"},
                 b""))
    return reqs


def check_answer(r, hub, live):
    assert r.status_code < 500, (r.status_code, r.text[:300])
    text = r.text
    if r.headers.get("content-type", "").startswith("application/json"):
        data = r.json()
        if r.status_code >= 400:
            assert isinstance(data["error"], str) and data["error"]
    for gid in live:  # no answer shows where a live game's unrevealed mines are
        pg = hub.get(gid)
        board = pg.game.board
        assert pg.game.status == "playing" or pg.game.status == "won"
        if board is None or pg.game.over:
            continue
        assert board.to_text() not in text
        hidden_mines = [i for i in np.flatnonzero(board.flat_mines)]
        if '"cells"' in text and f'"id":"{gid}"' in text.replace(" ", ""):
            cells = r.json()["cells"]
            assert not MINE_CHARS & set(cells) and all(cells[i] in "#F?" for i in hidden_mines)
            assert "board" not in r.json() and "seed" not in r.json()


@pytest.mark.slow
def test_hostile_requests_get_no_5xx_and_no_mine_while_games_are_live(server):
    client, hub, store = server
    live, done, rid = live_games(client, hub)
    count = 0
    for gid in live:
        for method, path, headers, body in hostile(gid, done, rid):
            r = client.request(method, path, headers=headers, content=body)
            check_answer(r, hub, live)
            count += 1
        # what the player sees of this game is still its own, and still has no mine in it
        s = client.get(f"/api/games/{gid}").json()
        assert s["status"] == "playing" and not MINE_CHARS & set(s["cells"])
    assert count > 400


def test_cross_site_posts_are_refused(server):
    client, hub, store = server
    before = len(hub)
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None,
                  "application/jsonx", "text/json"):
        headers = {} if ctype is None else {"content-type": ctype}
        r = client.post("/api/games", headers=headers, content=b'{"mode": "safe"}')
        assert r.status_code == 415 and "application/json" in r.json()["error"], (ctype, r.text)
    r = client.post("/api/games", headers={"content-type": "application/json; charset=utf-8"}, content=b"{}")
    assert r.status_code == 201
    assert len(hub) == before + 1  # only the JSON one made a game


@pytest.mark.parametrize("host", ["evil.example", "evil.example:80", "127.0.0.1.evil.example", "localhost.evil.example",
                                  "rebind.attacker.test:{port}", "[::2]:{port}", "10.0.0.1", "", "0.0.0.0:{port}"])
def test_a_foreign_host_is_refused(server, host):
    client, hub, store = server
    port = client.base_url.port
    for method, path, body in (("GET", "/api/modes", None), ("GET", "/", None), ("GET", "/api/records", None),
                               ("POST", "/api/games", b"{}")):
        r = client.request(method, path, headers={"host": host.format(port=port), "content-type": "application/json"},
                           content=body)
        assert r.status_code == 403 and "Host" in r.json()["error"], (host, path, r.status_code)


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST", "[::1]:{port}", "127.0.0.2"])
def test_loopback_hosts_are_served(server, host):
    client, hub, store = server
    r = client.get("/api/modes", headers={"host": host.format(port=client.base_url.port)})
    assert r.status_code == 200


def test_full_width_digits_are_not_a_record_id(server):
    client, hub, store = server
    for raw in ("１", "１/replay", "٣", "²"):
        r = client.get(f"/api/records/{raw}")
        assert r.status_code == 400 and "record id" in r.json()["error"], raw
