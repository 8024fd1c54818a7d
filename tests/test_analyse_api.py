"""The analysis board's JSON API over the real app and its real worker process: answers as the solver
gives them, bad input a 4xx and never a 500, the time limit, a game in play opened as its view only,
and the positions of finished games."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from sweeplab import View
from sweeplab.board import Board
from sweeplab.game import Game
from sweeplab.play.analyse_position import AnalysisPosition
from sweeplab.play.games import replay_frames
from sweeplab.play.server import create_app
from sweeplab.play.store import Store
from sweeplab.replays.judge import judge
from sweeplab.solver import analyse, hint

from .solver_positions import play_positions

LOCAL = "http://127.0.0.1:8000"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("analyse") / "play.db")
    c = TestClient(create_app(store), base_url=LOCAL)
    yield c
    store.close()


def lattice(n: int, seed: int) -> AnalysisPosition:
    """Numbers on every other cell of every other row, the rest hidden: one wide 2-D frontier, the
    kind of position that is slow or past the exact count's bound."""
    rng = np.random.default_rng(seed)
    opened = np.zeros((n, n), dtype=bool)
    opened[1::2, 1::2] = True
    board = Board(~opened & (rng.random((n, n)) < 0.25))
    cells = np.where(opened, board.numbers, -1).astype(np.int8)
    return AnalysisPosition(cells, board.mine_count)


def test_answers_are_the_solver_s(client):
    for v in play_positions(4, seed=7, flags=True):
        for trust in (False, True):
            r = client.post("/api/analyse", json={"code": AnalysisPosition(v.cells, v.mine_count).code, "trust_flags": trust})
            assert r.status_code == 200, r.text
            body = r.json()
            a = analyse(v, trust_flags=trust)
            assert body["status"] == "ok" and body["layouts"] == str(a.layouts)
            p = np.array([[np.nan if q is None else q for q in row] for row in body["probability"]])
            assert np.array_equal(np.isnan(p), np.isnan(a.probability))
            assert np.allclose(p, a.probability, equal_nan=True, rtol=0, atol=1e-15)
            h = hint(v, trust_flags=trust, name=lambda x, y: f"column {x + 1}, row {y + 1}")
            assert body["move"]["kind"] == h.kind and body["move"]["reason"] == h.reason
            assert body["position"]["cells"] == AnalysisPosition(v.cells, v.mine_count).text
            assert body["optimal"]["status"] == "unavailable" and "64 cells" in body["optimal"]["message"]


def test_every_form_of_a_position_gives_the_same_answer(client):
    import base64
    text = "mines: 3\n1##\n1##\n###\n"
    forms = [{"text": text}, {"code": "3x3x3.bH2bH5"}, {"cells": "1##1#####", "width": 3, "height": 3, "mines": 3},
             {"file": base64.b64encode(text.encode()).decode()}, {"text": "1 ? ?\n1 ? ?\n? ? ?", "mines": 3}]
    answers = [client.post("/api/analyse", json=f).json() for f in forms]
    for a in answers:
        a.pop("seconds")
    assert all(a == answers[0] for a in answers), answers


BAD = [
    ({}, "give the position once"),
    ({"code": "3x3x1.H9", "text": "1#"}, "give the position once"),
    ({"code": "3x3x1.H9", "colour": 1}, "unknown field"),
    ({"code": "nope"}, "not a position code"),
    ({"text": ["1#"]}, "text must be a string"),
    ({"cells": "##", "width": 3, "height": 1}, "has 2 characters"),
    ({"cells": "###", "width": 3, "height": 1, "mines": -1}, "mine total"),
    ({"code": "3x3x1.H9", "click": ["dig", 0, 0]}, "click must be"),
    ({"code": "3x3x1.H9", "click": ["open", 3, 0]}, "off the 3x3 board"),
    ({"code": "3x3x1.H9", "time_limit": 0}, "time_limit"),
    ({"code": "3x3x1.H9", "trust_flags": "yes"}, "trust_flags"),
    ({"file": "***"}, "base64"),
    ({"code": "1000x1000x1.H1000000"}, "at most"),
]


@pytest.mark.parametrize("body, words", BAD, ids=[w for _, w in BAD])
def test_bad_requests_say_what_is_wrong(client, body, words):
    r = client.post("/api/analyse", json=body)
    assert r.status_code == 400 and words in r.json()["error"], r.text


def test_bad_bodies(client):
    r = client.post("/api/analyse", content=b"{", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    r = client.post("/api/analyse", content=b"[1]", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "JSON object" in r.json()["error"]
    r = client.post("/api/analyse", content=b"x" * 70_000, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and "too large" in r.json()["error"]
    r = client.post("/api/analyse", content=b'{"code": "3x3x1.H9"}', headers={"Content-Type": "text/plain"})
    assert r.status_code == 415
    assert client.get("/api/analyse").status_code == 405
    for raw in (b'{"code": "3x3x1.H9", "time_limit": NaN}', b'{"code": "3x3x1.H9", "mines": Infinity}'):
        r = client.post("/api/analyse", content=raw, headers={"Content-Type": "application/json"})
        assert r.status_code == 400, r.text


json_values = st.recursive(st.none() | st.booleans() | st.integers(-5, 40) | st.floats(allow_nan=False, allow_infinity=False)
                           | st.text(alphabet="#F0123456789x.-HabcM?*\n ", max_size=30),
                           lambda inner: st.lists(inner, max_size=4), max_leaves=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(["code", "text", "cells", "width", "height", "mines", "topology",
                                        "trust_flags", "click", "optimal", "time_limit", "file", "other"]),
                       json_values, max_size=5))
def test_any_body_is_answered_never_500(client, body):
    r = client.post("/api/analyse", json=body)
    assert r.status_code in (200, 400), r.text
    if r.status_code == 400:
        assert r.json()["error"]


def test_past_the_time_limit_the_local_rules_answer(client):
    pos = lattice(12, 3)  # counted exactly in half a second, its best guess found in a third more
    r = client.post("/api/analyse", json={"code": pos.code, "time_limit": 0.05})
    body = r.json()
    assert r.status_code == 200 and body["timed_out"] and body["status"] == "too_complex", body
    assert "time limit of 0.05 s" in body["message"] and body["local"] is not None
    assert body["optimal"]["status"] == "unavailable"
    # the worker was stopped and another one answers the next request, in full
    r = client.post("/api/analyse", json={"code": pos.code, "time_limit": 30})
    assert r.json()["status"] == "ok" and not r.json()["timed_out"]


def test_past_the_exact_count_s_bound_the_local_rules_answer(client):
    body = client.post("/api/analyse", json={"code": lattice(20, 1).code}).json()
    assert body["status"] == "too_complex" and "counting-table entries" in body["message"]
    assert body["local"]["safe"] or body["local"]["mines"]


def test_impossible_and_unknown_totals(client):
    body = client.post("/api/analyse", json={"text": "mines: 2\n2#2\n#1#\n"}).json()
    assert body["status"] == "impossible" and body["conflict"]["kind"] == "numbers"
    assert sorted(body["conflict"]["numbers"]) == [[1, 1], [2, 0]]
    body = client.post("/api/analyse", json={"text": "1#1\n#1#\n"}).json()
    assert body["status"] == "no_total" and body["mines_certain"] == [[1, 0]]
    assert body["optimal"]["message"] == "perfect play needs the mine total"


def same_view_games(hub):
    """Two games in play whose boards differ but whose players see the same thing."""
    seen = {}
    for seed in range(200):
        pg = hub.new(mode="safe", level="beginner", seed=str(seed))
        hub.act(pg, "open", 0, 0)
        if pg.game.over:
            continue
        key = pg.game.view().to_text()
        if key in seen and seen[key].game.board != pg.game.board:
            return seen[key], pg
        seen[key] = pg
    raise AssertionError("no two seeds in 0..199 show the same first view on different boards")


def test_a_game_in_play_is_opened_as_its_view_only(tmp_path):
    store = Store(tmp_path / "p.db")
    app = create_app(store)
    client = TestClient(app, base_url=LOCAL)
    a, b = same_view_games(app.state.hub)
    answers = []
    for pg in (a, b):
        r = client.post(f"/api/analyse/game/{pg.id}", json={})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["hints_used"] == 1 and not app.state.hub.get(pg.id).eligible  # a hint: no best time
        assert AnalysisPosition.from_code(body["position"]["code"]).view() == pg.game.view()
        analysed = client.post("/api/analyse", json={"code": body["position"]["code"]}).json()
        analysed.pop("seconds")
        answers.append((json.dumps(body["position"]), json.dumps(analysed, sort_keys=True)))
    # the boards differ, the answers are the same byte for byte: nothing but the view reached them
    assert answers[0] == answers[1]
    mines = {tuple(m) for m in a.game.board.mine_positions()} ^ {tuple(m) for m in b.game.board.mine_positions()}
    assert mines
    assert client.post("/api/analyse/game/no-such-game", json={}).status_code == 404
    store.close()


def test_finished_games_open_at_any_step(tmp_path):
    store = Store(tmp_path / "p.db")
    app = create_app(store)
    client = TestClient(app, base_url=LOCAL)
    hub = app.state.hub
    for seed in range(100):  # a game lost on a guess: open the corner, then the first hidden cells in turn
        pg = hub.new(mode="safe", level="beginner", seed=str(seed))
        hub.act(pg, "open", 4, 4)
        i = 0
        while not pg.game.over:
            v = pg.game.view().cells.reshape(-1)
            i = int(np.flatnonzero(v == -1)[0])
            hub.act(pg, "open", i % 9, i // 9)
        if pg.game.status == "lost" and len(pg.game.log) >= 3:
            break
    rid = pg.record_id
    rec = store.get(rid)
    frames = replay_frames(rec["record"])
    steps = len(rec["record"]["actions"])
    default = client.get(f"/api/analyse/record/{rid}").json()
    assert default["lost"] and default["step"] == steps - 1 and default["click"] == rec["record"]["actions"][-1][:3]
    for step in range(steps):
        s = client.get(f"/api/analyse/record/{rid}?step={step}").json()
        shown = frames[step]["cells"].replace("?", "#")
        assert s["position"]["cells"] == shown and s["click"] == rec["record"]["actions"][step][:3]
    # the fatal click judged as the replays' judge judges it
    body = client.post("/api/analyse", json={"code": default["position"]["code"], "click": default["click"]}).json()
    board = Board.from_dict(rec["record"]["played_board"])
    g = Game(board)
    for kind, x, y, _ in rec["record"]["actions"]:
        g.act(kind, x, y)
    last = judge(g).clicks[-1]
    assert Fraction(body["click"]["risk_exact"]) == last.risk and body["click"]["forced"] == last.forced
    # the game itself, once over, opens at the same step
    assert client.post(f"/api/analyse/game/{pg.id}", json={}).json()["position"] == default["position"]
    assert client.get(f"/api/analyse/record/{rid}?step={steps + 1}").status_code == 400
    assert client.get(f"/api/analyse/record/{rid}?step=-1").status_code == 400
    assert client.get("/api/analyse/record/99999").status_code == 404
    assert client.get("/api/analyse/record/x1").status_code == 400
    store.close()


def test_the_page_is_served(client):
    r = client.get("/analyse")
    assert r.status_code == 200 and "/static/analyse.js" in r.text
    assert client.get("/static/analyse.js").status_code == 200


def test_view_text_round_trip_through_the_api(client):
    v = View.from_text("mines: 4\n##1#\n#21#\n####\n")
    body = client.post("/api/analyse", json={"text": v.to_text()}).json()
    assert AnalysisPosition.from_code(body["position"]["code"]).view() == v


def test_the_command_opens_a_file_s_position(tmp_path):
    import subprocess
    import sys

    import httpx
    f = tmp_path / "p.txt"
    f.write_text("mines: 2\n1##\n###\n")
    proc = subprocess.Popen([sys.executable, "-m", "sweeplab", "analyse", str(f), "--no-browser", "--port", "0",
                             "--db", str(tmp_path / "p.db")], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = line.split("serving at ")[1].split()[0]
        assert url.endswith("/analyse#p=3x2x2.bH5"), line
        assert "analyse.js" in httpx.get(url.split("#")[0]).text
    finally:
        proc.terminate()
        proc.wait(30)
        proc.stdout.close()
    f.write_text("1 x\n")
    bad = subprocess.run([sys.executable, "-m", "sweeplab", "analyse", str(f), "--no-browser"], capture_output=True,
                         text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "cannot read the row" in bad.stderr
