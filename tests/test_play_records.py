"""Records of `sweeplab play` over HTTP (a real app on a real SQLite file): the style of a game (NF: no
flag put on a mine), the records, statistics and tables per style, the mouse path a page sends and its
bounds, the EVF file written from it as ms-toollib reads it back, and the replay and board links."""

from __future__ import annotations

import random
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from sweeplab.generators.uniform import uniform_board
from sweeplab.play.paths import CELL, MAX_BODY, MAX_EVENTS
from sweeplab.play.server import create_app
from sweeplab.play.store import Store, style_of
from sweeplab.replays.evf import game_to_evf, path_events, record_game
from sweeplab.replays.mouse import MouseEvent, play_events
from sweeplab.stats import game_stats

from .test_replays import play_random
from .toollib_read import toollib_read

LOCAL = "http://127.0.0.1:8000"


@pytest.fixture()
def app(tmp_path):
    store = Store(tmp_path / "play.db")
    yield create_app(store), store
    store.close()


def encode(events: list[MouseEvent]) -> list[int]:
    """The page's wire form of mouse events (recorder.js): kind, ms since the event before, pixel step."""
    kinds = ("mv", "lc", "lr", "rc", "rr", "mc", "mr")
    out, last = [], None
    for e in events:
        ms = round(e.t * 1000)
        if last is None:
            out += [kinds.index(e.kind), ms, e.x, e.y]
        else:
            out += [kinds.index(e.kind), ms - last[0], e.x - last[1], e.y - last[2]]
        last = (ms, e.x, e.y)
    return out


def play(client, hub, rng: random.Random, *, flags: int, wander: int = 3, level: str = "beginner"):
    """A game as a page plays it: a mouse path (moves, presses, releases at whole ms) whose clicks are sent as
    the server's moves, opening every safe cell after a first click in the middle and putting `flags`
    flags on mines on the way. Returns (the final state, the path's events)."""
    s = client.post("/api/games", json={"mode": "safe", "level": level}).json()
    gid, w, h = s["id"], s["width"], s["height"]
    events: list[MouseEvent] = []
    t = rng.randint(0, 200) / 1000

    def click(x, y, press, release):
        nonlocal t
        px, py = x * CELL + rng.randrange(CELL), y * CELL + rng.randrange(CELL)
        for _ in range(rng.randint(0, wander)):  # the hand on its way to the cell
            t += rng.randint(1, 40) / 1000
            events.append(MouseEvent("mv", t, rng.randrange(w * CELL), rng.randrange(h * CELL)))
        t += rng.randint(5, 400) / 1000
        events.append(MouseEvent(press, t, px, py))
        t += rng.randint(0, 90) / 1000
        events.append(MouseEvent(release, t, px, py))

    def send(x, y, kind):
        return client.post(f"/api/games/{gid}/actions", json={"kind": kind, "x": x, "y": y}).json()

    click(w // 2, h // 2, "lc", "lr")
    state = send(w // 2, h // 2, "open")
    board = hub.get(gid).game.board
    mines = [(x, y) for y in range(h) for x in range(w) if board.is_mine(x, y)]
    for x, y in rng.sample(mines, flags):
        click(x, y, "rc", "rr")
        state = send(x, y, "flag")
    while state["status"] == "playing":
        safe = [i for i, ch in enumerate(state["cells"]) if ch == "#" and not board.is_mine(i % w, i // w)]
        i = rng.choice(safe)
        click(i % w, i // w, "lc", "lr")
        state = send(i % w, i // w, "open")
    return gid, state, events


@pytest.mark.parametrize("seed, flags", [(1, 0), (2, 2)])
def test_a_sent_path_is_the_replay_and_the_evf_ms_toollib_reads_back(app, seed, flags):
    app, store = app
    client = TestClient(app, base_url=LOCAL)
    gid, state, events = play(client, app.state.hub, random.Random(seed), flags=flags)
    rid = state["record_id"]
    assert state["status"] == "won"
    r = client.post(f"/api/games/{gid}/path", json={"path": encode(events)})
    assert r.status_code == 201, r.text
    view = client.get(f"/api/records/{rid}/path").json()
    assert view["kind"] == "recorded"
    assert [tuple(e) for e in view["events"]] == [(e.kind, round(e.t, 3), e.x, e.y) for e in events]
    rec = store.get(rid)
    assert rec["style"] == ("nf" if flags == 0 else "flag")
    data = client.get(f"/api/records/{rid}/evf").content
    t = toollib_read(data)
    t0 = events[0].t
    assert [(k, round(s * 1000), x, y) for k, s, x, y in t["events"]] == \
        [(e.kind, round((e.t - t0) * 1000), e.x, e.y) for e in events]
    game = record_game(rec["record"])
    st = game_stats(game)
    assert (t["bbbv"], t["bbbv_solved"], t["left"], t["right"], t["double"]) == \
        (st.bbbv, st.bbbv_solved, st.left_clicks, st.right_clicks, st.chords)
    assert t["is_completed"] and t["rce"] == flags  # each flag on a mine, once: an effective right click
    assert bool(data[1] & 0x10) == (flags == 0)  # EVF's NF flag
    # the file's time is the path's, from its first opening release to its last click
    played = play_events(game.board, path_events(rec["path"]), CELL).game
    assert t["rtime"] == pytest.approx(played.elapsed, abs=1e-3)
    assert t["level"] == 6  # 9x9/10: custom in EVF, whose beginner is 8x8/10
    assert view["evf_level"] == "custom"


# ms-toollib's level codes: 3 beginner (8x8/10, the rankings'), 4 intermediate, 5 expert, 6 custom
@pytest.mark.parametrize("mode, level, code, name", [("safe", "beginner", 6, "custom"), ("win98", "beginner", 3, "beginner"),
                                                     ("safe", "intermediate", 4, "intermediate")])
def test_the_player_name_and_the_level_go_into_the_evf(app, mode, level, code, name):
    app, store = app
    client = TestClient(app, base_url=LOCAL)
    s = client.post("/api/games", json={"mode": mode, "level": level, "session": "tab", "player": "Ann"}).json()
    w, h = s["width"], s["height"]
    state = client.post(f"/api/games/{s['id']}/actions", json={"kind": "open", "x": w // 2, "y": h // 2}).json()
    board = app.state.hub.get(s["id"]).game.board
    mine = next((x, y) for y in range(h) for x in range(w) if board.is_mine(x, y))
    state = client.post(f"/api/games/{s['id']}/actions", json={"kind": "open", "x": mine[0], "y": mine[1]}).json()
    assert state["status"] == "lost"
    t = toollib_read(client.get(f"/api/records/{state['record_id']}/evf").content)
    assert t["player_identifier"] == "Ann" and t["events"][0][0] == "lc"  # made up: no path was sent
    assert (t["column"], t["row"], t["level"]) == (w, h, code)
    assert client.get(f"/api/records/{state['record_id']}/path").json()["evf_level"] == name
    assert client.get(f"/api/records/{state['record_id']}/path").json()["kind"] == "made up"


def test_a_path_past_its_bounds_is_refused_and_nothing_kept(app):
    app, store = app
    client = TestClient(app, base_url=LOCAL)
    gid, state, events = play(client, app.state.hub, random.Random(3), flags=0)
    good = encode(events)

    def send(body, **kw):
        return client.post(f"/api/games/{gid}/path", **kw, json=body) if "content" not in kw else \
            client.post(f"/api/games/{gid}/path", **kw, headers={"Content-Type": "application/json"})

    long = good + [0, 1, 0, 0] * (MAX_EVENTS - len(good) // 4 + 1)  # one event past the cap
    cases = [
        (long, 413, f"at most {MAX_EVENTS}"),
        ({"path": good[:-1]}, 400, "4 integers per event"),
        ({"path": [9, 0, 1, 1]}, 400, "kind 9"),
        ({"path": [0, -5, 1, 1]}, 400, "-5 ms"),
        ({"path": [0, 0, 9 * CELL + 1, 0]}, 400, "off the 9x9 board"),
        ({"path": [0, 0, 1.5, 0]}, 400, "integers only"),
        ({"path": "0,0,1,1"}, 400, "list of 4 integers"),
        ({"path": good, "extra": 1}, 400, "unknown field"),
        ({"path": encode([e for e in events if e.kind != "lr"])}, 400, "do not make this game's moves"),
    ]
    for body, status, words in cases:
        r = send({"path": body} if isinstance(body, list) else body)
        assert r.status_code == status and words in r.json()["error"], (words, r.status_code, r.text)
    r = client.post(f"/api/games/{gid}/path", content=b"[" + b"0," * MAX_BODY + b"0]",
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and f"at most {MAX_BODY}" in r.json()["error"]
    assert store.get(state["record_id"])["path"] is None and store.path_bytes() == 0
    # a game still in play has no record yet; a game id that is no game's
    s = client.post("/api/games", json={"mode": "safe", "level": "beginner"}).json()
    for g in (s["id"], "no-such-game"):
        r = client.post(f"/api/games/{g}/path", json={"path": [0, 0, 1, 1]})
        assert r.status_code == 404 and "once its game is over" in r.json()["error"]
    assert send({"path": good}).status_code == 201
    r = send({"path": good})
    assert r.status_code == 409 and "sent once" in r.json()["error"]
    assert 0 < store.path_bytes() < 4 * len(good)


def test_records_statistics_and_tables_by_style(app, tmp_path):
    app, store = app
    client = TestClient(app, base_url=LOCAL)
    hub = app.state.hub
    rng = random.Random(4)
    won = {flags: play(client, hub, rng, flags=flags)[1]["record_id"] for flags in (0, 1)}
    # a flag on a safe cell is a wasted click, not an effective one: the win stays NF
    s = client.post("/api/games", json={"mode": "safe", "level": "beginner"}).json()
    client.post(f"/api/games/{s['id']}/actions", json={"kind": "open", "x": 4, "y": 4})
    board = hub.get(s["id"]).game.board
    cells = [(x, y) for y in range(9) for x in range(9)]
    state = hub.state(hub.get(s["id"]))
    hidden_safe = next(c for c in cells if not board.is_mine(*c) and state["cells"][c[1] * 9 + c[0]] == "#")
    for kind in ("flag", "flag", "flag"):  # flag, "?", hidden again: then the cell is opened
        client.post(f"/api/games/{s['id']}/actions", json={"kind": kind, "x": hidden_safe[0], "y": hidden_safe[1]})
    for c in cells:
        if not board.is_mine(*c):
            state = client.post(f"/api/games/{s['id']}/actions", json={"kind": "open", "x": c[0], "y": c[1]}).json()
        if state["status"] == "won":
            break
    wasted = state["record_id"]
    assert store.get(wasted)["style"] == "nf"
    styles = {rid: store.get(rid)["style"] for rid in (*won.values(), wasted)}
    assert styles == {won[0]: "nf", won[1]: "flag", wasted: "nf"}
    for style in ("nf", "flag"):
        ids = {r["id"] for r in client.get(f"/api/records?style={style}").json()["records"]}
        assert ids == {rid for rid, s in styles.items() if s == style}
        stats = client.get(f"/api/stats?style={style}").json()["statistics"]
        assert [(s["played"], s["won"]) for s in stats] == [(len(ids), len(ids))]
    rows = store.records(limit=10)[0]
    for style in (None, "nf", "flag"):
        tables = client.get("/api/tables" + (f"?style={style}" if style else "")).json()["tables"]
        mine = [r for r in rows if style is None or r["style"] == style]
        want = {"time": min(mine, key=lambda r: (r["elapsed"], r["id"]))["id"],
                "bbbv_per_second": min(mine, key=lambda r: (-r["bbbv_per_second"], r["id"]))["id"],
                "ioe": min(mine, key=lambda r: (-r["ioe"], r["id"]))["id"]}
        assert {t["best"]: t["id"] for t in tables} == want and {t["level"] for t in tables} == {"beginner"}
    for bad in ("/api/tables?style=NF", "/api/records?style=none", "/api/stats?style=", "/api/tables?level=x"):
        r = client.get(bad)
        assert r.status_code == 400 and ("style must be one of flag, nf" in r.json()["error"]
                                         or "allowed: style" in r.json()["error"]), r.text
    # a database made before styles were kept: its games get their style when it is opened
    store.close()
    db = sqlite3.connect(tmp_path / "play.db")
    db.execute("UPDATE games SET style = NULL")
    db.commit()
    db.close()
    again = Store(tmp_path / "play.db")
    assert {rid: again.get(rid)["style"] for rid in styles} == styles
    again.close()


def test_links_name_records_never_games(app):
    app, store = app
    client = TestClient(app, base_url=LOCAL)
    gid, state, _ = play(client, app.state.hub, random.Random(5), flags=0)
    rid = state["record_id"]
    r = client.get(f"/replay/{rid}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/records#{rid}"
    r = client.get(f"/board/{rid}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/?again={rid}"
    # the board of a game quit in play is not handed out; nor is any record that does not exist
    s = client.post("/api/games", json={"mode": "safe", "level": "beginner", "session": "q"}).json()
    client.post(f"/api/games/{s['id']}/actions", json={"kind": "open", "x": 4, "y": 4})
    client.post("/api/games", json={"mode": "safe", "level": "beginner", "session": "q"})
    quit_id = max(r["id"] for r in client.get("/api/records").json()["records"])
    assert store.get(quit_id)["status"] == "quit"
    for url, words in [(f"/board/{quit_id}", "was quit"), ("/board/999", "no record 999"),
                       ("/replay/999", "no record 999"), ("/replay/１", "not a record number"),
                       ("/board/-1", "not a record number")]:
        r = client.get(url, follow_redirects=False)
        assert r.status_code == 404 and words in r.text and r.headers["content-type"].startswith("text/html"), url
    # nothing a link or the records' API shows holds a game id
    for url in (f"/api/records/{rid}", f"/api/records/{rid}/path", "/api/records", "/api/tables"):
        assert gid not in client.get(url).text
    # a board played again from the link is practice: never a best time
    again = client.post("/api/games", json={"again": rid}).json()
    assert again["practice"] and again["again"] == rid
    rec = store.get(rid)
    for a in rec["record"]["actions"]:
        st = client.post(f"/api/games/{again['id']}/actions", json={"kind": a[0], "x": a[1], "y": a[2]}).json()
    assert st["status"] == "won" and not st["eligible"]
    assert {t["id"] for t in client.get("/api/tables").json()["tables"]} == {rid}



def test_any_path_body_and_any_link_get_a_clear_answer_never_a_5xx(tmp_path):
    from urllib.parse import quote

    from hypothesis import HealthCheck
    store = Store(tmp_path / "fuzz.db")
    app = create_app(store)
    client = TestClient(app, base_url=LOCAL)
    gid, state, events = play(client, app.state.hub, random.Random(6), flags=0)
    ints = st.integers(-2 ** 40, 2 ** 40) | st.integers(-3, 200)
    leaves = st.none() | st.booleans() | ints | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5)
    values = st.recursive(leaves,
                          lambda kids: st.lists(kids, max_size=12) | st.dictionaries(st.text(max_size=5), kids, max_size=3),
                          max_leaves=40)

    @settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
    @given(path=st.lists(ints, max_size=40) | values, link=st.text(max_size=30))
    def check(path, link):
        r = client.post(f"/api/games/{gid}/path", json={"path": path})
        assert r.status_code in (400, 413) and r.json()["error"], r.text  # (no list of these is this game's clicks)
        for kind in ("replay", "board"):
            r = client.get(f"/{kind}/{quote(link, safe='')}")  # (a trailing "/" is redirected without it)
            assert r.status_code in (200, 404), (link, r.status_code)

    check()
    assert store.get(state["record_id"])["path"] is None
    store.close()


@pytest.mark.slow
@settings(max_examples=25)
@given(seed=st.integers(0, 10 ** 6), steps=st.integers(0, 40), marks=st.booleans())
def test_a_games_style_is_ms_toollibs_no_effective_right_click(seed, steps, marks):
    # random games with opens, flags (on mines and off them, "?" marks or not) and chords, written as EVF:
    # NF exactly when ms-toollib counts no effective right click, and the file's NF flag says the same
    rng = random.Random(seed)
    game = play_random(uniform_board(rng.randint(4, 9), rng.randint(4, 9), rng.randint(2, 12), seed), rng, steps,
                       marks=marks)
    record = {"played_board": game.board.to_dict(), "actions": [a.to_list() for a in game.log], "marks": marks}
    data = game_to_evf(game)
    t = toollib_read(data)
    assert (style_of(record) == "nf") == (t["rce"] == 0) == bool(data[1] & 0x10)
