"""Practice with the solver over the real app, its real analysis worker and a real SQLite file: the odds
are the analysis board's answer for the player's view and nothing else (two boards that look the same
get the same answer), the solver's steps are `strong`'s moves from the view, made as moves and counted
as hints, and a game that may count for best times is refused."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from starlette.testclient import TestClient

from sweeplab import generators
from sweeplab.errors import NoMoveError
from sweeplab.game import Game
from sweeplab.play.analyse import WORKER
from sweeplab.play.analyse_position import AnalysisPosition
from sweeplab.play.practice import solver_move
from sweeplab.play.server import create_app
from sweeplab.play.store import Store
from sweeplab.solver import analyse
from sweeplab.solver.players import StrongPlayer
from sweeplab.view import FLAG, HIDDEN, View

LOCAL = "http://127.0.0.1:8000"
TIMING = ("seconds",)  # how long the worker took: the one field two answers for one view may differ in


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("practice") / "play.db")
    c = TestClient(create_app(store), base_url=LOCAL)
    WORKER.start()  # its first start may load or compile its kernels: not the tests' time
    yield c
    store.close()


def new_game(client, session, **kw) -> dict:
    r = client.post("/api/games", json={"mode": "safe", "level": "beginner", "session": session, **kw})
    assert r.status_code == 201, r.text
    return r.json()


def view_of(state: dict) -> View:
    """The view as the player sees it in the game's JSON ("?" is a hidden cell to the solver)."""
    codes = {"#": HIDDEN, "?": HIDDEN, "F": FLAG, **{str(k): k for k in range(9)}}
    cells = np.array([codes[c] for c in state["cells"]], dtype=np.int8).reshape(state["height"], state["width"])
    return View(cells, state["mines"])


def two_boards_that_look_the_same() -> tuple[int, int, str]:
    """Two seeds of the safe-first-click mode whose boards differ but show the same view after a first
    click in the top-left corner, the view with the most open cells among those found."""
    seen = defaultdict(list)
    for seed in range(3000):
        game = Game(rule=generators.make("uniform", 9, 9, 10, seed, first_click="safe"))
        game.open(0, 0)
        seen[game.view().to_text()].append((seed, game.board.flat_mines.tobytes()))
    twins = {text: found for text, found in seen.items() if len({mines for _, mines in found}) > 1}
    text = max(twins, key=lambda t: sum(c in "012345678" for c in t.split("\n", 1)[1]))
    (a, _), (b, _) = next((x, y) for x in twins[text] for y in twins[text] if x[1] != y[1])
    return a, b, text


def test_a_game_that_may_count_for_best_times_is_refused(client):
    s = new_game(client, "ranked")
    before = client.post(f"/api/games/{s['id']}/actions", json={"kind": "open", "x": 4, "y": 4}).json()
    for what in ("odds", "step"):
        r = client.post(f"/api/practice/{s['id']}/{what}", json={"session": "ranked"})
        assert r.status_code == 403, r.text
        assert "practice games only" in r.json()["error"] and "cheating" in r.json()["error"]
    after = client.get(f"/api/games/{s['id']}").json()
    assert after["hints_used"] == 0 and after["cells"] == before["cells"] and not after["practice"]


def test_bad_requests_are_4xx(client):
    s = new_game(client, "mine", seed="7")
    cases = [(f"/api/practice/{s['id']}/odds", {"session": "another tab"}, 403, "only the tab that started"),
             (f"/api/practice/{s['id']}/step", {"session": "mine", "x": 1}, 400, "unknown field"),
             ("/api/practice/no-such-game/odds", {"session": "mine"}, 404, "no game"),
             (f"/api/practice/{s['id']}/odds", [], 400, "JSON object")]
    for path, body, status, words in cases:
        r = client.post(path, json=body)
        assert r.status_code == status and words in r.json()["error"], (path, r.status_code, r.text)
    assert client.get(f"/api/games/{s['id']}").json()["hints_used"] == 0


def test_the_odds_are_the_analysis_of_the_view_alone(client):
    a, b, text = two_boards_that_look_the_same()
    answers = []
    for seed in (a, b):
        s = new_game(client, f"twin {seed}", seed=str(seed))
        state = client.post(f"/api/games/{s['id']}/actions", json={"kind": "open", "x": 0, "y": 0}).json()
        view = view_of(state)
        assert view.to_text() == text
        r = client.post(f"/api/practice/{s['id']}/odds", json={"session": f"twin {seed}"})
        assert r.status_code == 200, r.text
        answers.append({k: v for k, v in r.json().items() if k not in TIMING})
    assert answers[0] == answers[1]  # different mines, the same view: the same answer, to the bit
    got = answers[0]
    assert "*" not in got["cells"] and not {"board", "seed", "mines_at"} & set(got)
    # ... and it is the analysis board's answer for that view, given as a position alone
    board = client.post("/api/analyse", json={"code": AnalysisPosition(view.cells, view.mine_count).code, "optimal": False})
    assert {k: v for k, v in board.json().items() if k not in TIMING} == {k: v for k, v in got.items() if k != "cells"}
    exact = analyse(view)
    for y in range(9):
        for x in range(9):
            p = got["probability"][y][x]
            assert (p is None) == (view.cells[y, x] >= 0)
            assert p is None or p == float(exact.probability[y, x])


def test_the_solver_plays_strong_s_moves_from_the_view_and_the_game_never_counts(client):
    s = new_game(client, "solver", seed="11")  # a game whose solver plays a guess, a flag off and certain cells
    client.post(f"/api/games/{s['id']}/actions", json={"kind": "open", "x": 4, "y": 4})
    client.post(f"/api/games/{s['id']}/actions", json={"kind": "flag", "x": 8, "y": 8})  # a flag strong ignores
    steps, seen = 0, set()
    state = client.get(f"/api/games/{s['id']}").json()
    while state["status"] == "playing":
        view = view_of(state)
        r = client.post(f"/api/practice/{s['id']}/step", json={"session": "solver"})
        assert r.status_code == 200, r.text
        move, state = r.json()["move"], r.json()["state"]
        steps += 1
        x, y = move["x"], move["y"]
        a = analyse(view)
        plain = view.cells.copy()
        plain[plain == FLAG] = HIDDEN  # strong never takes a flag for a mine
        if view.cells[y, x] == FLAG:  # a flag on strong's cell: taken off first, by a right click
            seen.add("flag off")
            assert move["kind"] == "flag" and (a.safe[y, x] or StrongPlayer(0).moves(View(plain, 10))[0][1:3] == (x, y))
        else:
            assert move["kind"] == "open" and view.cells[y, x] == HIDDEN
            if a.safe.any():
                seen.add("certain")
                assert a.safe[y, x]  # a certain cell first, whenever there is one
            else:
                seen.add("guess")
                m = StrongPlayer(0).moves(View(plain, view.mine_count))[0]
                assert (m.x, m.y) == (x, y)  # strong's own guess
        assert state["hints_used"] == steps
    assert seen == {"flag off", "certain", "guess"}
    rec = client.get(f"/api/records/{state['record_id']}").json()
    assert rec["practice"] and rec["hints"] == steps and not state["eligible"]
    kinds = [a[:3] for a in rec["record"]["actions"]]
    assert kinds[:2] == [["open", 4, 4], ["flag", 8, 8]] and len(kinds) == 2 + steps
    assert all(b["id"] != rec["id"] for b in client.get("/api/best").json()["best"])
    r = client.post(f"/api/practice/{s['id']}/step", json={"session": "solver"})
    assert r.status_code == 409 and "over" in r.json()["error"]


def test_a_step_opens_a_hidden_cell_of_the_move_and_takes_a_flag_off_only_where_it_must():
    cells = np.array([[1, FLAG, HIDDEN], [HIDDEN, FLAG, HIDDEN]], dtype=np.int8)
    assert solver_move(cells, {"kind": "safe", "cells": [[1, 0], [2, 0]], "reason": ""}) == ("open", 2, 0)
    assert solver_move(cells, {"kind": "safe", "cells": [[1, 1], [1, 0]], "reason": ""}) == ("flag", 1, 1)
    assert solver_move(cells, {"kind": "guess", "cells": [[1, 0]], "reason": ""}) == ("flag", 1, 0)
    assert solver_move(cells, {"kind": "guess", "cells": [[0, 1]], "reason": ""}) == ("open", 0, 1)
    with pytest.raises(NoMoveError) as e:
        solver_move(cells, {"kind": "guess", "cells": [], "reason": "Every hidden cell is flagged."})
    assert e.value.status == 409 and "Take a flag off" in str(e.value)
