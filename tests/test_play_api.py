"""The play server's JSON API: games, actions, what a player may see, records, best times, errors, fuzzing."""

from __future__ import annotations

import json

import ms_toollib
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

import sweeplab.solver as solver
from sweeplab import generators
from sweeplab.board import Board
from sweeplab.generators.winmine import WinMineSession
from sweeplab.play import modes as M
from sweeplab.play.server import create_app
from sweeplab.play.store import Store

MINE_CHARS = set("*XW")


@pytest.fixture()
def client(tmp_path):
    store = Store(tmp_path / "play.db")
    with TestClient(create_app(store), base_url="http://127.0.0.1:8000") as c:
        c.store = store
        c.hub = c.app.state.hub
        yield c
    store.close()


def new(client, **body):
    if isinstance(body.get("seed"), int):
        body["seed"] = str(body["seed"])  # seeds travel as strings
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def act(client, gid, kind, x, y, status=200):
    r = client.post(f"/api/games/{gid}/actions", json={"kind": kind, "x": x, "y": y})
    assert r.status_code == status, r.text
    return r.json()


def safe_board(seed, x, y, w=9, h=9, m=10):
    """The board a safe-first-click game of this seed gets when first opened at (x, y)."""
    return generators.make("uniform", w, h, m, seed, first_click="safe").board_for(x, y)[0]


def ms_bbbv(board: Board) -> int:
    """3BV by ms-toollib (an independent implementation): -1 for mines, else the number."""
    grid = np.where(board.mines, -1, board.numbers).astype(int).tolist()
    return int(ms_toollib.cal_bbbv(grid))


def check_hidden_mines(state, board: Board):
    """While a game is in play, no cell of the response shows a mine and no board or seed is sent."""
    assert state["status"] in ("ready", "playing")
    assert "board" not in state and "seed" not in state
    assert not MINE_CHARS & set(state["cells"])
    for i, ch in enumerate(state["cells"]):
        if ch.isdigit():
            assert not board.flat_mines[i] and int(ch) == board.flat_numbers[i]


@pytest.mark.slow
def test_win_a_known_board(client):
    seed = 12345
    s = new(client, mode="safe", level="beginner", seed=seed)
    assert s["cells"] == "#" * 81 and s["timer"] == 0 and s["mines_left"] == 10 and s["status"] == "ready"
    board = safe_board(seed, 4, 4)
    s = act(client, s["id"], "open", 4, 4)
    assert s["timer"] == 1 and s["status"] == "playing"  # the clock shows 1 at once
    check_hidden_mines(s, board)
    for y in range(9):
        for x in range(9):
            if not board.is_mine(x, y) and s["status"] == "playing":
                s = act(client, s["id"], "open", x, y)
                if s["status"] == "playing":
                    check_hidden_mines(s, board)
    assert s["status"] == "won" and s["mines_left"] == 0
    # a seed the player chose: practice, recorded, never a best time
    assert s["seed"] == str(seed) and s["practice"] and not s["new_best"] and not s["eligible"]
    assert s["cells"].count("F") == 10 and all(s["cells"][i] == "F" for i in np.flatnonzero(board.flat_mines))
    assert s["stats"]["bbbv"] == ms_bbbv(board)
    rec = client.get(f"/api/records/{s['record_id']}").json()
    assert rec["status"] == "won" and rec["seed"] == str(seed) and rec["mode"] == "safe" and rec["practice"] == 1
    assert Board.from_dict(rec["record"]["played_board"]) == board
    assert client.get("/api/best").json()["best"] == []
    # the record replays move by move to the same end
    frames = client.get(f"/api/records/{s['record_id']}/replay").json()["frames"]
    assert len(frames) == len(rec["record"]["actions"]) + 1
    assert frames[-1]["cells"] == s["cells"] and frames[-1]["status"] == "won" and frames[0]["cells"] == "#" * 81


def test_lose_shows_the_board_and_freezes_the_game(client):
    seed = 7
    s = new(client, mode="safe", level="beginner", seed=seed)
    board = safe_board(seed, 0, 8)
    s = act(client, s["id"], "open", 0, 8)
    mines = [(x, y) for x, y in board.mine_positions()]
    safe = [(x, y) for y in range(9) for x in range(9) if not board.is_mine(x, y) and s["cells"][y * 9 + x] == "#"]
    s = act(client, s["id"], "flag", *safe[0])      # a wrong flag
    s = act(client, s["id"], "flag", *mines[1])     # a right flag
    assert s["mines_left"] == 8
    s = act(client, s["id"], "open", *mines[0])
    assert s["status"] == "lost"
    cells = s["cells"]
    assert cells[mines[0][1] * 9 + mines[0][0]] == "X"           # the exploded mine
    assert cells[safe[0][1] * 9 + safe[0][0]] == "W"             # the wrong flag, crossed out
    assert cells[mines[1][1] * 9 + mines[1][0]] == "F"           # a right flag stays
    assert all(cells[y * 9 + x] == "*" for x, y in mines[2:])    # the other mines show
    assert s["board"] == "".join("*" if m else str(n) for m, n in zip(board.flat_mines, board.flat_numbers))
    assert not s["new_best"] and client.get("/api/best").json()["best"] == []
    before = client.get(f"/api/games/{s['id']}").json()
    r = client.post(f"/api/games/{s['id']}/actions", json={"kind": "open", "x": 3, "y": 3})
    assert r.status_code == 409 and "over" in r.json()["error"]
    assert client.get(f"/api/games/{s['id']}").json() == before


def test_flags_marks_and_chord(client):
    seed = 99
    s = new(client, mode="safe", level="beginner", seed=seed, marks=True)
    board = safe_board(seed, 4, 4)
    gid = s["id"]
    s = act(client, gid, "open", 4, 4)
    hidden = next(i for i, ch in enumerate(s["cells"]) if ch == "#")
    x, y = hidden % 9, hidden // 9
    assert act(client, gid, "flag", x, y)["cells"][hidden] == "F"
    s = act(client, gid, "flag", x, y)
    assert s["cells"][hidden] == "?" and s["mines_left"] == 10
    assert act(client, gid, "flag", x, y)["cells"][hidden] == "#"
    # chord: find an open number, flag exactly its mines, chord, and every other neighbour opens
    for i, ch in enumerate(s["cells"]):
        if ch in "12345678":
            cx, cy = i % 9, i // 9
            around = [(cx + dx, cy + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                      if (dx or dy) and 0 <= cx + dx < 9 and 0 <= cy + dy < 9]
            if any(s["cells"][b * 9 + a] == "#" and not board.is_mine(a, b) for a, b in around):
                break
    for a, b in around:
        if board.is_mine(a, b):
            s = act(client, gid, "flag", a, b)
    s = act(client, gid, "chord", cx, cy)
    for a, b in around:
        assert s["cells"][b * 9 + a] == ("F" if board.is_mine(a, b) else str(board.number(a, b)))


def test_marks_off_skips_question(client):
    s = new(client, mode="safe", seed=1, marks=False)
    assert act(client, s["id"], "flag", 0, 0)["cells"][0] == "F"
    assert act(client, s["id"], "flag", 0, 0)["cells"][0] == "#"


def test_every_available_mode_plays_and_hides_its_mines(client):
    info = client.get("/api/modes").json()
    names = [m["name"] for m in info["modes"] if m["available"]]
    assert {"safe", "win7", "winxp", "win98"} <= set(names)
    for name in names:
        s = new(client, mode=name, level="beginner", session="tab-1")
        w = s["width"]
        assert (w, s["height"]) == ((8, 8) if name == "win98" else (9, 9))
        s = act(client, s["id"], "open", 3, 3)
        pg = client.hub.get(s["id"])
        check_hidden_mines(s, pg.game.board) if s["status"] == "playing" else None
        assert s["cells"][3 * w + 3] != "#"  # every mode's first click is safe


def test_winmine_session_continues_one_stream(client):
    a = new(client, mode="win98", level="beginner", session="player")
    sa, laid = client.hub.get(a["id"]).seed, client.hub.get(a["id"]).game.laid
    b = new(client, mode="win98", level="beginner", session="player")  # (a, never clicked, is forgotten)
    sb = client.hub.get(b["id"]).seed
    session = WinMineSession("win98", state=sa)  # the emulator, driven directly
    first = session.next_board()
    assert session.state == sb
    assert laid == first
    # "replay this seed": the same state gives the same board outside the session
    c = new(client, mode="win98", level="beginner", seed=sb)
    assert client.hub.get(c["id"]).game.laid == client.hub.get(b["id"]).game.laid


def test_unavailable_mode_is_shown_not_a_crash(client, monkeypatch):
    real = generators.lookup

    def lookup(name):
        if name == "noguess":
            raise ImportError("sweeplab.generators.noguess is half built")
        return real(name)

    monkeypatch.setattr(generators, "lookup", lookup)
    info = client.get("/api/modes").json()
    ng = next(m for m in info["modes"] if m["name"] == "noguess")
    assert not ng["available"] and "half built" in ng["why"]
    assert info["default"] == "safe" and "not available" in info["default_note"]
    r = client.post("/api/games", json={"mode": "noguess"})
    assert r.status_code == 400 and "noguess" in r.json()["error"]
    assert new(client)["mode"] == "safe"  # the default, said so in the menu


def test_hints_make_a_game_ineligible(client, monkeypatch):
    seen = []

    def fake_hint(view, **wording):
        seen.append(view)
        return type("Hint", (), {"kind": "safe", "cells": [(0, 0)], "named": [], "probability": 0.0,
                                 "reason": "fake"})()

    monkeypatch.setattr(solver, "hint", fake_hint, raising=False)
    seed = 5
    s = new(client, mode="safe", seed=seed)
    board = safe_board(seed, 4, 4)
    s = act(client, s["id"], "open", 4, 4)
    h = client.post(f"/api/games/{s['id']}/hint", json={}).json()
    assert h["kind"] == "safe" and h["cells"] == [[0, 0]] and h["hints_used"] == 1
    assert type(seen[0]).__name__ == "View"  # the solver is handed a View, nothing more
    for y in range(9):
        for x in range(9):
            if not board.is_mine(x, y) and s["status"] == "playing":
                s = act(client, s["id"], "open", x, y)
    assert s["status"] == "won" and not s["eligible"] and not s["new_best"]
    assert client.get("/api/best").json()["best"] == []
    assert client.get(f"/api/records/{s['record_id']}").json()["hints"] == 1


def win(client, s, board):
    """Open every safe cell of a game in play."""
    for y in range(board.height):
        for x in range(board.width):
            if not board.is_mine(x, y) and s["status"] == "playing":
                s = act(client, s["id"], "open", x, y)
    return s


@pytest.mark.slow
def test_best_time_is_the_fastest_win_per_level_and_mode(client):
    clock = [0.0]
    client.hub._clock = lambda: clock[0]
    times = {}
    for dt in (30.0, 12.5, 20.0):
        s = new(client, mode="safe")  # the server draws the seed: eligible
        s = act(client, s["id"], "open", 4, 4)
        clock[0] += dt
        s = win(client, s, client.hub.get(s["id"]).game.board)  # the test peeks; a player cannot
        assert s["status"] == "won" and s["stats"]["time"] == pytest.approx(dt) and s["eligible"]
        assert s["new_best"] == (dt == min(times.values(), default=dt + 1) or dt < min(times.values(), default=99))
        times[s["record_id"]] = dt
    best = client.get("/api/best").json()["best"]
    assert len(best) == 1 and best[0]["elapsed"] == pytest.approx(min(times.values())) and best[0]["wins"] == 3
    assert best[0]["id"] == min(times, key=times.get) and best[0]["table"] == "best"
    # a custom board is never a best time
    s = new(client, mode="safe", level="custom", width=9, height=9, mines=1)
    s = act(client, s["id"], "open", 0, 0)
    s = win(client, s, client.hub.get(s["id"]).game.board)
    assert s["status"] == "won" and not s["eligible"]
    # nor a game by seed, however fast: replaying a record's public seed and board wins in no time
    rec = client.get(f"/api/records/{best[0]['id']}").json()
    s = new(client, mode="safe", seed=rec["seed"])
    s = act(client, s["id"], "open", 4, 4)
    s = win(client, s, Board.from_dict(rec["record"]["played_board"]))
    assert s["status"] == "won" and s["stats"]["time"] == 0 and s["practice"] and not s["new_best"]
    # nor "play this board again"
    s = new(client, again=best[0]["id"])
    assert s["practice"] and s["mode"] == "safe" and s["level"] == "beginner"
    s = act(client, s["id"], "open", 4, 4)
    s = win(client, s, Board.from_dict(rec["record"]["played_board"]))
    assert s["status"] == "won" and not s["eligible"] and not s["new_best"]
    assert client.get("/api/best").json()["best"] == best
    assert client.get("/api/stats").json()["top"][0]["id"] == best[0]["id"]


@pytest.mark.slow
@pytest.mark.parametrize("body, words", [
    ({"mode": "nope"}, ["unknown mode", "safe"]),
    ({"level": "huge"}, ["unknown level", "custom"]),
    ({"level": "custom", "width": 31, "height": 9, "mines": 10}, ["width 31", "9..30"]),
    ({"level": "custom", "width": 9, "height": 25, "mines": 10}, ["height 25", "9..24"]),
    ({"level": "custom", "width": 9, "height": 9, "mines": 65}, ["65 mines", "1 to 43"]),
    ({"mode": "win7", "level": "custom", "width": 9, "height": 9, "mines": 5}, ["5 mines", "10 to 64"]),
    ({"mode": "win98", "level": "custom", "width": 8, "height": 7, "mines": 10}, ["height 7", "8..24"]),
    ({"level": "custom", "width": "9", "height": 9, "mines": 10}, ["integer width"]),
    ({"level": "beginner", "width": 9}, ["fixed size"]),
    ({"seed": "-1"}, ["seed", "0.."]),
    ({"seed": 5}, ["seed must be a string", "2^53"]),
    ({"seed": "１２"}, ["decimal digits"]),
    ({"seed": str(2 ** 63)}, ["0..9223372036854775807"]),
    ({"mode": "win7", "seed": str(2 ** 32)}, ["32-bit"]),
    ({"again": 0}, ["record id"]),
    ({"again": "5"}, ["record id"]),
    ({"player": "x" * 40}, ["player", "1..32"]),
    ({"marks": "yes"}, ["marks"]),
    ({"colour": 1}, ["unknown field", "'colour'"]),
    ({"session": ""}, ["session"]),
])
def test_bad_new_game_explains_itself(client, body, words):
    r = client.post("/api/games", json=body)
    assert r.status_code == 400, r.text
    msg = r.json()["error"]
    for w in words:
        assert w in msg, msg


@pytest.mark.slow
@pytest.mark.parametrize("send, status, words", [
    (dict(content=b"{not json", headers={"content-type": "application/json"}), 400, ["not JSON"]),
    (dict(content=b"[1, 2]", headers={"content-type": "application/json"}), 400, ["JSON object"]),
    (dict(content=b'{"kind": "open", "x": 0, "y": 0}', headers={"content-type": "text/plain"}), 415,
     ["application/json", "text/plain"]),
    (dict(content=b'{"kind": "open", "x": 0, "y": 0}'), 415, ["application/json"]),
    (dict(json={"kind": "open", "x": 9, "y": 0}), 400, ["off the board", "0..8"]),
    (dict(json={"kind": "open", "x": 1.5, "y": 0}), 400, ["integers"]),
    (dict(json={"kind": "open", "x": True, "y": 0}), 400, ["integers"]),
    (dict(json={"kind": "dig", "x": 1, "y": 0}), 400, ["unknown action", "chord"]),
    (dict(json={"kind": "open", "x": 1}), 400, ["lacks y"]),
    (dict(content=b"x" * 20000, headers={"content-type": "application/json"}), 413, ["too large"]),
])
def test_bad_action_explains_itself_and_changes_nothing(client, send, status, words):
    s = new(client, mode="safe", seed=3)
    s = act(client, s["id"], "open", 4, 4)
    r = client.post(f"/api/games/{s['id']}/actions", **send)
    assert r.status_code == status and all(w in r.json()["error"] for w in words), r.text
    after = client.get(f"/api/games/{s['id']}").json()
    assert after["cells"] == s["cells"] and after["mines_left"] == s["mines_left"]
    assert len(client.hub.get(s["id"]).game.log) == 1


def test_unknown_things_are_json_404s(client):
    for path in ("/api/games/nope", "/api/records/999", "/api/nothing", "/nothing"):
        r = client.get(path)
        assert r.status_code == 404 and "error" in r.json(), path
    r = client.post("/api/games/nope/actions", json={"kind": "open", "x": 0, "y": 0})
    assert r.status_code == 404 and "no game" in r.json()["error"]
    r = client.delete("/api/games")
    assert r.status_code == 405 and "DELETE" in r.json()["error"]
    r = client.get("/api/records?limit=0")
    assert r.status_code == 400 and "1..500" in r.json()["error"]
    r = client.get("/api/records/abc")
    assert r.status_code == 400 and "record id" in r.json()["error"]


def test_new_game_fields_of_the_wrong_type_are_400(client):
    """Found by the fuzz test below: a list as the level was looked up in a dict and answered 500."""
    for body in ({"level": []}, {"level": {}}, {"level": 3}, {"mode": []}, {"mode": {"a": 1}}):
        r = client.post("/api/games", json=body)
        assert r.status_code == 400, (body, r.status_code, r.text)
        field = next(iter(body))
        assert field in r.json()["error"], (body, r.json())


def test_pages_and_static_files(client):
    for path in ("/", "/records", "/static/app.js", "/static/app.css"):
        assert client.get(path).status_code == 200
    assert "Minesweeper" in client.get("/").text


def test_records_list_filters_and_pages(client):
    ids = []
    for seed in range(4):
        s = new(client, mode="safe", seed=seed)
        board = safe_board(seed, 4, 4)
        act(client, s["id"], "open", 4, 4)
        x, y = board.mine_positions()[0]
        ids.append(act(client, s["id"], "open", x, y)["record_id"])
    page = client.get("/api/records?limit=3").json()
    assert page["total"] == 4 and [r["id"] for r in page["records"]] == ids[::-1][:3]
    assert [r["id"] for r in client.get("/api/records?limit=3&offset=3").json()["records"]] == ids[:1]
    assert client.get("/api/records?status=won").json()["total"] == 0
    assert client.get("/api/records?mode=safe&level=beginner&status=lost").json()["total"] == 4
    assert client.get("/api/records?sort=x").status_code == 400


# --- fuzz ---------------------------------------------------------------------------------------
json_values = st.recursive(st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats() | st.text(max_size=8),
                           lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=3),
                           max_leaves=6)
bodies = st.one_of(
    st.fixed_dictionaries({"kind": st.sampled_from(["open", "flag", "chord", "x", ""]) | json_values,
                           "x": st.integers(-3, 12) | json_values, "y": st.integers(-3, 12) | json_values}),
    st.dictionaries(st.sampled_from(["kind", "x", "y", "mode", "level", "width", "height", "mines", "seed", "marks",
                                     "session", "junk"]), json_values, max_size=5),
    json_values,
    st.binary(max_size=30),
)
paths = st.sampled_from(["/api/games", "/api/games/{id}", "/api/games/{id}/actions", "/api/games/{id}/hint",
                         "/api/games/{done}/actions", "/api/games/zzz/actions", "/api/records", "/api/records/{rid}",
                         "/api/records/-1", "/api/records/1e9/replay", "/api/best", "/api/modes", "/api/games/{id}/x"])


@pytest.mark.slow
@settings(max_examples=250, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(method=st.sampled_from(["GET", "POST", "PUT", "DELETE"]), path=paths, body=bodies,
       query=st.sampled_from(["", "?limit=abc", "?limit=-5", "?offset=99999999999", "?mode=safe", "?x=1"]))
def test_fuzz_never_500_never_changes_a_game_on_error(client, method, path, body, query):
    if not hasattr(client, "live"):
        client.live = new(client, mode="safe", seed=11)["id"]
        act(client, client.live, "open", 4, 4)
        done = new(client, mode="safe", seed=11)["id"]
        act(client, done, "open", 4, 4)
        x, y = safe_board(11, 4, 4).mine_positions()[0]
        client.done_rid = act(client, done, "open", x, y)["record_id"]
        client.done = done
    p = path.format(id=client.live, done=client.done, rid=client.done_rid) + query
    before = {k: v for k, v in client.hub.state(client.hub.get(client.live)).items() if k not in ("timer", "elapsed")}
    kw = {"content": body} if isinstance(body, bytes) else {"content": json.dumps(body, allow_nan=True)}
    r = client.request(method, p, headers={"content-type": "application/json"}, **kw)
    assert r.status_code < 500, (r.status_code, r.text)
    if r.status_code >= 400:
        assert isinstance(r.json()["error"], str) and r.json()["error"]
        after = {k: v for k, v in client.hub.state(client.hub.get(client.live)).items()
                 if k not in ("timer", "elapsed")}
        assert after == before
    assert client.hub.get(client.done).game.status == "lost"


def test_real_hint_from_the_solver(client):
    seed = 21
    s = new(client, mode="safe", seed=seed)
    board = safe_board(seed, 4, 4)
    s = act(client, s["id"], "open", 4, 4)
    r = client.post(f"/api/games/{s['id']}/hint", json={})
    assert r.status_code == 200, r.text
    h = r.json()
    assert h["kind"] in ("safe", "mine", "guess") and h["reason"] and h["cells"] and h["hints_used"] == 1
    for x, y in h["cells"]:
        assert s["cells"][y * 9 + x] == "#"
        if h["kind"] == "safe":
            assert not board.is_mine(x, y)
        elif h["kind"] == "mine":
            assert board.is_mine(x, y)
    assert client.get(f"/api/games/{s['id']}").json()["hints_used"] == 1


def json_ints(value):
    if isinstance(value, dict):
        return [i for v in value.values() for i in json_ints(v)]
    if isinstance(value, list):
        return [i for v in value for i in json_ints(v)]
    return [value] if isinstance(value, int) and not isinstance(value, bool) else []


def test_a_winmine_session_seed_is_never_handed_out(client, monkeypatch):
    """A session's rand() state would foretell its next boards: the API holds it back, the store keeps it."""
    monkeypatch.setattr(M.secrets, "randbelow", lambda n: 54321)  # the session's start-up tick
    s = new(client, mode="winxp", level="beginner", session="secret")
    pg = client.hub.get(s["id"])
    seed = pg.seed
    assert seed == 54321  # WinMine seeds rand() with the tick: the first board's state is the tick
    s = act(client, s["id"], "open", 0, 0)
    mines = [(x, y) for x, y in pg.game.board.mine_positions() if s["cells"][y * 9 + x] == "#"]
    s = act(client, s["id"], "open", *mines[0])
    assert s["status"] == "lost" and s["seed"] is None
    listed = client.get("/api/records").json()["records"][0]
    full = client.get(f"/api/records/{s['record_id']}")
    assert listed["seed"] is None and full.json()["seed"] is None
    for data in (s, listed, full.json()):
        assert seed not in json_ints(data) and f'"{seed}"' not in json.dumps(data) and '"state"' not in json.dumps(data)
    assert client.store.get(s["record_id"])["seed"] == seed  # reproducible from the database file
    # a seed the player gave is theirs to see
    g = new(client, mode="winxp", level="beginner", seed=seed)
    g = act(client, g["id"], "open", 0, 0)
    board = client.hub.get(g["id"]).game.board
    x, y = next((x, y) for x, y in board.mine_positions() if g["cells"][y * 9 + x] == "#")
    assert act(client, g["id"], "open", x, y)["seed"] == str(seed)


def test_which_first_clicks_go_off_the_event_loop():
    assert not M.slow_first_click("noguess", 30, 16, 99)      # expert: a few ms, inline
    assert M.slow_first_click("noguess", 30, 16, 100)         # denser than expert
    assert M.slow_first_click("noguess", 30, 24, 99)          # larger than expert
    assert not M.slow_first_click("safe", 30, 24, 600)        # uniform boards are instant


def test_an_action_on_a_busy_game_is_a_409_not_a_frozen_server(client):
    s = new(client, mode="safe", seed=2)
    pg = client.hub.get(s["id"])
    with pg.lock:  # as while a worker thread lays a large no-guess board for this game
        r = client.post(f"/api/games/{s['id']}/actions", json={"kind": "open", "x": 0, "y": 0})
    assert r.status_code == 409 and "busy" in r.json()["error"]
    assert pg.game.status == "ready" and pg.game.log == []
    assert act(client, s["id"], "open", 0, 0)["status"] in ("playing", "won")


def lose(client, s):
    """Open a mine of a game in play (the test peeks at the board; a player cannot)."""
    x, y = next(iter(client.hub.get(s["id"]).game.board.mine_positions()))
    return act(client, s["id"], "open", x, y)


def test_a_game_given_up_after_its_first_click_is_a_loss_and_recorded(client):
    s = act(client, new(client, mode="safe", session="tab")["id"], "open", 4, 4)
    s = win(client, s, client.hub.get(s["id"]).game.board)
    new(client, mode="safe", session="tab")  # never clicked: thrown away for nothing
    played = act(client, new(client, mode="safe", session="tab")["id"], "open", 4, 4)
    assert played["status"] == "playing"
    x, y = next((i % 9, i // 9) for i, c in enumerate(played["cells"]) if c == "#")  # any cell still hidden
    played = act(client, played["id"], "flag", x, y)
    new(client, mode="safe", level="intermediate", session="tab")  # another level, with that game in play
    records = client.get("/api/records").json()["records"]
    assert [r["status"] for r in records] == ["quit", "won"]
    quit = client.get(f"/api/records/{records[0]['id']}").json()
    assert len(quit["record"]["actions"]) == 2 and quit["record"]["played_board"]
    (row,) = client.get("/api/stats").json()["statistics"]
    assert (row["played"], row["won"], row["win_percent"], row["streak"], row["best_streak"]) == (2, 1, 50.0, 0, 1)
    r = client.post(f"/api/games/{played['id']}/actions", json={"kind": "open", "x": 0, "y": 0})
    assert r.status_code == 404  # the game given up is gone from play


def test_a_board_played_again_has_the_same_mines_whatever_the_first_click(client):
    s = act(client, new(client, mode="noguess", level="beginner")["id"], "open", 4, 4)
    rid = lose(client, s)["record_id"]
    board = Board.from_dict(client.get(f"/api/records/{rid}").json()["record"]["played_board"])
    safe = [(x, y) for y in range(9) for x in range(9) if not board.is_mine(x, y)]
    for x, y in (safe[0], safe[-1], next(iter(board.mine_positions()))):
        g = new(client, again=rid)
        s = act(client, g["id"], "open", x, y)
        assert client.hub.get(g["id"]).game.board == board
        assert s["status"] == ("lost" if board.is_mine(x, y) else "playing")  # a mine is a mine, first or not


def test_records_never_show_the_key_to_a_game_and_only_its_tab_names_its_player(client):
    s = act(client, new(client, mode="safe", session="my-tab")["id"], "open", 4, 4)
    s = win(client, s, client.hub.get(s["id"]).game.board)
    rid = s["record_id"]
    shown = json.dumps([client.get(p).json() for p in ("/api/records", f"/api/records/{rid}", "/api/best",
                                                       "/api/stats", f"/api/records/{rid}/replay")])
    assert s["id"] not in shown and "game_id" not in shown
    for body in ({"player": "Eve"}, {"player": "Eve", "session": "other-tab"}):
        r = client.post(f"/api/games/{s['id']}/player", json=body)
        assert r.status_code == 403 and "only the tab" in r.json()["error"]
    r = client.post(f"/api/games/{s['id']}/player", json={"player": "Ada", "session": "my-tab"})
    assert r.status_code == 200 and client.get(f"/api/records/{rid}").json()["player"] == "Ada"
