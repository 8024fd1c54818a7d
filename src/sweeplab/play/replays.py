"""The web app's part in replays: a replay file (uploaded, or given to `sweeplab play --replay`) as the
records page's viewer shows it, move by move with its times, and every judged click with its exact risk.

An uploaded file is read in a child process of its own (_replay_child.py: ms-toollib's parse in its
child, the engine, the judge, the frames), with a memory limit and a deadline, one file at a time, so
that the server keeps answering every other request at its usual pace while a file is read, and a
crafted file costs at most VIEW_MEMORY and VIEW_SECONDS before it is refused. The answer is at most
MAX_ANSWER bytes. A finished record's replay (at most MAX_RECORD_ANSWER bytes, `replay_answer`) is made in
another child of the same program, so that its Python work never holds the server's interpreter either. A
bad file is a 4xx JSON error like every other bad request.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
from pathlib import Path

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..errors import BodyTooLarge, ChildBusy, ChildError, ReplayBusy, ReplayError, ServerBusyError
from ..replays.child import Child
from ..replays.judge import judge
from ..replays.read import Replay, read_replay
from .bodies import read_body
from .games import replay_frames
from .threads import Threads

MAX_UPLOAD = 4 * 1024 * 1024  # the longest real replays are a few hundred kB
MAX_ANSWER = 16 * 2 ** 20  # the viewer's JSON: an expert game of 1,000 moves takes under 1 MB
# a record's replay: every game within its most actions fits (30x24 at 2,160 actions: about 2.3 MB)
MAX_RECORD_ANSWER = 4 * 2 ** 20
VIEW_SECONDS = 5.0  # an expert replay is read in well under 1 s
VIEW_MEMORY = 2 * 2 ** 30  # the reading child's address space (the interpreter and its libraries take ~0.6 GB)
FRAMES_SECONDS = 30.0  # the most a record's replay may take to make (2.3 MB of frames take well under 1 s)
FRAME_BYTES = 400  # a frame's JSON besides its cells, and a judged click's, at most


def answer_size(width: int, height: int, actions: int) -> int:
    """About how many bytes a game's frames take as JSON, from its size alone (before any is made)."""
    return (actions + 1) * (width * height + FRAME_BYTES)


def replay_answer(store, framer: Framer, record_id: int) -> bytes:
    """A finished record's frames as GET /api/records/{id}/replay answers them (JSON bytes), refused
    (BodyTooLarge, 413) when they would take more than MAX_RECORD_ANSWER bytes, counted before the
    record is read; made by `framer`'s child. Blocking: run it in a thread."""
    width, height, actions = store.actions_of(record_id)
    size = answer_size(width, height, actions)
    if size > MAX_RECORD_ANSWER:
        raise BodyTooLarge(f"record {record_id}: its {actions:,} moves on a {width}x{height} board are too many to "
                           f"show move by move (about {size / 2 ** 20:.0f} MB; at most "
                           f"{MAX_RECORD_ANSWER / 2 ** 20:.0f} MB)")
    return framer.frames(record_id, width, height, store.record_text(record_id))


def frames_answer(record_id: int, width: int, height: int, record_text: str) -> bytes:
    """The JSON bytes of a record's replay (`replay_answer`'s), made from its record's JSON text."""
    head = json.dumps({"id": record_id, "width": width, "height": height}, separators=(",", ":"))
    frames = ",".join(json.dumps(f, separators=(",", ":")) for f in replay_frames(json.loads(record_text)))
    return f'{head[:-1]},"frames":[{frames}]}}'.encode()


def replay_view(replay: Replay) -> dict:
    """What the viewer draws: frames as the records page takes them, the judged clicks by action index,
    the file's statistics and where sweeplab and ms-toollib disagree. A game whose frames would take
    more than MAX_ANSWER bytes is refused before any is made."""
    game = replay.game
    size = answer_size(game.width, game.height, len(game.log))
    if size > MAX_ANSWER:
        raise ReplayError(f"{replay.name}: its {len(game.log)} moves on a {game.width}x{game.height} board are too "
                          f"many to show move by move (about {size / 2 ** 20:.0f} MB; at most "
                          f"{MAX_ANSWER / 2 ** 20:.0f} MB)")
    record = {"width": game.width, "height": game.height, "mines": game.mine_count, "marks": game.marks,
              "played_board": replay.board.to_dict(), "actions": [a.to_list() for a in game.log]}
    j = judge(game)
    judged = {}
    for c in j.clicks:
        d = c.as_dict()
        judged[str(c.index)] = {k: d[k] for k in ("kind", "x", "y", "t", "cells", "risk", "risk_exact", "first",
                                                 "guess", "forced", "needless", "fifty_fifty", "best",
                                                 "safe_elsewhere", "hit")}
    stats = replay.stats()
    return {"name": replay.name, "width": game.width, "height": game.height, "frames": replay_frames(record),
            "judged": judged, "judgement": j.summary(), "stats": stats, "check": replay.check()}


def read_view(data: bytes, name: str, *, timeout: float = VIEW_SECONDS) -> dict:
    return replay_view(read_replay(data, name=name, timeout=timeout))


def _child() -> Child:
    """A child running _replay_child.py, with this very sweeplab on its path."""
    src = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p))
    return Child([sys.executable, "-m", "sweeplab.play._replay_child"], memory=VIEW_MEMORY, group=True, env=env)


class Reader:
    """The server's reading child (started on the first upload, again after it dies or is killed)."""

    def __init__(self):
        self._child = _child()
        atexit.register(self._child.close)

    def view(self, data: bytes, name: str) -> bytes:
        """The viewer's JSON for a file, as bytes; ReplayError when it cannot be shown in time."""
        try:
            answer = self._child.ask((name, data, VIEW_SECONDS), timeout=VIEW_SECONDS, wait=False)
        except ChildBusy:
            raise ReplayBusy("another replay file is being read; try again in a moment") from None
        except ChildError as e:
            raise ReplayError(f"{name}: reading it stopped: {e}") from None
        if "bug" in answer:
            raise RuntimeError(answer["bug"])
        if "error" in answer:
            raise ReplayError(answer["error"])
        return answer["json"]

    def close(self) -> None:
        self._child.close()


class Framer:
    """The child that makes finished records' replays (the reading child's program; started at the first
    replay asked for): one at a time, the others waiting for it without holding a thread's interpreter."""

    def __init__(self):
        self._child = _child()
        atexit.register(self._child.close)

    def frames(self, record_id: int, width: int, height: int, record_text: str) -> bytes:
        try:
            answer = self._child.ask(("frames", record_id, width, height, record_text), timeout=FRAMES_SECONDS)
        except ChildError as e:
            raise ServerBusyError(f"record {record_id}: its replay could not be made now ({e}); try again") from None
        if "bug" in answer:
            raise RuntimeError(answer["bug"])
        return answer["json"]

    def close(self) -> None:
        self._child.stop()
        self._child.close()


def replay_routes(preloaded: dict | None = None, reader: Reader | None = None, threads: Threads | None = None
                  ) -> list[Route]:
    """Routes: POST /api/replays?name=FILE (the file's bytes as the body, read by `reader`) and GET
    /api/replays/preloaded (the file `sweeplab play --replay` was given, already read)."""
    reader = reader or Reader()

    async def upload(request: Request):
        name = request.query_params.get("name", "")
        if not name:
            raise ReplayError("give the file's name as ?name=FILE (its extension says the format: .avf, .rmv, "
                              ".mvf, .evf)")
        data = await read_body(request, MAX_UPLOAD)
        # in a worker thread that waits on the child's pipe (it holds no interpreter lock meanwhile)
        view = (await threads.run("replays", reader.view, data, name) if threads is not None
                else await anyio.to_thread.run_sync(reader.view, data, name))
        return Response(view, media_type="application/json")

    async def preloaded_view(request: Request):
        if preloaded is None:
            return JSONResponse({"error": "no replay was given to this server (sweeplab play --replay FILE); "
                                 "upload one with POST /api/replays?name=FILE"}, status_code=404)
        return JSONResponse(preloaded)

    return [Route("/api/replays", upload, methods=["POST"]), Route("/api/replays/preloaded", preloaded_view)]
