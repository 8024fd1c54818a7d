"""Games in play kept in SQLite and made again after a restart; the clock; honest best times and
statistics in the store; limits from the generators; hints in a player's words."""

from __future__ import annotations

import itertools
import re
import sqlite3

import numpy as np
import pytest
from starlette.testclient import TestClient

import sweeplab.solver as solver
from sweeplab import generators
from sweeplab.board import Board
from sweeplab.errors import GameGoneError
from sweeplab.firstclick import Safe
from sweeplab.game import Game, replay, replay_steps
from sweeplab.generators.winmine import version
from sweeplab.play import modes as M
from sweeplab.play.games import Hub
from sweeplab.play.server import create_app
from sweeplab.play.store import Store


@pytest.fixture()
def store(tmp_path):
    s = Store(tmp_path / "play.db")
    yield s
    s.close()


def restart(store) -> Hub:
    """A new hub on the same file: what a restarted server has (nothing in memory)."""
    return Hub(store)


def safe_cells(board: Board):
    return [(x, y) for y in range(board.height) for x in range(board.width) if not board.is_mine(x, y)]


# --- the engine's public API that play uses ---------------------------------------------------
class SlowSafe(Safe):
    """A safe first click whose board takes 5 s (on the game's clock) to lay, like a cold compile."""

    def __init__(self, clock, *a):
        super().__init__(*a)
        self.clock = clock

    def board_for(self, x, y):
        self.clock[0] += 5.0
        return super().board_for(x, y)


def test_the_clock_starts_once_the_board_is_laid():
    clock = [100.0]
    g = Game(rule=SlowSafe(clock, 9, 9, 10, 1), clock=lambda: clock[0])
    g.open(4, 4)
    assert g.elapsed == 0.0 and g.timer == 1  # the 5 s of laying are not the player's
    clock[0] += 2.5
    assert g.elapsed == 2.5 and g.timer == 3 and g.now == 7.5 and g.log[0].t == 5.0
    # and the log says when the player's time began, so a replay reads the same
    again = replay(None, [a.to_list() for a in g.log], rule=Safe(9, 9, 10, 1), now=g.now)
    assert again.board == g.board and 2.5 <= again.elapsed < 3.5


def test_replay_steps_give_the_game_after_each_action_and_replay_continues_the_clock():
    g = Game(rule=Safe(9, 9, 10, 3), clock=iter(np.arange(0.0, 100.0, 0.75)).__next__)
    cells = safe_cells(Safe(9, 9, 10, 3).board_for(4, 4)[0])
    g.open(4, 4)
    for x, y in cells[:5]:
        if g.over:
            break
        g.flag(x, y)
        g.flag(x, y)
        g.open(x, y) if not g.over else None
    log = [a.to_list() for a in g.log]
    seen = [(game.status, game.timer) for game in replay_steps(None, log, rule=Safe(9, 9, 10, 3))]
    assert len(seen) == len(log) + 1 and seen[0] == ("ready", 0) and seen[1] == ("playing", 1)
    *_, last = replay_steps(None, log, rule=Safe(9, 9, 10, 3))
    assert last.cell_codes().tobytes() == g.cell_codes().tobytes()
    # the clock held at the last action: the time from the first opening to it
    assert last.elapsed == pytest.approx(log[-1][3] - log[0][3]) and last.timer == int(last.elapsed) + 1
    assert last.status == g.status and last.mines_left == g.mines_left
    resumed = replay(None, log, rule=Safe(9, 9, 10, 3), now=log[-1][3] + 60.0)
    assert resumed.cell_codes().tobytes() == g.cell_codes().tobytes()
    if not resumed.over:  # the 60 s it was away count
        assert resumed.elapsed >= g.elapsed + 59.0


# --- resuming after a restart ------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["safe", "noguess", "win7", "winxp", "win98"])
def test_every_mode_resumes_the_same_game(store, mode):
    hub = Hub(store)
    pg = hub.new(mode=mode, level="beginner", session="tab")
    hub.act(pg, "open", 3, 3)
    board = pg.game.board
    hidden = next((x, y) for x, y in safe_cells(board) if pg.game.cell_state(x, y) == "hidden")
    mine = next(iter(board.mine_positions()))
    hub.act(pg, "flag", *mine)
    before = hub.state(pg)
    again = restart(store).get(pg.id)
    assert again is not pg and again.game.board == board and again.seed == pg.seed
    after = restart(store).state(again)
    assert {k: v for k, v in after.items() if k not in ("timer", "elapsed")} == \
           {k: v for k, v in before.items() if k not in ("timer", "elapsed")}
    assert after["elapsed"] >= before["elapsed"]
    hub2 = Hub(store)
    g2 = hub2.get(pg.id)
    hub2.act(g2, "open", *hidden)
    assert len(store.live(pg.id)["actions"]) == 3


def test_a_resumed_game_is_won_and_is_a_best_time(store):
    hub = Hub(store)
    pg = hub.new(mode="noguess", level="beginner")  # the server drew the seed
    hub.act(pg, "open", 4, 4)
    hub2 = restart(store)
    g = hub2.get(pg.id)
    for x, y in safe_cells(g.game.board):
        if g.game.status == "playing":
            s = hub2.act(g, "open", x, y)
    assert s["status"] == "won" and s["eligible"] and s["new_best"] and s["seed"] == str(pg.seed)
    assert store.live(pg.id) is None and store.best_times()[0]["id"] == s["record_id"]


def test_a_game_over_but_not_filed_before_the_restart_is_filed_on_resume(store):
    hub = Hub(store)
    pg = hub.new(mode="safe", level="beginner", seed="9")
    hub.act(pg, "open", 4, 4, file=False)
    hub.act(pg, "open", *next(iter(pg.game.board.mine_positions())), file=False)  # lost, then the server died
    assert pg.game.status == "lost" and store.count() == 0
    again = restart(store).get(pg.id)
    assert again.record_id is not None and store.get(again.record_id)["status"] == "lost"


def test_a_game_that_cannot_be_made_again_is_filed_as_abandoned(store, monkeypatch, tmp_path):
    hub = Hub(store)
    pg = hub.new(mode="win7", level="beginner")
    hub.act(pg, "open", 4, 4)
    real = M.availability
    monkeypatch.setattr(M, "availability", lambda name: "not available: removed" if name == "win7" else real(name))
    with pytest.raises(GameGoneError) as e:
        restart(store).get(pg.id)
    rec = store.get(e.value.record_id)
    assert rec["status"] == "abandoned" and rec["game_id"] == pg.id and "removed" in rec["record"]["abandoned"]
    assert store.live(pg.id) is None and store.statistics() == []  # not counted as played
    # the API says so: 410, the record, and words for the page
    pg = hub.new(mode="safe", level="beginner")
    monkeypatch.setattr(M, "availability", lambda name: "not available: removed" if name == "safe" else real(name))
    with TestClient(create_app(store), base_url="http://localhost:8000") as c:
        r = c.post(f"/api/games/{pg.id}/actions", json={"kind": "open", "x": 0, "y": 0})
        assert r.status_code == 410 and r.json()["abandoned"] and "abandoned" in r.json()["error"]
        assert c.get("/api/records?status=abandoned").json()["total"] == 2


def test_a_new_game_of_a_session_throws_its_unfinished_game_away(store):
    hub = Hub(store)
    a = hub.new(mode="safe", session="tab-1")
    b = hub.new(mode="safe", session="tab-2")
    c = hub.new(mode="safe", session="tab-1")
    assert store.live(a.id) is None and store.live(b.id) and store.live(c.id)
    assert store.live_count() == 2


# --- the store: old files, statistics, best times ----------------------------------------------
def test_an_old_database_gains_the_new_columns(tmp_path):
    db = tmp_path / "old.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE games (id INTEGER PRIMARY KEY AUTOINCREMENT, game_id TEXT NOT NULL UNIQUE, "
                "finished_at REAL NOT NULL, mode TEXT NOT NULL, level TEXT NOT NULL, width INTEGER NOT NULL, "
                "height INTEGER NOT NULL, mines INTEGER NOT NULL, seed INTEGER, seed_private INTEGER NOT NULL "
                "DEFAULT 0, marks INTEGER NOT NULL, hints INTEGER NOT NULL, status TEXT NOT NULL, elapsed REAL "
                "NOT NULL, timer INTEGER NOT NULL, bbbv INTEGER NOT NULL, bbbv_per_second REAL NOT NULL, ioe REAL "
                "NOT NULL, record TEXT NOT NULL)")
    con.execute("INSERT INTO games (game_id, finished_at, mode, level, width, height, mines, seed, marks, hints, "
                "status, elapsed, timer, bbbv, bbbv_per_second, ioe, record) VALUES ('g', 1, 'safe', 'beginner', 9, 9, "
                "10, 5, 1, 0, 'won', 7.5, 8, 10, 1.3, 1.0, '{}')")
    con.commit()
    con.close()
    s = Store(db)
    assert s.records()[0][0]["practice"] == 0 and s.best_times()[0]["elapsed"] == 7.5
    s.close()


def test_statistics_and_streaks(store):
    results = "WWLWWWLWLLW"
    for i, r in enumerate(results):
        store.add({"game_id": f"g{i}", "finished_at": i, "mode": "safe", "level": "beginner", "width": 9, "height": 9,
                   "mines": 10, "seed": i, "seed_private": 0, "marks": 1, "hints": 0,
                   "status": "won" if r == "W" else "lost", "elapsed": 10.0 + i, "timer": 11, "bbbv": 5,
                   "bbbv_per_second": 0.5, "ioe": 1.0, "record": {}})
    store.add({"game_id": "p", "finished_at": 99, "mode": "safe", "level": "beginner", "width": 9, "height": 9,
               "mines": 10, "seed": 1, "seed_private": 0, "marks": 1, "hints": 0, "status": "won", "elapsed": 0.01,
               "timer": 1, "bbbv": 5, "bbbv_per_second": 500, "ioe": 1.0, "practice": 1, "record": {}})
    (s,) = store.statistics()
    runs = [len(list(g)) for k, g in itertools.groupby(results) if k == "W"]
    assert (s["played"], s["won"]) == (len(results), results.count("W"))
    assert s["best_streak"] == max(runs) and s["streak"] == len(results) - len(results.rstrip("W"))
    assert s["win_percent"] == round(100 * results.count("W") / len(results), 1)
    top = store.top_times(3)
    wins = sorted(10.0 + i for i, r in enumerate(results) if r == "W")
    assert [t["elapsed"] for t in top] == wins[:3] and [t["rank"] for t in top] == [1, 2, 3]
    assert store.best_times()[0]["elapsed"] == wins[0]  # the practice game's 0.01 s is not a best time


# --- limits, one source --------------------------------------------------------------------------
def test_custom_limits_come_from_the_generators(store):
    with TestClient(create_app(store), base_url="http://127.0.0.1") as c:
        modes = {m["name"]: m for m in c.get("/api/modes").json()["modes"]}
        for name in ("winxp", "win98"):
            v = version(name)
            lim = modes[name]["limits"]
            assert lim["width"] == [v.min_side, v.max_width] and lim["height"] == [v.min_side, v.max_height]
            assert lim["mines"][0] == v.min_mines and lim["mines_cap"] == v.max_mines_cap
            assert modes[name]["levels"] == {k: list(lv) for k, lv in v.presets.items()}
            assert str(v.max_mines_cap) in lim["text"] and f"Width {v.min_side}" in lim["text"]
            top = v.max_mines(v.max_width, v.max_height)
            body = {"mode": name, "level": "custom", "width": v.max_width, "height": v.max_height}
            assert c.post("/api/games", json={**body, "mines": top}).status_code == 201
            r = c.post("/api/games", json={**body, "mines": top + 1})
            assert r.status_code == 400 and f"{v.min_mines}..{top}" in r.json()["error"]
        assert modes["safe"]["limits"]["mines_cap"] is None and "999" not in modes["safe"]["limits"]["text"]
        for name, m in modes.items():  # every mode's limits are its generator's, from the registry
            assert m["limits"] == generators.lookup(M.MODES[name].generator).limits.as_dict()
        assert modes["win7"]["limits"]["mines"][0] == 10 and modes["win7"]["limits"]["width"] == [9, 30]
        assert all(m["about"] for m in modes.values())
        assert modes["winxp"]["best_times"] == "session" and modes["noguess"]["best_times"] == "best"


@pytest.mark.slow
def test_hint_reasons_count_columns_and_rows_from_1(store):
    hub = Hub(store)
    named = 0
    for seed in range(1, 40):
        pg = hub.new(mode="safe", seed=str(seed))
        hub.act(pg, "open", 4, 4)
        if pg.game.over:
            continue
        advice = solver.hint(pg.game.view())  # the same advice, its cells named from 0
        h = hub.hint(pg)
        assert h["cells"] == [list(c) for c in advice.cells] and h["why"] == [list(c) for c in advice.named]
        assert not re.search(r"\(\d+, \d+\)", h["reason"]), h["reason"]
        for x, y in [advice.cells[0], *advice.named]:
            assert f"column {x + 1}, row {y + 1}" in h["reason"], h["reason"]
        named += bool(advice.named)
        assert store.live(pg.id)["hints"] == 1 and restart(store).get(pg.id).hints_used == 1
    assert named >= 5  # most hints show their reason with a number on the board
