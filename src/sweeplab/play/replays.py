"""The web app's part in replays: a replay file (uploaded, or given to `sweeplab play --replay`) as the
records page's viewer shows it, move by move with its times, and every judged click with its exact risk.

The file is parsed by ms-toollib in its child process and judged in a worker thread, so the server
keeps answering other requests; a bad file is a 400 JSON error like every other bad request.
"""

from __future__ import annotations

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..replays.judge import judge
from ..replays.read import Replay, ReplayError, read_replay
from .bodies import read_body
from .games import replay_frames

MAX_UPLOAD = 4 * 1024 * 1024  # the longest real replays are a few hundred kB


def replay_view(replay: Replay) -> dict:
    """What the viewer draws: frames as the records page takes them, the judged clicks by action index,
    the file's statistics and where sweeplab and ms-toollib disagree."""
    game = replay.game
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


def read_view(data: bytes, name: str) -> dict:
    return replay_view(read_replay(data, name=name))


def replay_routes(preloaded: dict | None = None) -> list[Route]:
    """Routes: POST /api/replays?name=FILE (the file's bytes as the body) and GET /api/replays/preloaded
    (the file `sweeplab play --replay` was given, already read)."""

    async def upload(request: Request):
        name = request.query_params.get("name", "")
        if not name:
            raise ReplayError("give the file's name as ?name=FILE (its extension says the format: .avf, .rmv, "
                              ".mvf, .evf)")
        data = await read_body(request, MAX_UPLOAD)
        view = await anyio.to_thread.run_sync(read_view, data, name)
        return JSONResponse(view)

    async def preloaded_view(request: Request):
        if preloaded is None:
            return JSONResponse({"error": "no replay was given to this server (sweeplab play --replay FILE); "
                                 "upload one with POST /api/replays?name=FILE"}, status_code=404)
        return JSONResponse(preloaded)

    return [Route("/api/replays", upload, methods=["POST"]), Route("/api/replays/preloaded", preloaded_view)]

