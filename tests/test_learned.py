"""The learned player: its numpy forward pass against a plain convolution, the shipped weights on
every size, the view as its only input, seeded determinism, and the imitation data it trains on."""

from __future__ import annotations

import numpy as np
import pytest

from sweeplab import Game, View, make_rule
from sweeplab.errors import SweeplabError
from sweeplab.lab.autoplay import autoplay
from sweeplab.lab.runner import BenchSpec, run
from sweeplab.solver.complete import analyse
from sweeplab.solver.learned import PLANES, WEIGHTS, LearnedPlayer, planes_of, position_analysis, shipped_net
from sweeplab.solver.players import PLAYERS, make_player
from sweeplab.solver.policy_net import PolicyFileError, PolicyNet
from sweeplab.view import FLAG, HIDDEN


def plain_logits(net: PolicyNet, x: np.ndarray, wrap: bool) -> np.ndarray:
    """The network's definition written out cell by cell: each 3x3 layer sums weight x input over
    the window around the cell (outside the board: 0, or the other side on a torus), adds its bias,
    keeps the positive part; the head weighs the last layer's channels and the input planes."""
    h, w, _ = x.shape
    act = x.astype(np.float64)
    for weight, bias in net.convs:
        nxt = np.zeros((h, w, weight.shape[0]))
        for y in range(h):
            for c in range(w):
                for o in range(weight.shape[0]):
                    s = float(bias[o])
                    for dy in range(3):
                        for dx in range(3):
                            yy, cc = y + dy - 1, c + dx - 1
                            if wrap:
                                yy, cc = yy % h, cc % w
                            elif not (0 <= yy < h and 0 <= cc < w):
                                continue
                            s += float(np.dot(weight[o, :, dy, dx], act[yy, cc]))
                    nxt[y, c, o] = max(s, 0.0)
        act = nxt
    hw, hb = net.head
    return np.concatenate([act, x], axis=-1) @ hw[0, :, 0, 0].astype(np.float64) + float(hb[0])


def random_net(rng, planes: int | None = None, channels=5, layers=3) -> PolicyNet:
    planes = len(PLANES) if planes is None else planes
    convs, cin = [], planes
    for _ in range(layers):
        convs.append((rng.normal(size=(channels, cin, 3, 3)), rng.normal(size=channels)))
        cin = channels
    return PolicyNet(convs, (rng.normal(size=(1, channels + planes, 1, 1)), rng.normal(size=1)))


@pytest.mark.parametrize("h, w, wrap", [(1, 1, False), (2, 5, False), (7, 4, False), (4, 6, True), (3, 3, True)])
def test_forward_pass_is_the_convolution_written_out(h, w, wrap):
    rng = np.random.default_rng(h * 100 + w)
    net = random_net(rng)
    x = rng.normal(size=(h, w, len(PLANES))).astype(np.float32)
    np.testing.assert_allclose(net.logits(x, wrap=wrap), plain_logits(net, x, wrap), rtol=1e-4, atol=1e-4)
    both = net.logits(np.stack([x, 2 * x]), wrap=wrap)  # a batch is each position on its own
    np.testing.assert_allclose(both[1], plain_logits(net, 2 * x, wrap), rtol=1e-4, atol=1e-4)


def test_shipped_weights_load_run_the_planes_and_stay_small():
    net = shipped_net()
    assert net.planes == len(PLANES) and net.meta["planes"] == list(PLANES)
    assert WEIGHTS.stat().st_size < 3_000_000
    x = np.random.default_rng(0).random((5, 6, len(PLANES))).astype(np.float32)
    np.testing.assert_allclose(net.logits(x), plain_logits(net, x, False), rtol=1e-3, atol=1e-3)


def test_weights_file_round_trip_and_bad_files(tmp_path):
    net = random_net(np.random.default_rng(1))
    net.meta = {"planes": list(PLANES)}
    net.save(tmp_path / "p.npz")
    again = PolicyNet.load(tmp_path / "p.npz")
    x = np.ones((3, 4, len(PLANES)), np.float32)
    assert np.array_equal(again.logits(x), net.logits(x)) and again.meta["planes"] == list(PLANES)
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(PolicyFileError, match="not a policy weights file"):
        PolicyNet.load(tmp_path / "bad.npz")
    np.savez(tmp_path / "empty.npz", meta=np.array("{}"))
    with pytest.raises(PolicyFileError, match="expected meta, conv0"):
        PolicyNet.load(tmp_path / "empty.npz")
    with pytest.raises(PolicyFileError, match="do not chain"):
        PolicyNet([(np.zeros((4, 3, 3, 3)), np.zeros(4)), (np.zeros((4, 5, 3, 3)), np.zeros(4))],
                  (np.zeros((1, 7, 1, 1)), np.zeros(1)))
    with pytest.raises(SweeplabError, match="input planes"):
        LearnedPlayer(0, random_net(np.random.default_rng(2), planes=4))


def test_planes_say_what_the_view_and_the_analysis_say():
    view = View.from_text("mines: 2\n1F#\n12#\n###\n")
    p, safe, mines, exact = position_analysis(view)
    a = analyse(view)
    assert exact and np.array_equal(safe, a.safe) and np.array_equal(mines, a.mines)
    x = planes_of(view.cells, p, safe, mines)
    hidden = (view.cells == HIDDEN) | (view.cells == FLAG)
    assert np.array_equal(x[..., 0] == 1, hidden)
    for k in range(9):
        assert np.array_equal(x[..., 1 + k] == 1, view.cells == k)
    assert np.allclose(x[..., 10][hidden], a.probability[hidden]) and not x[..., 10][~hidden].any()
    assert np.array_equal(x[..., 11] == 1, a.safe & hidden) and np.array_equal(x[..., 12] == 1, a.mines & hidden)
    assert x.sum(axis=-1)[~hidden].tolist() == [1.0] * int((~hidden).sum())  # one number plane per open cell


@pytest.mark.parametrize("w, h, m, rule, topology", [
    (1, 1, 0, "safe", "bounded"), (1, 8, 2, "safe", "bounded"), (5, 3, 4, "none", "bounded"),
    (8, 8, 10, "safe", "bounded"), (9, 9, 10, "opening", "bounded"), (16, 16, 40, "opening", "bounded"),
    (30, 16, 99, "opening", "bounded"), (13, 7, 20, "safe", "bounded"), (45, 4, 30, "opening", "bounded"),
    (6, 6, 5, "safe", "torus"), (12, 9, 18, "opening", "torus")])
def test_learned_player_plays_legal_games_on_every_size(w, h, m, rule, topology):
    """Whole games to their end: the autoplayer raises on a move that is not a hidden cell's; a
    move the player calls certain never hits a mine."""
    games = 2 if w * h > 300 else 5
    for i in range(games):
        game = Game(rule=make_rule(rule, w, h, m, 77 + i, topology))
        r = autoplay(game, make_player("learned", i), None, record=True)
        assert game.over and r.won == (game.status == "won")
        assert all(not game.board.mines[p.move.y, p.move.x] for p in r.moves if p.move.certain)


def test_learned_player_sees_only_the_view():
    """The same view rebuilt from its text (no game anywhere) gives the same move; the player holds
    its seed and its network, no game or board."""
    game = Game(rule=make_rule("opening", 30, 16, 99, 7))
    game.open(3, 3)
    for _ in range(30):
        view = game.view()
        a, b = make_player("learned", 5), make_player("learned", 5)
        assert a.moves(view) == b.moves(View.from_text(view.to_text()))
        assert set(vars(a)) == {"rng", "net"}
        with pytest.raises(TypeError, match="only a sweeplab View"):
            a.moves(game)
        move = a.moves(view)[0]
        game.open(move.x, move.y)
        if game.over:
            break


def test_learned_player_opens_every_proven_safe_cell_after_its_networks_safe_pick():
    """The first move is the network's highest-scored hidden cell; when it is proven safe the rest
    are exactly the other proven-safe cells, all certain; a guess comes alone."""
    game = Game(rule=make_rule("opening", 16, 16, 40, 3))
    game.open(2, 2)
    turns = {"safe": 0, "guess": 0}
    while not game.over:
        view = game.view()
        player = make_player("learned", 1)
        moves = player.moves(view)
        score = player.scores(view)
        a = analyse(view)
        first = moves[0]
        assert score[first.y, first.x] == score.max()
        if a.safe[first.y, first.x]:
            turns["safe"] += 1
            assert {(m.x, m.y) for m in moves} == set(zip(*np.nonzero((a.safe & view.hidden).T)))
            assert len(moves) == len({(m.x, m.y) for m in moves}) and all(m.certain for m in moves)
        else:
            turns["guess"] += 1
            assert len(moves) == 1 and not first.certain
        for m in moves:
            if game.over:
                break
            if game.cell_state(m.x, m.y) != "open":
                game.open(m.x, m.y)
    assert turns["safe"] > 3


def test_learned_player_is_registered_and_seeded():
    assert "learned" in PLAYERS and make_player("learned", 0).name == "learned"
    spec = BenchSpec("learned", 9, 9, 10, "opening", (2, 2), 11)
    a, b = run(spec, 40, workers=1), run(spec, 40, workers=1)
    assert a.outcome() == b.outcome() and a.wins > 0 and a.unsound == 0


def test_bench_learned_plays_the_lab_runners_games_and_judges_each_move():
    """benchmarks/bench_learned.py's games are `sweeplab bench`'s (same wins), and it judges every
    move against the analysis: a move into a proven mine is 'mine', a guess beside a proven-safe
    cell 'ignored'."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from bench_learned import Judged, play

    got = play("learned", "beginner-opening", 3, 0, 12)
    bench = run(BenchSpec("learned", 9, 9, 10, "opening", (2, 2), 3), 12, workers=1)
    assert (len(got["won"]), sum(got["won"])) == (bench.games, bench.wins)
    assert sum(got["kinds"].values()) > 12 and got["kinds"]["certain"] > 0

    class Scripted:  # opens the cells it is told, in order
        name = "scripted"

        def __init__(self, cells):
            self.cells = list(cells)

        def moves(self, view):
            from sweeplab.solver.players import Move
            x, y = self.cells.pop(0)
            return [Move("open", x, y, False)]

    view = View.from_text("mines: 1\n1##\n1##\n###\n")  # (1,0) or (1,1) holds the mine; (2,*) safe
    judged = Judged(Scripted([(1, 0), (0, 2), (2, 0)]))
    for _ in range(3):
        judged.moves(view)
    assert judged.kinds == ["ignored", "certain", "certain"]
    judged = Judged(Scripted([(1, 1)]))
    judged.moves(View.from_text("mines: 1\n11\n1#\n"))  # its one hidden cell is the mine
    assert judged.kinds == ["mine"]


def test_hint_gives_the_learned_players_guess_when_asked():
    from sweeplab.solver import hint
    view = View.from_text("mines: 10\n" + "#########\n" * 9)  # nothing opened: nothing certain
    h = hint(view, player="learned")
    assert h.kind == "guess" and "learned player opens" in h.reason
    (move,) = make_player("learned", 0).moves(view)
    assert h.cells == [(move.x, move.y)]
    assert hint(View.from_text("mines: 1\n1#\n"), player="learned").kind == "mine"  # certain: the analysis's
    with pytest.raises(SweeplabError, match="unknown player 'nobody'"):
        hint(view, player="nobody")
