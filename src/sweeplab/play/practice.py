"""Practice with the solver: in a practice game (a seed the player chose, or a board played again), the
exact odds of the player's own view over the live board, the best move with its reason, and the
`strong` player making the next move for the player.

Everything here starts from the game's View (what the player sees, nothing of where the mines are) and
asks the analysis board's own call for it (`analyse.analyse_request`: its worker process, its time
limit, waiting in its queue with the analysis board's requests), so no odds ever come from a hidden cell,
nothing heavy runs on the event loop and a tab's odds count against its one analysis at a time. A game that
could count for best times is refused: odds during it would be cheating. A solver's move is made as
the player's clicks are (`Hub.act`: logged, kept in the store, filed when it ends the game) and counts
as a hint, so the record says the solver helped.

API (a body `{"session": ...}`, the tab that started the game; every refusal a 4xx JSON `{"error": ...}`):

- `POST /api/practice/{gid}/odds`: the analysis board's answer for the game's view (`probability`: each
  hidden cell's exact mine probability, null on open cells; `safe`, `mines_certain`; `move`: the move
  `strong` would play and why), with `cells`, the cells the player sees as the game's JSON writes them.
- `POST /api/practice/{gid}/step`: the solver's next move made in the game: `{"state": the game as its
  own route answers it, "move": {"kind", "x", "y", "reason", "probability"}}`.
"""

from __future__ import annotations

import numpy as np
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..errors import GameBusyError, GameOverError, NoMoveError, NotYoursError
from ..view import FLAG, HIDDEN
from .analyse import Queue, analyse_request
from .analyse_position import AnalysisPosition
from .games import Hub, PlayedGame, cells_text

FIELDS = {"session"}
PRACTICE_ONLY = ("odds and the solver are for practice games only (a seed you chose, or a board played again): "
                 "in a game that may count for best times they would be cheating; start a practice game")


def _practice_game(hub: Hub, gid: str, session) -> PlayedGame | JSONResponse:
    """The caller's practice game, or the 403 that refuses it."""
    pg = hub.get(gid)
    if pg.session is not None and session != pg.session:
        raise NotYoursError("only the tab that started this game may ask the solver; send its \"session\"")
    if not pg.practice:
        return JSONResponse({"error": PRACTICE_ONLY}, status_code=403)
    return pg


def _view_of(pg: PlayedGame) -> tuple[AnalysisPosition, str, int]:
    """The game's view as a position, the cells as the game's JSON writes them, and how many actions
    made it (to tell whether the game moved on meanwhile)."""
    with pg.lock:
        g = pg.game
        if pg.record_id is not None and not g.over:
            raise GameOverError("this game was given up for a new one (filed as quit); start a new game")
        if g.over:
            raise GameOverError(f"the game is over ({g.status}); the analysis board shows how it went")
        v = g.view()  # what the player sees, and nothing more
        return AnalysisPosition(v.cells, v.mine_count, v.topology), cells_text(g.cell_codes()), len(g.log)


def _analysis(pos: AnalysisPosition) -> dict:
    """The analysis board's answer for the position (blocking: in a worker thread)."""
    return analyse_request({"code": pos.code, "optimal": False})


def odds(pg: PlayedGame) -> dict:
    pos, cells, _ = _view_of(pg)
    return {**_analysis(pos), "cells": cells}


def solver_move(cells: np.ndarray, move: dict) -> tuple[str, int, int]:
    """The one action of `strong`'s move: its (first, in reading order) certain safe cell or its guess,
    opened; a flag on that cell is taken off first (strong takes no flag for a mine), by the right click
    that takes it off."""
    if move["kind"] == "mine" or not move["cells"]:  # (strong never flags; "mine" only if no cell is left to open)
        flagged = not move["cells"]  # every unknown cell flagged, none of them certainly safe
        raise NoMoveError(f"it has no cell to open here: {move['reason']}" + " Take a flag off first." * flagged, 409)
    targets = [(x, y) for x, y in move["cells"]]
    x, y = next(((x, y) for x, y in targets if cells[y, x] == HIDDEN), targets[0])
    return ("flag" if cells[y, x] == FLAG else "open"), x, y


def step(hub: Hub, pg: PlayedGame) -> dict:
    """The solver's next move, made in the game (blocking: in a worker thread). Counted as a hint in the
    store first, as a hint is; refused when the game moved on while the solver was thinking."""
    pos, _, before = _view_of(pg)
    answer = _analysis(pos)
    move = answer.get("move")
    if move is None:
        raise NoMoveError(answer.get("message") or f"the position has no move ({answer['status']})", 503)
    kind, x, y = solver_move(pos.cells, move)
    with pg.lock:
        if len(pg.game.log) != before or pg.game.over:
            raise GameBusyError("the game moved on while the solver was thinking; ask it again")
        hub.store.set_live_hints(pg.id, pg.hints_used + 1)
        pg.hints_used += 1
    state = hub.act(pg, kind, x, y)
    return {"state": state, "move": {"kind": kind, "x": x, "y": y, "reason": move["reason"],
                                     "probability": move["probability"]}}


def practice_routes(hub: Hub, read_object, queue: Queue) -> list[Route]:
    """The routes, over the server's games (`hub`); `read_object(request, fields, empty_ok=...)` is the
    server's reader of a JSON object body (capped, its fields checked); `queue`: the analysis worker's
    (analyse.py), whose bounds these routes share."""

    def client(request: Request) -> str:
        return request.client.host if request.client else "local"

    def answer(result) -> JSONResponse:
        return JSONResponse(result if result is not None else {"error": "the client went"})

    async def game_of(request: Request) -> PlayedGame | JSONResponse:
        data = await read_object(request, FIELDS, empty_ok=True)
        return _practice_game(hub, request.path_params["gid"], data.get("session"))

    async def odds_route(request: Request):
        pg = await game_of(request)
        if isinstance(pg, JSONResponse):
            return pg
        return answer(await queue.run(client(request), request, lambda: odds(pg)))

    async def step_route(request: Request):
        pg = await game_of(request)
        if isinstance(pg, JSONResponse):
            return pg
        try:
            return answer(await queue.run(client(request), request, lambda: step(hub, pg)))
        except NoMoveError as e:
            return JSONResponse({"error": f"the solver found no move: {e}"}, status_code=e.status)

    return [Route("/api/practice/{gid}/odds", odds_route, methods=["POST"]),
            Route("/api/practice/{gid}/step", step_route, methods=["POST"])]


__all__ = ["odds", "practice_routes", "solver_move", "step"]
