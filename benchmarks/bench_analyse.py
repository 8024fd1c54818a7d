"""The analysis board's speed: an expert position mid-game analysed and drawn, again and again as its
cells are edited, in a real browser (Playwright driving /usr/bin/chromium) against a real server.

Positions: seeded uniform expert boards (30x16, 99 mines, first click on an opening), played by
`strong` until 30% to 70% of the safe cells are open, none won or lost. Each is opened in the page
from its link; then EDITS edits, each a key pressed over a hidden cell beside the open area that
turns it into its number on the board (as if a player opened it) or a flag, every one re-analysed
and redrawn before the next. The page records, per analysis drawn (window.sweeplabAnalyse.timings):

- server: the analysis job in the worker process (certain cells, probabilities, layouts, local
  rules, strong's move and reason, unavoidable guesses; perfect play is not searched on expert);
- round trip: from the request sent to its answer received (HTTP, JSON, the job);
- draw: from the answer to the board, its overlay and the report drawn;
- total: from the edit (the key's handler) to the drawing done.

Besides, each edited position is sent again over HTTP alone (no browser), in turn with the page's
rounds: the server's part of the round trip, apart from the browser's.

Two servers, in turn position by position (the same edits on each, which goes first alternating):
`sweeplab analyse` as its own process, as a person runs it (the figure); and the same app in a thread
of this process, beside Playwright's driver, as the tests serve it. The second shares this process's
interpreter with the driver, whose work while the page is waiting then delays the server's answers.

    python benchmarks/bench_analyse.py [--positions 20] [--edits 10] [--seed 1]

With --report, no browser and no server: the report's analysis alone (`analyse_report.analysis`, what
the worker computes before perfect play) of positions the engine reasons about without a usable
total, each timed --repeat times in a fresh process per source tree (--src, e.g. another checkout's
src/; the trees take turns, round by round), medians in milliseconds:

- impossible 100x100: a uniform 100x100 board with 2,060 mines (expert's density), every opening
  open, one number beside the unopened cells made one more than it is; with its total, and without;
- consistent 100x100, no total: the same board before the wrong number;
- expert, no total: an expert mid-game position as above (`midgame`), its total left out.

    python benchmarks/bench_analyse.py --report [--src DIR ...] [--rounds 3] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import httpx
import numpy as np

from sweeplab import grid
from sweeplab.game import Game
from sweeplab.generators.uniform import uniform_board
from sweeplab.play.analyse_position import AnalysisPosition
from sweeplab.play.server import bind, create_app, url_of
from sweeplab.play.store import Store
from sweeplab.solver.players import StrongPlayer

sys.path.insert(0, os.path.dirname(__file__))
from _timing import machine  # noqa: E402

CHROMIUM = os.environ.get("SWEEPLAB_CHROMIUM", "/usr/bin/chromium")
# a promise kept once the page has drawn an analysis of the position it shows (in an object: Playwright
# would wait for a promise handed back bare)
WAIT = """({drawn: new Promise(done => { const s = window.sweeplabAnalyse.state;
  const check = () => s.report && s.report.position.cells === s.cells ? done(true) : null;
  document.addEventListener("analysed", function on() { if (check()) document.removeEventListener("analysed", on); });
})})"""


def midgame(seed: int, rng: np.random.Generator):
    """(the game, its board) with 30-70% of the safe cells open, or None when strong ends it first."""
    board = uniform_board(30, 16, 99, seed)
    zeros = np.argwhere((board.numbers == 0) & ~board.mines)
    if not len(zeros):
        return None
    game = Game(board)
    y, x = zeros[len(zeros) // 2]
    game.open(int(x), int(y))
    player = StrongPlayer(seed)
    target = rng.uniform(0.3, 0.7) * (480 - 99)
    while not game.over:
        v = game.view()
        if int(v.opened.sum()) >= target:
            return game, board
        for m in player.moves(v):
            if not game.over:
                game.open(m.x, m.y)
    return None


def serve_thread(store):
    """The app in a thread of this process (as the tests serve it); (stop, url)."""
    import uvicorn
    sock = bind("127.0.0.1", 0)
    srv = uvicorn.Server(uvicorn.Config(create_app(store), log_level="warning", access_log=False, lifespan="off"))
    threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not srv.started:
        time.sleep(0.02)

    def stop():
        srv.should_exit = True
    return stop, url_of(sock)


def serve_process(db):
    """`sweeplab analyse` as its own process, as a person runs it; (stop, url)."""
    proc = subprocess.Popen([sys.executable, "-m", "sweeplab", "analyse", "--no-browser", "--port", "0", "--db", db],
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if "serving at " not in line:
        proc.kill()
        raise SystemExit(f"sweeplab analyse did not start: {line!r}")
    url = line.split("serving at ", 1)[1].split()[0].removesuffix("analyse")

    def stop():
        proc.terminate()
        proc.wait(30)
    return stop, url


def edits_of(cells: np.ndarray, board, count: int, rng: np.random.Generator) -> list[tuple[int, int, str]]:
    """`count` edits (x, y, key), each a hidden cell beside the open area turned into its number or a flag."""
    cells = cells.copy()
    out = []
    for _ in range(count):
        hidden = cells == -1
        near = np.zeros_like(hidden)
        opened = cells >= 0
        near[1:] |= opened[:-1]
        near[:-1] |= opened[1:]
        near[:, 1:] |= opened[:, :-1]
        near[:, :-1] |= opened[:, 1:]
        ys, xs = np.nonzero(hidden & near)
        j = int(rng.integers(len(xs)))
        x, y = int(xs[j]), int(ys[j])
        key = "f" if board.is_mine(x, y) else str(board.number(x, y))
        cells[y, x] = -2 if key == "f" else int(key)
        out.append((x, y, key))
    return out


SETTLED = ("(() => { const s = window.sweeplabAnalyse && window.sweeplabAnalyse.state; return s && s.report "
           "&& s.report.position.cells === s.cells && s.report.position.mines === s.mines; })()")


def one_position(page, url, view, edits, client, out):
    """The page opens the position's link and makes its edits, each drawn before the next; then the same
    edited positions go over HTTP alone. Adds to out's lists."""
    page.goto(url + "analyse#p=" + AnalysisPosition(view.cells, view.mine_count).code)
    page.wait_for_function(SETTLED, timeout=600_000)
    page.evaluate("window.sweeplabAnalyse.timings.length = 0")
    cells = view.cells.copy()
    edited = []
    for x, y, key in edits:
        cells[y, x] = -2 if key == "f" else int(key)
        page.hover(f'#board .cell[data-x="{x}"][data-y="{y}"]')
        # waited for by the page's own event, not by polling it every frame (which would take the
        # renderer's time from the drawing it measures)
        done = page.evaluate_handle(WAIT)
        t0 = time.perf_counter()
        page.keyboard.press(key)
        page.evaluate("w => w.drawn", done)
        out["driver"].append(1000 * (time.perf_counter() - t0))
        edited.append(AnalysisPosition(cells, 99).code)
    out["timings"] += page.evaluate("window.sweeplabAnalyse.timings")
    for code in edited:  # the same positions again over HTTP alone, in turn with the page's
        t0 = time.perf_counter()
        r = client.post(url + "api/analyse", json={"code": code})
        out["http"].append((1000 * (time.perf_counter() - t0), 1000 * r.json()["seconds"]))
    assert page.evaluate("window.sweeplabAnalyse.state.cells") == AnalysisPosition(cells, 99).text


def row(name, values):
    v = np.array(values)
    return (f"{name:<12} {np.median(v):8.1f} {np.percentile(v, 90):8.1f} {np.percentile(v, 99):8.1f} "
            f"{v.max():8.1f}")


def report_cases(seed: int) -> dict:
    """The --report positions, by name."""
    board = uniform_board(100, 100, 2060, seed)
    game = Game(board)
    for y, x in np.argwhere((board.numbers == 0) & ~board.mines):
        if game.view().cells[y, x] < 0:
            game.open(int(x), int(y))
    cells = game.view().cells.copy()
    flat = cells.reshape(-1)
    unopened = grid.around(flat < 0, grid.neighbour_table(100, 100)).sum(axis=1)
    wrong = flat.copy()
    beside = np.flatnonzero((flat >= 1) & (unopened > flat))
    wrong[beside[np.random.default_rng(seed).integers(beside.size)]] += 1
    rng = np.random.default_rng(seed)
    found = None
    s = seed * 100_000
    while found is None:
        found = midgame(s, rng)
        s += 1
    return {"impossible 100x100": AnalysisPosition(wrong.reshape(100, 100), 2060),
            "impossible 100x100, no total": AnalysisPosition(wrong.reshape(100, 100), None),
            "consistent 100x100, no total": AnalysisPosition(cells, None),
            "expert, no total": AnalysisPosition(found[0].view().cells, None)}


def report_worker(seed: int, repeat: int) -> None:
    """Time the report's analysis of each --report position in this process (the sources on its path);
    print {name: [ms, ...], "_status": {name: status}} as JSON."""
    from sweeplab.play.analyse_report import analysis

    cases = report_cases(seed)
    out: dict = {"_status": {}}
    for name, pos in cases.items():
        out["_status"][name] = analysis(pos, False)["status"]  # (compiles, or loads, the kernels)
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            analysis(pos, False)
            times.append(1000 * (time.perf_counter() - t0))
        out[name] = times
    print(json.dumps(out))


def report_main(args) -> None:
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    srcs = args.src or [here]
    runs: dict = {src: {} for src in srcs}
    status: dict = {}
    for _ in range(args.rounds):
        for src in srcs:  # the trees take turns
            env = {**os.environ, "PYTHONPATH": src}
            proc = subprocess.run([sys.executable, __file__, "--report-worker", "--seed", str(args.seed), "--repeat",
                                   str(args.repeat)], env=env, capture_output=True, text=True, check=True)
            got = json.loads(proc.stdout.strip().splitlines()[-1])
            status[src] = got.pop("_status")
            for name, times in got.items():
                runs[src].setdefault(name, []).extend(times)
    print(f"the analysis report alone (analyse_report.analysis), seed {args.seed}: {args.rounds} rounds x "
          f"{args.repeat} runs a case, median ms; {machine()}")
    names = list(runs[srcs[0]])
    print(f"{'case':<32}" + "".join(f" | {'ms':>9} {'status':>12}" for _ in srcs))
    for name in names:
        print(f"{name:<32}" + "".join(f" | {np.median(runs[src][name]):9.1f} {status[src][name]:>12}" for src in srcs))
    for i, src in enumerate(srcs):
        print(f"column {i + 1}: {src}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--edits", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--report", action="store_true", help="time the report's analysis alone, no browser")
    ap.add_argument("--report-worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--src", action="append", default=None, help="with --report: a source tree (repeatable)")
    ap.add_argument("--rounds", type=int, default=3, help="with --report: rounds, the trees taking turns")
    ap.add_argument("--repeat", type=int, default=5, help="with --report: runs a case in each round")
    args = ap.parse_args()
    if args.report_worker:
        return report_worker(args.seed, args.repeat)
    if args.report:
        return report_main(args)
    from playwright.sync_api import sync_playwright

    rng = np.random.default_rng(args.seed)
    games = []
    seed = args.seed * 100_000
    while len(games) < args.positions:
        g = midgame(seed, rng)
        seed += 1
        if g is not None:
            games.append(g)
    plans = [edits_of(g.view().cells, b, args.edits, rng) for g, b in games]
    setups = ("own process", "thread beside the driver")
    out = {k: {"timings": [], "driver": [], "http": []} for k in setups}
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(os.path.join(tmp, "thread.db"))
        stops, urls = zip(serve_process(os.path.join(tmp, "process.db")), serve_thread(store))
        client = httpx.Client(timeout=600)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
                pages = [browser.new_page(viewport={"width": 1600, "height": 1000}) for _ in setups]
                for k, ((game, _), edits) in enumerate(zip(games, plans)):
                    order = (0, 1) if k % 2 == 0 else (1, 0)  # which server goes first alternates
                    for i in order:
                        one_position(pages[i], urls[i], game.view(), edits, client, out[setups[i]])
                browser.close()
        finally:
            for stop in stops:
                stop()
            store.close()
    print(f"analysis board, expert (30x16/99) mid-game positions: {args.positions} positions x {args.edits} edits, "
          f"seed {args.seed}; {machine()}")
    for setup in setups:
        o = out[setup]
        print(f"\nserver: {setup}")
        print(f"{'ms':<12} {'median':>8} {'p90':>8} {'p99':>8} {'max':>8}")
        for name in ("server", "roundtrip", "draw", "total"):
            print(row(name.replace("roundtrip", "round trip"), [t[name] for t in o["timings"]]))
        print(row("driver", o["driver"]) + "   (key press to drawn, as Playwright sees it)")
        print(row("http", [h for h, _ in o["http"]]) + "   (the same edits over HTTP alone, no browser)")
        print(row("  of which", [j for _, j in o["http"]]) + "   (the job in the worker)")
        print(f"{len(o['timings'])} analyses drawn")
    a, b = ([t["total"] for t in out[s]["timings"]] for s in setups)
    print(f"\ntotal, {setups[1]} / {setups[0]}: median x{np.median(b) / np.median(a):.2f}, "
          f"p99 x{np.percentile(b, 99) / np.percentile(a, 99):.2f}")


if __name__ == "__main__":
    main()
