"""The play server attacked again: what a lone surrogate, another program's write lock and crafted
replay files cost, against the real server process (`python -m sweeplab.play.server`) on a real SQLite
file, over loopback HTTP.

1. durability: a client plays a game in play while the attack runs, then the server is killed
   (SIGKILL) and started again on the same file; every move answered 200 must be there, and no move
   answered otherwise. Attacks: new games whose session or player is a lone surrogate; another
   program holding the database's write lock for HOLD s (moves wait up to the store's WAIT, then 503).
2. crafted replays: one client plays (a move every 20 ms, each timed) while another uploads a crafted
   EVF file again and again: 122 kB asking ms-toollib for 4.7 GB when unchecked, 8 kB of
   a dense 255x255 board (many seconds in ms-toollib), and a 100x100 board with 20,000 clicks (0.8 GB,
   ~4 s). Rounds alternate a quiet window and an attacked one of the same length; for each file the
   uploads' answers and times, the peak memory of the ms-toollib child and of the server with all its
   children, and the player's round trips, quiet and attacked (all rounds pooled).
3. heavy work: 60 analyses at once, 6 clients fetching a replay of 4 MB again and again, 2 dense no-guess
   first clicks, 150 games from this machine's loopback addresses; meanwhile another player's moves
   (timed), a new game and a game-ending move each second (timed), and the moves acknowledged checked
   at the end; then SIGTERM with 60 analyses sent, and the seconds the server takes to end.

    python benchmarks/bench_attack.py [--rounds 3] [--seconds 6] [--hold 4] [--only heavy]

Linux only (/proc for the memory of the process tree).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks._timing import machine  # noqa: E402

from sweeplab.board import Board  # noqa: E402
from sweeplab.play.store import WAIT  # noqa: E402
from sweeplab.replays.evf import write_evf  # noqa: E402
from sweeplab.replays.mouse import MouseEvent  # noqa: E402

SEED = 31


def start(db, port=0):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    p = subprocess.Popen([sys.executable, "-m", "sweeplab.play.server", str(db), str(port)], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, env=env)
    url = p.stdout.readline().strip()
    assert url.startswith("http://"), url
    return p, url


def kill(p):
    p.send_signal(signal.SIGKILL)
    p.wait(30)


def post(c: httpx.Client, path, body):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return c.post(path, content=raw, headers={"content-type": "application/json"})


class Player:
    """A game in play (a safe-first-click expert board by seed) whose moves are flags on closed cells:
    the game never ends, and the test knows what each acknowledged move did."""

    def __init__(self, c: httpx.Client, seed=SEED):
        self.c = c
        g = post(c, "/api/games", {"mode": "safe", "level": "expert", "seed": str(seed)}).json()
        self.id = g["id"]
        s = post(c, f"/api/games/{self.id}/actions", {"kind": "open", "x": 15, "y": 8}).json()
        self.closed = [i for i, ch in enumerate(s["cells"]) if ch == "#"]
        self.k = 0
        self.acked: list[int] = []  # flag moves answered 200, by cell (each cell flagged at most once)
        self.refused = 0

    def move(self) -> tuple[int, float]:
        i = self.closed[self.k % len(self.closed)]
        self.k += 1
        t0 = time.perf_counter()
        r = post(self.c, f"/api/games/{self.id}/actions", {"kind": "flag", "x": i % 30, "y": i // 30})
        dt = time.perf_counter() - t0
        if r.status_code == 200:
            self.acked.append(i)
        else:
            self.refused += 1
        return r.status_code, dt

    def check(self, c: httpx.Client) -> tuple[int, int]:
        """(acknowledged moves found, moves found that were not acknowledged) in the game as served now."""
        cells = c.get(f"/api/games/{self.id}").json()["cells"]
        flagged = {i for i, ch in enumerate(cells) if ch == "F"}
        acked = set(self.acked)
        return len(acked & flagged), len(flagged - acked)


def durability(hold: float) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "play.db"
        proc, url = start(db)
        try:
            with httpx.Client(base_url=url, timeout=60) as c:
                p = Player(c)
                for _ in range(5):
                    p.move()
                bad = [post(c, "/api/games", raw).status_code for raw in
                       (b'{"session": "\\udfff"}', b'{"player": "ab\\ud800"}', b'{"mode": "safe", "\\udfff": 1}')]
                for _ in range(5):
                    p.move()
                kill(proc)
                proc, url = start(db, int(url.rsplit(":", 1)[1].strip("/")))
            with httpx.Client(base_url=url, timeout=60) as c:
                p.c = c
                found, extra = p.check(c)
                rows.append({"attack": "lone surrogate (session, player, field name)",
                             "attack answered": "/".join(map(str, bad)), "moves answered 200": len(p.acked),
                             "answered 503": p.refused, "moves 200 so far": len(p.acked),
                             "found after SIGKILL": found, "found not answered 200": extra, "503 after s": "-"})
                # another program holds the write lock for `hold` seconds while the player moves every 0.2 s
                other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
                before_acked, before_refused = len(p.acked), p.refused
                other.execute("BEGIN IMMEDIATE")
                waits = []
                release = threading.Timer(hold, lambda: other.execute("ROLLBACK"))
                release.start()
                end = time.perf_counter() + hold + 1.0
                while time.perf_counter() < end:
                    status, dt = p.move()
                    if status != 200:
                        waits.append(dt)
                    time.sleep(0.2)
                release.join()
                other.close()
                kill(proc)
                proc, url = start(db, int(url.rsplit(":", 1)[1].strip("/")))
            with httpx.Client(base_url=url, timeout=60) as c:
                found, extra = p.check(c)
                rows.append({"attack": f"another program holds the write lock {hold:g} s",
                             "attack answered": "-", "moves answered 200": len(p.acked) - before_acked,
                             "answered 503": p.refused - before_refused, "moves 200 so far": len(p.acked),
                             "found after SIGKILL": found, "found not answered 200": extra,
                             "503 after s": f"{statistics.median(waits):.2f}" if waits else "-"})
        finally:
            kill(proc) if proc.poll() is None else None
    return rows


def crafted(side, density, clicks, kinds=("rc", "rr")) -> bytes:
    rng = np.random.default_rng(side * 7919 + clicks)
    board = Board(rng.random((side, side)) < density)
    cells = rng.integers(0, side, size=(clicks, 2)) * 16 + 8
    events = [MouseEvent(kinds[i % len(kinds)], i / 1000, int(x), int(y)) for i, (x, y) in enumerate(cells)]
    return write_evf(board, events, won=False, time=clicks / 1000)


def tree_rss(pid: int) -> tuple[int, int]:
    """Resident bytes now of a process with all its descendants, and of the ms-toollib child among them."""
    parent, rss, toollib = {}, {}, set()
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            text = (d / "status").read_text()
            if b"_toollib_worker" in (d / "cmdline").read_bytes():
                toollib.add(int(d.name))
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
        parent[int(d.name)] = int(fields.get("PPid", "0"))
        rss[int(d.name)] = int(fields.get("VmRSS", "0 kB").split()[0]) * 1024
    total, child, todo = 0, 0, [pid]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        child += rss.get(p, 0) if p in toollib else 0
        todo += [q for q, pp in parent.items() if pp == p]
    return total, child


def window(url, seconds, upload=None) -> dict:
    """A player's moves (one every 20 ms) for `seconds`; with `upload` (name, bytes), another client sends
    that file again and again meanwhile (the window lasts until its last upload is answered)."""
    out: dict = {"uploads": []}
    with httpx.Client(base_url=url, timeout=120) as c, httpx.Client(base_url=url, timeout=120) as u:
        p = Player(c, seed=SEED + int(time.time()))
        times = []
        end = time.perf_counter() + seconds
        done = threading.Event()

        def send():
            name, data = upload
            while time.perf_counter() < end:
                t0 = time.perf_counter()
                r = u.post(f"/api/replays?name={name}", content=data,
                           headers={"content-type": "application/octet-stream"})
                out["uploads"].append((r.status_code, time.perf_counter() - t0, len(r.content),
                                       r.json().get("error", "") if r.status_code != 200 else ""))
            done.set()

        if upload:
            threading.Thread(target=send, daemon=True).start()
        while time.perf_counter() < end or (upload and not done.is_set()):
            status, dt = p.move()
            times.append(dt * 1000)
            time.sleep(0.02)
    out["times"] = times
    return out


def warm(url) -> None:
    """Have the reading child started (its start-up is not a file's)."""
    with httpx.Client(base_url=url, timeout=300) as c:
        c.post("/api/replays?name=x.evf", content=b"x" * 64, headers={"content-type": "application/octet-stream"})


def replays(rounds: int, seconds: float) -> list[dict]:
    files = [("crafted 122 kB: 255x255, 19,000 clicks", "crafted.evf", crafted(255, 0.0001, 19_000)),
             ("dense 8 kB: 255x255, 20% mines", "dense.evf", crafted(255, 0.2, 2, ("lc", "lr"))),
             ("121 kB: 100x100, 20,000 clicks", "mid.evf", crafted(100, 0.0001, 20_000))]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start(Path(tmp) / "play.db")
        try:
            warm(url)
            for label, name, data in files:
                quiet, loud, uploads, peaks = [], [], [], []
                for _ in range(rounds):
                    quiet += window(url, seconds)["times"]
                    peak = [tree_rss(proc.pid)]
                    stop = threading.Event()

                    def sample():
                        while not stop.is_set():
                            peak.append(tree_rss(proc.pid))
                            time.sleep(0.05)

                    s = threading.Thread(target=sample, daemon=True)
                    s.start()
                    w = window(url, seconds, (name, data))
                    stop.set()
                    s.join()
                    loud += w["times"]
                    uploads += w["uploads"]
                    peaks += peak
                    warm(url)  # a child killed at its deadline starts again here, not in the next window
                q, a = np.array(quiet), np.array(loud)
                status, secs, size, why = zip(*uploads)
                answers = ", ".join(f"{status.count(k)} x {k}" for k in sorted(set(status)))
                rows.append({"file": label, "uploads": f"{answers} (at most {max(size):,} B)",
                             "why": max(why, key=why.count)[:64],
                             "upload s (median, max)": f"{statistics.median(secs):.2f}, {max(secs):.2f}",
                             "ms-toollib child peak MB": max(c for _, c in peaks) / 2 ** 20,
                             "server and children peak MB": max(t for t, _ in peaks) / 2 ** 20,
                             "quiet moves p50/p99/max ms": f"{np.percentile(q, 50):.1f} / {np.percentile(q, 99):.1f} / "
                                                           f"{q.max():.1f} ({len(q)})",
                             "attacked moves p50/p99/max ms": f"{np.percentile(a, 50):.1f} / {np.percentile(a, 99):.1f}"
                                                              f" / {a.max():.1f} ({len(a)})",
                             "p99 ratio": float(np.percentile(a, 99) / np.percentile(q, 99))})
        finally:
            kill(proc)
    return rows


# --- heavy work: analyses, large replays, dense first clicks, many games from this machine --------------
SLOW = "\n".join("".join("2" if y % 4 == 2 and x % 3 == 0 else "#" for x in range(100)) for y in range(100))


def big_record(db) -> int:
    """A record whose replay answer is just within the server's cap (a game of before the cap on actions:
    flags toggled on the game itself), filed straight into the database."""
    from sweeplab.play.games import Hub
    from sweeplab.play.replays import MAX_RECORD_ANSWER, answer_size
    from sweeplab.play.store import Store
    store = Store(db)
    hub = Hub(store)
    pg = hub.new(mode="safe", level="custom", width=30, height=24, mines=10, seed="7", client="192.0.2.1")
    g = pg.game
    g.open(15, 12)
    mines = [(x, y) for y in range(24) for x in range(30) if g.board.mines[y, x]]
    while answer_size(30, 24, len(g.log) + 2) <= MAX_RECORD_ANSWER:  # (and the losing click after)
        g.flag(*mines[0])
    g.open(*mines[1])
    rid = hub.file(pg)["record_id"]
    store.close()
    return rid


def ending(c: httpx.Client, seed: int) -> tuple[float, float]:
    """(ms for a new game, ms for its game-ending move): a safe beginner board by seed, lost at once."""
    from sweeplab.firstclick import Safe
    t0 = time.perf_counter()
    g = post(c, "/api/games", {"mode": "safe", "seed": str(seed)})
    t1 = time.perf_counter()
    gid = g.json()["id"]
    post(c, f"/api/games/{gid}/actions", {"kind": "open", "x": 0, "y": 0})
    board, _ = Safe(9, 9, 10, seed).board_for(0, 0)
    y, x = map(int, np.argwhere(board.mines)[0])
    t2 = time.perf_counter()
    r = post(c, f"/api/games/{gid}/actions", {"kind": "open", "x": x, "y": y})
    t3 = time.perf_counter()
    assert g.status_code == 201 and r.json()["status"] == "lost", (g.text, r.text)
    return (t1 - t0) * 1000, (t3 - t2) * 1000


def attacked(proc, url, attack, label) -> dict:
    """Another player's moves (one every 20 ms, timed) and, every second, a new game and a game-ending
    move, while `attack()` runs in threads; returns the row."""
    peaks = [tree_rss(proc.pid)[0]]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            peaks.append(tree_rss(proc.pid)[0])
            time.sleep(0.1)

    threading.Thread(target=sample, daemon=True).start()
    with httpx.Client(base_url=url, timeout=300) as c:
        players = [Player(c, seed=SEED + int(time.time()))]
        answers: list[int] = []
        worker = threading.Thread(target=lambda: answers.extend(attack()), daemon=True)
        worker.start()
        times, news, ends, k = [], [], [], 0
        last = 0.0
        while worker.is_alive():
            if players[-1].k == len(players[-1].closed):  # every closed cell flagged once: another game
                players.append(Player(c, seed=SEED + len(players)))
            times.append(players[-1].move()[1] * 1000)
            if time.perf_counter() - last > 1.0:
                last = time.perf_counter()
                n, e = ending(c, 1000 + k)
                k += 1
                news.append(n)
                ends.append(e)
            time.sleep(0.02)
        worker.join()
        checked = [p.check(c) for p in players]
    stop.set()
    acked = sum(len(p.acked) for p in players)
    found, extra = sum(f for f, _ in checked), sum(e for _, e in checked)
    a = np.array(times)
    return {"attack": label, "attack answered": ", ".join(f"{answers.count(k)} x {k}" for k in sorted(set(answers))),
            "acknowledged moves lost": acked - found + extra,
            "other player's moves p50/p99/max ms": f"{np.percentile(a, 50):.1f} / {np.percentile(a, 99):.1f} / "
                                                   f"{a.max():.1f} ({len(a)})",
            "new game p50/p99 ms": f"{np.percentile(news, 50):.0f} / {np.percentile(news, 99):.0f} ({len(news)})",
            "game-ending move p50/p99 ms": f"{np.percentile(ends, 50):.0f} / {np.percentile(ends, 99):.0f}",
            "server and children peak MB": max(peaks) / 2 ** 20}


def many(n, fn) -> list[int]:
    """`fn(i)` for i < n at once, each in its thread; their status codes."""
    out: list[int] = []
    threads = [threading.Thread(target=lambda i=i: out.append(fn(i))) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def analysis(url, i, seconds=30.0) -> int:
    transport = httpx.HTTPTransport(local_address=f"127.0.{1 + i // 200}.{1 + i % 200}")
    with httpx.Client(base_url=url, timeout=300, transport=transport) as c:
        return post(c, "/api/analyse", {"text": SLOW, "mines": 2000, "time_limit": seconds}).status_code


def heavy(seconds: float) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "play.db"
        rid = big_record(db)
        proc, url = start(db)
        try:
            with httpx.Client(base_url=url, timeout=900) as c:  # the analysis worker and board child started
                post(c, "/api/analyse", {"text": "1#\n##", "mines": 1})
                g = post(c, "/api/games", {"mode": "noguess", "level": "custom", "width": 30, "height": 20,
                                           "mines": 100}).json()
                post(c, f"/api/games/{g['id']}/actions", {"kind": "open", "x": 4, "y": 4})
            rows.append(attacked(proc, url, lambda: many(60, lambda i: analysis(url, i, seconds)),
                                 f"60 analyses of a 100x100 position at once ({seconds:g} s limit)"))

            def replays():
                def get(i):
                    with httpx.Client(base_url=url, timeout=300) as c:
                        codes = []
                        end = time.perf_counter() + seconds
                        while time.perf_counter() < end:
                            codes.append(c.get(f"/api/records/{rid}/replay").status_code)
                        return codes
                return [k for codes in many(6, get) for k in codes]  # type: ignore[attr-defined]

            rows.append(attacked(proc, url, replays, f"6 clients GET a 4 MB replay again and again ({seconds:g} s)"))

            def dense(i):
                with httpx.Client(base_url=url, timeout=300) as c:
                    g = post(c, "/api/games", {"mode": "noguess", "level": "custom", "width": 30, "height": 24,
                                               "mines": 426}).json()
                    return post(c, f"/api/games/{g['id']}/actions", {"kind": "open", "x": 15, "y": 12}).status_code

            rows.append(attacked(proc, url, lambda: many(2, dense), "2 dense no-guess first clicks (30x24, 426 mines)"))

            def games(i):
                transport = httpx.HTTPTransport(local_address=f"127.1.{i // 200}.{1 + i % 200}")
                with httpx.Client(base_url=url, timeout=60, transport=transport) as c:
                    g = post(c, "/api/games", {"mode": "safe"})
                    if g.status_code == 201:
                        post(c, f"/api/games/{g.json()['id']}/actions", {"kind": "open", "x": 0, "y": 0})
                    return g.status_code

            rows.append(attacked(proc, url, lambda: [games(i) for i in range(150)],
                                 "150 games with a move from 150 loopback addresses (100 per client)"))
        finally:
            kill(proc)
    return rows


def stop_time(n: int = 60) -> dict:
    """Seconds from SIGTERM to the server's end with `n` analyses sent (each 30 s of work)."""
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start(Path(tmp) / "play.db")
        try:
            with httpx.Client(base_url=url, timeout=900) as c:
                post(c, "/api/analyse", {"text": "1#\n##", "mines": 1})
            codes: list[int] = []
            t = threading.Thread(target=lambda: codes.extend(many(n, lambda i: analysis(url, i))), daemon=True)
            t.start()
            time.sleep(3)
            t0 = time.perf_counter()
            proc.send_signal(signal.SIGTERM)
            proc.wait(120)
            took = time.perf_counter() - t0
            t.join(30)
        finally:
            kill(proc) if proc.poll() is None else None
    return {"attack": f"SIGTERM with {n} analyses sent", "attack answered": ", ".join(
        f"{codes.count(k)} x {k}" for k in sorted(set(codes))), "server ended after s": f"{took:.2f}"}


def table(rows: list[dict]) -> str:
    keys = list(rows[0])
    out = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for r in rows:
        out.append("| " + " | ".join(f"{r[k]:.2f}" if isinstance(r[k], float) else str(r[k]) for k in keys) + " |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3, help="quiet and attacked windows per replay file")
    ap.add_argument("--seconds", type=float, default=6.0, help="length of each window")
    ap.add_argument("--hold", type=float, default=4.0, help="seconds another program holds the write lock")
    ap.add_argument("--only", choices=("heavy",), help="only the heavy-work rows")
    a = ap.parse_args()
    print(f"machine: {machine()}; the store waits {WAIT:g} s for a write lock")
    if a.only is None:
        print()
        print(table(durability(a.hold)))
        print()
        print(table(replays(a.rounds, a.seconds)))
    print()
    print(table(heavy(a.seconds)))
    print()
    print(table([stop_time()]))


if __name__ == "__main__":
    main()
