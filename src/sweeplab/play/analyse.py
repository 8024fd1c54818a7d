"""The analysis board's part of the web server: its page, `POST /api/analyse`, and the positions of
games and records it opens.

The page holds no rule logic: it sends a position and draws the report the server sends back
(analyse_report.py). Each analysis runs in a worker process (analyse_worker.py) under a time limit;
a position not analysed within it is answered with what the local rules decide, and the worker is
killed and a spare one takes its place. Analyses wait in a bounded queue (WAITING, one per client
address), holding no thread meanwhile; one whose client goes is dropped. A game in play is opened
as its View only (what the player sees), and opening it counts as a hint (the game is no longer
eligible for best times).

API (every bad request a 4xx JSON body `{"error": ...}` that says what was wrong and what is allowed):

- `POST /api/analyse` {position: one of `code` (a link's code), `text` (pasted text in any form
  analyse_position reads), `file` (a file's bytes in base64), or `cells` with `width`, `height`
  (and `topology`); `mines` (an integer, or null for no total; it replaces the position's own);
  `trust_flags`; `click` [kind, x, y] to judge; `optimal` (default true); `time_limit` in seconds}.
- `GET /api/analyse/record/{id}[?step=N]`: a finished game's position before action N (default: the
  fatal click of a lost game, else the end), with that action.
- `POST /api/analyse/game/{id}`: the position of a game in play (a hint), or of a finished one as above.
"""

from __future__ import annotations

import atexit
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import numpy as np
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Route

from ..board import Board
from ..errors import AnalysisError, ChildError, IllegalMoveError, OneAtATimeError, PositionError, ServerBusyError
from ..game import ACTIONS, replay_steps
from ..replays.child import Child
from ..view import HIDDEN
from .analyse_position import AnalysisPosition, from_cells, read_file_field, read_position
from .analyse_report import local_rules
from .threads import Threads

STATIC = Path(__file__).parent / "static"
MAX_BODY = 64 * 1024
TIME_LIMIT = 5.0               # seconds an analysis may take, unless the request asks for less or more
TIME_LIMITS = (0.05, 30.0)     # what a request may ask for
WAITING = 4                   # analyses that may wait for the worker besides the one it runs
MEMORY = 2 * 2 ** 30          # the worker's address space (the interpreter and its kernels take ~0.8 GB)
START_TIMEOUT = 900.0          # the worker's first start may compile the kernels (minutes on a slow machine)
FIELDS = {"code", "text", "file", "cells", "width", "height", "topology", "mines", "trust_flags", "click",
          "optimal", "time_limit"}
SOURCES = ("code", "text", "file", "cells")


class Worker:
    """The analysis worker process (replays/child.py's Child, under a memory limit): one job at a time,
    killed when a job runs past its time or its client goes. A spare worker is kept started, so that a
    killed worker is replaced at once instead of after a start (1.3 to 1.5 s of imports and kernels)."""

    def __init__(self):
        self._child: Child | None = None
        self._spare: Child | None = None
        self._swap = threading.Lock()
        self.closed = False

    def _new(self) -> Child:
        return Child([sys.executable, "-m", "sweeplab.play.analyse_worker"], memory=MEMORY, startup=START_TIMEOUT,
                     group=True)

    def _current(self) -> Child:
        with self._swap:
            if self._child is None:
                self._child = self._new()
            if self._spare is None:
                self._spare = self._new()
                threading.Thread(target=self._start_quietly, args=(self._spare,), daemon=True).start()
            return self._child

    def _start_quietly(self, child: Child) -> None:
        try:
            child.start()
        except ChildError:
            pass  # (the job that needs it says why: its own start fails the same way)

    def start(self) -> None:
        """Start it now (it loads its kernels), so that the first analysis does not wait for it."""
        self._current().start()

    def run(self, job: dict, limit: float) -> tuple[dict, bool, float]:
        """(the parts of the report that came within `limit` seconds, whether the time ran out, the
        seconds the job took: its time limit counts from when the worker is ready)."""
        if self.closed:
            raise ServerBusyError("the server is stopping; no analysis is started now")
        child = self._current()
        try:
            child.start()  # (a start is not the job's time)
            t0 = time.monotonic()
            got, late = child.ask_parts(job, timeout=limit)
        except ChildError as e:
            self._replace(child)
            if self.closed:
                raise ServerBusyError("the server is stopping; the analysis was stopped") from None
            raise RuntimeError(f"the analysis worker failed: {e}") from None
        seconds = time.monotonic() - t0
        if late:  # killed: the spare takes its place, and another spare starts meanwhile
            self._replace(child)
        parts: dict = {}
        for kind, value in got:
            if kind == "error":
                raise RuntimeError(f"analysis worker: {value}")
            parts[kind] = value
        return parts, late, seconds

    def _replace(self, dead: Child) -> None:
        with self._swap:
            if self._child is dead:
                self._child, self._spare = self._spare, None
        dead.close()

    def stop_job(self) -> None:
        """Kill the job running now (its client went): its thread returns at once, the spare takes over."""
        with self._swap:
            child = self._child
        if child is not None:
            child.stop()

    def close(self) -> None:
        """Stop both workers, and start no other (the server is stopping)."""
        self.closed = True
        with self._swap:
            children, self._child, self._spare = (self._child, self._spare), None, None
        for child in children:
            if child is not None:
                child.stop()
                child.close()


WORKER = Worker()
atexit.register(WORKER.close)


class Queue:
    """Who waits for the worker: at most WAITING requests besides the one it runs, and one per client
    (its address); a request past either is refused at once, and one whose client goes is dropped,
    waiting or running. Waiting holds no thread: the game's writes never wait behind analyses."""

    def __init__(self, worker: Worker, waiting: int = WAITING):
        self.worker, self.most = worker, waiting
        self.waiting = 0
        self.clients: set[str] = set()
        self._gate: anyio.Lock | None = None  # (made on the server's event loop, at the first request)
        self._thread: anyio.CapacityLimiter | None = None
        self.running_for: str | None = None

    async def run(self, client: str, request: Request, job) -> Any:
        """`job()` (blocking) in a thread of the analysis' own, once the worker is free; None when the
        client went before it was answered."""
        if client in self.clients:
            raise OneAtATimeError("this client has an analysis waiting or running already; one at a time: "
                                  "send the next once it is answered")
        if self.waiting >= self.most:
            raise ServerBusyError(f"{self.waiting} analyses are waiting for the analysis worker, the most it takes; "
                                  "try again in a moment")
        if self._gate is None:
            self._gate, self._thread = anyio.Lock(), anyio.CapacityLimiter(1)
        self.clients.add(client)
        self.waiting += 1
        queued = True
        result: Any = None
        failed: Exception | None = None
        gone = False
        try:
            async with anyio.create_task_group() as tg:
                running = False

                async def watch() -> None:
                    while (await request.receive())["type"] != "http.disconnect":
                        pass
                    if running:
                        self.worker.stop_job()  # its thread returns at once; the cancel then takes effect
                    tg.cancel_scope.cancel()

                tg.start_soon(watch)
                async with self._gate:
                    self.waiting -= 1
                    queued = False
                    running = True
                    try:
                        result = await anyio.to_thread.run_sync(job, limiter=self._thread)
                    except Exception as e:  # (raised past the task group, not as a group of one)
                        failed = e
                    running = False
                gone = tg.cancel_scope.cancel_called
                tg.cancel_scope.cancel()
        finally:
            if queued:
                self.waiting -= 1
            self.clients.discard(client)
        if failed is not None and not gone:  # (a job killed because its client went fails: nobody waits)
            raise failed
        return result


def _flag(data: dict, key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise AnalysisError(f"{key} must be true or false, got {value!r}")
    return value


def parse_request(data: dict) -> tuple[AnalysisPosition, dict]:
    """The position a request names and the job's options."""
    unknown = set(data) - FIELDS
    if unknown:
        raise AnalysisError(f"unknown field(s) {', '.join(sorted(map(repr, unknown)))}; allowed: "
                            f"{', '.join(sorted(FIELDS))}")
    given = [k for k in SOURCES if k in data]
    if len(given) != 1:
        raise AnalysisError("give the position once, as one of: code (a link's code), text (a pasted position), "
                            f"file (a file's bytes in base64), cells (with width and height); got {given or 'none'}")
    if "code" in data:
        pos = AnalysisPosition.from_code(data["code"])
    elif "text" in data:
        if not isinstance(data["text"], str):
            raise AnalysisError("text must be a string: the position as text")
        pos, _ = read_position(data["text"])
    elif "file" in data:
        pos, _ = read_position(read_file_field(data["file"]))
    else:
        pos = from_cells(data["cells"], data.get("width"), data.get("height"), None, data.get("topology", "bounded"))
    if "mines" in data:
        pos = AnalysisPosition(pos.cells, data["mines"], pos.topology)
    click = data.get("click")
    if click is not None:
        if not (isinstance(click, list) and len(click) == 3 and click[0] in ACTIONS
                and all(isinstance(v, int) and not isinstance(v, bool) for v in click[1:])):
            raise AnalysisError(f"click must be [kind, x, y] with kind one of {', '.join(ACTIONS)}, got {click!r}")
        if not (0 <= click[1] < pos.width and 0 <= click[2] < pos.height):
            raise AnalysisError(f"click ({click[1]}, {click[2]}) is off the {pos.width}x{pos.height} board")
    limit = data.get("time_limit", TIME_LIMIT)
    low, high = TIME_LIMITS
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not low <= limit <= high:
        raise AnalysisError(f"time_limit must be a number of seconds in {low}..{high}, got {limit!r}")
    job = {"code": pos.code, "trust_flags": _flag(data, "trust_flags", False), "click": click,
           "optimal": _flag(data, "optimal", True), "time_limit": float(limit)}
    return pos, job


def analyse_request(data: dict) -> dict:
    """The whole answer to POST /api/analyse (blocking: run it in a worker thread)."""
    pos, job = parse_request(data)
    limit = job.pop("time_limit")
    parts, timed_out, seconds = WORKER.run(job, limit)
    out: dict[str, Any] = {"position": {"width": pos.width, "height": pos.height, "mines": pos.mines, "topology": pos.topology,
                        "cells": pos.text, "code": pos.code}}
    if "core" in parts:
        out.update(parts["core"])
    else:
        out.update(status="too_complex", trust_flags=job["trust_flags"], local=local_rules(pos, job["trust_flags"]),
                   message=f"not analysed within the time limit of {limit:g} s; shown: what the local rules "
                           "(each number alone, and pairs of numbers) decide")
    if job["optimal"]:
        out["optimal"] = parts.get("optimal") or {"status": "unavailable", "message": (
            f"perfect play was not searched to the end within the time limit of {limit:g} s")}
    out.update(timed_out=timed_out, seconds=round(seconds, 4), time_limit=limit)
    return out


# --- positions of games and records ----------------------------------------------------------------
def record_position(rec: dict, step: int | None = None) -> dict:
    """A finished game's position before its action `step` (what the player saw then), with that action;
    by default a lost game's fatal click, else the end."""
    r = rec["record"]
    actions = r.get("actions", [])
    lost_at = len(actions) - 1 if rec["status"] == "lost" and actions else None
    if step is None:
        step = lost_at if lost_at is not None else len(actions)
    if not 0 <= step <= len(actions):
        raise AnalysisError(f"step {step} is out of range; record {rec['id']} has steps 0..{len(actions)}")
    if r.get("played_board") is None:  # never opened: nothing was seen
        view = AnalysisPosition(np.full((rec["height"], rec["width"]), HIDDEN, dtype=np.int8), rec["mines"])
    else:
        board = Board.from_dict(r["played_board"])
        for i, game in enumerate(replay_steps(board, actions, marks=bool(r.get("marks", True)))):
            if i == step:
                v = game.view()
                view = AnalysisPosition(v.cells, v.mine_count, v.topology)
                break
    click = list(actions[step][:3]) if step < len(actions) else None
    return {"record": rec["id"], "step": step, "steps": len(actions), "lost": step == lost_at, "click": click,
            "position": {"width": view.width, "height": view.height, "mines": view.mines,
                         "topology": view.topology, "cells": view.text, "code": view.code}}


def analyse_routes(hub, store, read_object, threads: Threads, queue: Queue) -> list[Route]:
    """The page and the API routes, over the server's games (`hub`) and records (`store`);
    `read_object(request, fields, limit=...)` is the server's reader of a JSON object body (capped,
    its fields checked); `threads`: the server's thread pools (threads.py); `queue`: who waits for the
    analysis worker (shared with practice.py's odds)."""

    async def page(request: Request):
        return FileResponse(STATIC / "analyse.html")

    async def api_analyse(request: Request):
        data = await read_object(request, FIELDS, limit=MAX_BODY)
        client = request.client.host if request.client else "local"
        answer = await queue.run(client, request, lambda: analyse_request(data))
        return JSONResponse(answer if answer is not None else {"error": "the client went"}, status_code=200)

    def _step(request: Request) -> int | None:
        raw = request.query_params.get("step")
        if raw is None:
            return None
        if not raw.isascii() or not raw.isdigit() or len(raw) > 9:
            raise AnalysisError(f"step={raw!r} is not a step number (0, 1, 2, ...)")
        return int(raw)

    async def record(request: Request):
        raw = request.path_params["rid"]
        if not raw.isascii() or not raw.isdigit() or len(raw) > 18:
            raise AnalysisError(f"record id {raw!r} is not a positive integer")
        rec = store.get(int(raw))
        return JSONResponse(await threads.run("reads", record_position, rec, _step(request)))

    def game_position(gid: str) -> dict:
        pg = hub.get(gid)
        with pg.lock:
            g = pg.game
            if pg.record_id is None and not g.over:
                v = g.view()  # what the player sees, and nothing more
                hub.store.set_live_hints(pg.id, pg.hints_used + 1)  # counted in the store first, as a hint is
                pg.hints_used += 1
                pos = AnalysisPosition(v.cells, v.mine_count, v.topology)
                return {"game": pg.id, "hints_used": pg.hints_used, "click": None, "lost": False,
                        "position": {"width": pos.width, "height": pos.height, "mines": pos.mines,
                                     "topology": pos.topology, "cells": pos.text, "code": pos.code}}
        if pg.record_id is None:
            raise IllegalMoveError("this game is over but not filed yet; try again in a moment")
        return record_position(store.get(pg.record_id))

    async def game(request: Request):
        return JSONResponse(await threads.run("games", game_position, request.path_params["gid"]))

    return [Route("/analyse", page), Route("/api/analyse", api_analyse, methods=["POST"]),
            Route("/api/analyse/record/{rid}", record), Route("/api/analyse/game/{gid}", game, methods=["POST"])]


__all__ = ["AnalysisError", "PositionError", "Queue", "WORKER", "analyse_request", "analyse_routes", "record_position"]
