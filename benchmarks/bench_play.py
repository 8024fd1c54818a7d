"""Play server round trips on loopback with many games at once.

A real server process (uvicorn, as `sweeplab play` runs it) and a lean asyncio HTTP/1.1 client
(one keep-alive connection per player, so the client's own cost stays small):

1. paced: P players, each with an expert game in play, each sending an action (open a safe
   cell, flag/unflag, and one time in fifty a mine) every 1/RATE s on average (exponential gaps);
   every action is kept in SQLite (the game in play survives a restart) before its answer, and a
   finished game is filed (synced) within its action and replaced by a new one. Round trip per action.
2. saturated: the same P players with no pause at all (closed loop): throughput and round trips.
3. the paced players again, and besides them new no-guess expert games arriving NEW_RATE per
   second (far more than 100 people start); the first click of each (the board is laid and
   certified inside it) is timed, and so are the paced players' actions meanwhile.

4. restart: the server is stopped and started again on the same file; the first request for each
   kept game makes it again (its board from the seed, its actions replayed): round trip of that request.

    python benchmarks/bench_play.py [--players 100] [--seconds 10] [--rate 1] [--new-rate 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time

import numpy as np

from sweeplab import generators

W, H, M = 30, 16, 99


class Conn:
    """One keep-alive HTTP/1.1 connection."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.host_header = f"{host}:{port}"  # the server answers loopback Host names only

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        return self

    async def request(self, method, path, body=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.writer.write(f"{method} {path} HTTP/1.1\r\nHost: {self.host_header}\r\nContent-Type: application/json\r\n"
                          f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        i = head.lower().index(b"content-length:")
        n = int(head[i + 15:head.index(b"\r\n", i)])
        payload = await self.reader.readexactly(n)
        if status >= 400:
            raise RuntimeError(f"{method} {path}: {status} {payload[:200]!r}")
        return json.loads(payload)

    def close(self):
        self.writer.close()


class Player:
    """Plays safe-first-click expert games whose boards it knows from the seed (a bench, not a player)."""

    def __init__(self, conn, rng):
        self.conn, self.rng = conn, rng
        self.seed_base = rng.randrange(1 << 40)
        self.games = 0

    async def new_game(self):
        seed = self.seed_base + self.games
        self.games += 1
        s = await self.conn.request("POST", "/api/games", {"mode": "safe", "level": "expert", "seed": str(seed)})
        self.id = s["id"]
        s = await self.conn.request("POST", f"/api/games/{self.id}/actions", {"kind": "open", "x": 15, "y": 8})
        self.board = generators.make("uniform", W, H, M, seed, first_click="safe").board_for(15, 8)[0]
        self.cells = s["cells"]
        self.flagged = set()

    def next_action(self):
        hidden_safe = [i for i, ch in enumerate(self.cells) if ch == "#" and not self.board.flat_mines[i]]
        i = self.rng.choice(hidden_safe)
        if self.rng.random() < 0.02:  # now and then a mine: the game ends and is filed within the action
            return "open", self.rng.choice(np.flatnonzero(self.board.flat_mines).tolist())
        if self.rng.random() < 0.25:  # a right click: flag a cell, or take a flag off
            j = self.rng.choice(sorted(self.flagged)) if self.flagged and self.rng.random() < 0.5 else i
            self.flagged ^= {j}
            return "flag", j
        return "open", i

    async def step(self, times):
        kind, i = self.next_action()
        t0 = time.perf_counter()
        s = await self.conn.request("POST", f"/api/games/{self.id}/actions", {"kind": kind, "x": i % W, "y": i // W})
        times.append(time.perf_counter() - t0)
        self.cells = s["cells"]
        if s["status"] != "playing":
            await self.new_game()


async def run_players(host, port, players, seconds, rate, seed):
    rng = random.Random(seed)
    conns = [await Conn(host, port).open() for _ in range(players)]
    ps = [Player(c, random.Random(rng.random())) for c in conns]
    await asyncio.gather(*(p.new_game() for p in ps))
    times: list[float] = []
    end = time.perf_counter() + seconds

    async def loop(p):
        while time.perf_counter() < end:
            if rate:
                await asyncio.sleep(p.rng.expovariate(rate))
            await p.step(times)

    t0 = time.perf_counter()
    await asyncio.gather(*(loop(p) for p in ps))
    wall = time.perf_counter() - t0
    for c in conns:
        c.close()
    return np.array(times), wall, sum(p.games for p in ps) - players, [p.id for p in ps]


async def first_click(conn, firsts):
    """Start a no-guess expert game and time its first click (the board is laid and certified in it)."""
    s = await conn.request("POST", "/api/games", {"mode": "noguess", "level": "expert"})
    t0 = time.perf_counter()
    s = await conn.request("POST", f"/api/games/{s['id']}/actions", {"kind": "open", "x": 15, "y": 8})
    firsts.append(time.perf_counter() - t0)
    assert s["status"] in ("playing", "won"), s["status"]


async def run_mixed(host, port, players, seconds, rate, new_rate, seed):
    """The paced players, and besides them new no-guess expert games arriving at `new_rate` per second
    (a Poisson stream over all players), each from its own connection."""
    rng = random.Random(seed)
    conns = [await Conn(host, port).open() for _ in range(players)]
    ps = [Player(c, random.Random(rng.random())) for c in conns]
    await asyncio.gather(*(p.new_game() for p in ps))
    extra = [await Conn(host, port).open() for _ in range(8)]
    times: list[float] = []
    firsts: list[float] = []
    end = time.perf_counter() + seconds

    async def loop(p):
        while time.perf_counter() < end:
            await asyncio.sleep(p.rng.expovariate(rate))
            await p.step(times)

    async def arrivals():
        k = 0
        pending = []
        while time.perf_counter() < end:
            await asyncio.sleep(rng.expovariate(new_rate))
            pending.append(asyncio.ensure_future(first_click(extra[k % len(extra)], firsts)))
            k += 1
            if len(pending) >= len(extra):  # one request at a time per connection
                await asyncio.gather(*pending)
                pending = []
        await asyncio.gather(*pending)

    await asyncio.gather(arrivals(), *(loop(p) for p in ps))
    for c in conns + extra:
        c.close()
    return np.array(firsts), np.array(times)


async def resume_all(host, port, ids):
    """GET every kept game once from a restarted server, 10 at a time: the round trip of each."""
    conns = [await Conn(host, port).open() for _ in range(10)]
    times: list[float] = []

    async def worker(c, chunk):
        for gid in chunk:
            t0 = time.perf_counter()
            s = await c.request("GET", f"/api/games/{gid}")
            times.append(time.perf_counter() - t0)
            assert s["id"] == gid

    await asyncio.gather(*(worker(c, ids[k::10]) for k, c in enumerate(conns)))
    for c in conns:
        c.close()
    return np.array(times)


def service_times(n_games=100, n_actions=3000, seed=3):
    """The server's own work per action, in process with no network: the Starlette app called
    through ASGI (routing, JSON in and out, the hub, the rules) for safe-cell opens and flags."""
    import warnings
    with warnings.catch_warnings():  # starlette's note about httpx2 is noise in a printed table
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from sweeplab.play.games import Hub
    from sweeplab.play.server import create_app
    from sweeplab.play.store import Store

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(os.path.join(tmp, "svc.db"))
        hub = Hub(store, per_client=n_games + 1)  # every game from the one test client
        with TestClient(create_app(store, hub=hub), base_url="http://127.0.0.1") as c:
            games = []
            for k in range(n_games):
                gid = c.post("/api/games", json={"mode": "safe", "level": "expert", "seed": str(k)}).json()["id"]
                c.post(f"/api/games/{gid}/actions", json={"kind": "open", "x": 15, "y": 8})
                b = generators.make("uniform", W, H, M, k, first_click="safe").board_for(15, 8)[0]
                games.append((gid, [i for i in range(W * H) if not b.flat_mines[i]]))
            app = c.app
            times = []
            for _ in range(n_actions):
                gid, safe = rng.choice(games)
                i = rng.choice(safe)
                kind = "flag" if rng.random() < 0.25 else "open"
                body = json.dumps({"kind": kind, "x": i % W, "y": i // W}).encode()
                t0 = time.perf_counter()
                asyncio.run(_asgi_post(app, f"/api/games/{gid}/actions", body))
                times.append(time.perf_counter() - t0)
        store.close()
    return np.array(times)


async def _asgi_post(app, path, body):
    sent = []

    async def receive():
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json")], "client": ("127.0.0.1", 1),
             "server": ("127.0.0.1", 80)}
    await app(scope, receive, send)
    assert sent[0]["status"] in (200, 409), sent[0]


def row(name, t, extra=""):
    ms = t * 1000
    return (f"| {name} | {len(t)} | {np.median(ms):.2f} | {np.percentile(ms, 90):.2f} | {np.percentile(ms, 99):.2f} | "
            f"{ms.max():.1f} | {extra} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--rate", type=float, default=1.0, help="actions per second per player when paced")
    ap.add_argument("--new-rate", type=float, default=5.0, help="new no-guess expert games per second, all players")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    svc = service_times()
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "bench.db")
        # every simulated player comes from this one address: the server is told to keep their games all
        proc = subprocess.Popen([sys.executable, "-m", "sweeplab.play.server", db, "0", "--per-client", "1000000"],
                                stdout=subprocess.PIPE, text=True)
        url = proc.stdout.readline().strip()
        host, port = url.split("//")[1].rstrip("/").split(":")
        try:
            # warm up: the server lays a board of every mode at start-up; one short round besides
            asyncio.run(run_players(host, int(port), 4, 1.0, 0, 99))
            paced, wall_p, fin_p, _ = asyncio.run(run_players(host, int(port), a.players, a.seconds, a.rate, a.seed))
            sat, wall_s, fin_s, kept = asyncio.run(run_players(host, int(port), a.players, a.seconds / 2, 0,
                                                               a.seed + 1))
            try:
                generators.lookup("noguess")
            except Exception as e:  # noqa: BLE001
                firsts, why = None, str(e)
            else:
                firsts, mixed = asyncio.run(run_mixed(host, int(port), a.players, a.seconds, a.rate, a.new_rate,
                                                      a.seed + 2))
        finally:
            proc.terminate()
            proc.wait(30)
        # the games left in play are kept; a new server makes each again at its first request
        proc = subprocess.Popen([sys.executable, "-m", "sweeplab.play.server", db, port, "--per-client", "1000000"],
                                stdout=subprocess.PIPE, text=True)
        proc.stdout.readline()
        try:
            resumed = asyncio.run(resume_all(host, int(port), kept))
        finally:
            proc.terminate()
            proc.wait(30)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; server: uvicorn "
          f"(h11), 1 process; client: asyncio, 1 keep-alive connection per player; {a.players} games at once")
    print()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average at the end (other work on the machine): {load:.1f}")
    print()
    print("| scenario | actions | p50 ms | p90 ms | p99 ms | max ms | notes |")
    print("|---|---|---|---|---|---|---|")
    print(row("server work per action (in process, no network)", svc, "ASGI app called directly; includes asyncio.run"))
    print(row(f"paced, {a.rate:g}/s per player", paced,
              f"{len(paced) / wall_p:.0f} actions/s; {fin_p} games finished and filed"))
    print(row("saturated (no pause)", sat, f"{len(sat) / wall_s:.0f} actions/s; {fin_s} games finished and filed"))
    if firsts is not None:
        print(row("paced + new no-guess expert games: first click", firsts,
                  f"{a.new_rate:g} new games/s; board laid and certified in the click"))
        print(row("paced + new no-guess expert games: actions", mixed, "the paced players meanwhile"))
    else:
        print(f"| no-guess expert first click | - | - | - | - | - | not yet measurable: {why} |")
    print(row("after a restart: first request of a kept game", resumed,
              f"{len(resumed)} expert games made again (board from the seed, actions replayed)"))


if __name__ == "__main__":
    main()
