"""The records' part of the web server: the tables of bests, a finished game's mouse path (as its page
recorded it, or made up from its moves for games without one), its EVF file, and the links players
pass around: a record's replay and a record's board to play as practice.

A link names a record by its id, never by its game id: the game id of a game is the key its player's
tab holds (it names the player, sends the path), so it appears in no link. A board link opens only a
game that was played to its end (won or lost): the board of a game in play, or one given up, is
nobody's to hand out. A bad link is a page that says what was wrong (404), as the API's 4xx say it.

API:
- `GET /api/tables[?style=flag|nf]`: per mode and level, the best time, best 3BV/s and best IOE
  among the wins eligible for best times, each with its record id.
- `POST /api/games/{gid}/path` {path}: the mouse path of a finished game, sent once by its page
  (paths.py says the form and its bounds; past them 413 or 400). Its clicks must make the game's
  moves, so that a replay of the path is the game.
- `GET /api/records/{rid}/path`: the events the viewer draws, `recorded` (the page's) or `made up`
  (a press and release at each move's cell centre), with the time of each frame on the path's clock.
- `GET /api/records/{rid}/evf`: the game as an EVF file.
- `GET /replay/{rid}`, `GET /board/{rid}`: the links.
"""

from __future__ import annotations

import html

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from ..board import Board
from ..errors import BadRequest, EvfWriteError, NotFoundError
from ..replays.evf import CELL, button_events, evf_level, game_events, record_game, record_to_evf
from ..replays.mouse import play_events
from . import modes as M
from .bodies import RECORD_ID, record_id
from .paths import MAX_BODY, check_path, path_events
from .store import Store
from .threads import Threads

BOARD_LINK = ("won", "lost")  # a board link opens a game played to its end, never one in play or given up


def path_view(rec: dict) -> dict:
    """A record's mouse path for the viewer: its events [kind, seconds, x, y] (board pixels of CELL-pixel
    cells), which it is (recorded or made up), and each replay frame's time on the path's clock."""
    record = rec["record"]
    game = record_game(record) if record.get("played_board") else None
    if rec.get("path") is not None and game is not None and game.board is not None:
        events = path_events(rec["path"])
        played = play_events(game.board, button_events(events), CELL).game
        kind, times = "recorded", [0.0] + [a.t for a in played.log]
    elif game is not None and game.log:
        events = game_events(game, cell=CELL)
        t0 = game.log[0].t
        kind, times = "made up", [0.0] + [a.t - t0 for a in game.log]
    else:
        events, kind, times = [], "none", [0.0] * (len(record.get("actions", [])) + 1)
    return {"id": rec["id"], "kind": kind, "cell": CELL, "frame_times": [round(t, 3) for t in times],
            "evf_level": evf_level(rec["width"], rec["height"], rec["mines"]),
            "events": [[e.kind, round(e.t, 3), e.x, e.y] for e in events]}


def same_moves(record: dict, path: list[int]) -> bool:
    """Whether the path's clicks, by the community's click rules, make the record's moves (kind and cell)."""
    if not record.get("played_board"):
        return False
    played = play_events(Board.from_dict(record["played_board"]), button_events(path_events(path)), CELL).game
    return [[a.kind, a.x, a.y] for a in played.log] == [a[:3] for a in record.get("actions", [])]


def _link_page(status: int, title: str, text: str) -> HTMLResponse:
    return HTMLResponse(f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}"
                        f" · sweeplab</title><link rel=\"stylesheet\" href=\"/static/app.css\"></head><body><div "
                        f"class=\"desk\"><div class=\"box\" id=\"link-error\"><h2>{html.escape(title)}</h2><p>"
                        f"{html.escape(text)}</p><p><a href=\"/records\">Records</a> · <a href=\"/\">Play</a></p>"
                        "</div></div></body></html>", status_code=status)


def record_routes(store: Store, read_object, threads: Threads) -> list[Route]:
    """The routes over `store`; `read_object(request, fields, limit=...)` is the server's reader of a JSON
    object body; `threads`: the server's pools by purpose (threads.py), where paths and EVF files are made."""

    async def tables(request: Request):
        unknown = set(request.query_params) - {"style"}
        if unknown:
            raise BadRequest(f"unknown query parameter(s) {', '.join(sorted(unknown))}; allowed: style")
        rows = store.tables(request.query_params.get("style"))
        for r in rows:
            r["table"] = "session" if r["mode"] in M.MODES and M.MODES[r["mode"]].session else "best"
        return JSONResponse({"tables": rows})

    async def send_path(request: Request):
        gid = request.path_params["gid"]
        data = await read_object(request, {"path"}, limit=MAX_BODY)
        if "path" not in data:
            raise BadRequest("send {\"path\": [kind, ms, dx, dy, ...]}")

        def keep() -> dict:
            rid = store.record_of(gid)
            rec = store.get(rid)
            path = check_path(data["path"], rec["width"], rec["height"])
            if not same_moves(rec["record"], path):
                raise BadRequest("the path's clicks do not make this game's moves; it was not kept (the replay "
                                 "shows the moves' made-up path)")
            store.set_path(gid, path)
            return {"record_id": rid, "events": len(path) // 4}

        return JSONResponse(await threads.run("games", keep), status_code=201)

    async def record_path(request: Request):
        rec = store.get(record_id(request))
        return JSONResponse(await threads.run("reads", path_view, rec))

    async def record_evf(request: Request):
        rid = record_id(request)
        rec = store.get(rid)
        try:
            data = await threads.run("reads", record_to_evf, rec)
        except EvfWriteError as e:
            raise BadRequest(f"record {rid}: {e}") from None
        return Response(data, media_type="application/octet-stream",
                        headers={"Content-Disposition": f"attachment; filename=\"sweeplab-{rid}.evf\""})

    def linked(request: Request, what: str) -> tuple[int, dict | None, HTMLResponse | None]:
        raw = request.path_params["rid"]
        if not RECORD_ID.fullmatch(raw):
            return 0, None, _link_page(404, f"Not a {what} link", f"{raw!r} is not a record number; a {what} link "
                                       "is /replay/N or /board/N with N a record number from the records page.")
        try:
            return int(raw), store.get(int(raw)), None
        except NotFoundError:
            return int(raw), None, _link_page(404, "No such record", f"There is no record {raw} in this server's "
                                              "records: the link is from another server or its database.")

    async def replay_link(request: Request):
        rid, rec, bad = linked(request, "replay")
        return bad or RedirectResponse(f"/records#{rid}", status_code=303)

    async def board_link(request: Request):
        rid, rec, bad = linked(request, "board")
        if bad:
            return bad
        assert rec is not None
        if rec["status"] not in BOARD_LINK or not rec["record"].get("played_board"):
            return _link_page(404, "Not a finished board", f"Record {rid} was {rec['status']}: only a game played "
                              "to its end (won or lost) can be played again from a link.")
        return RedirectResponse(f"/?again={rid}", status_code=303)

    return [Route("/api/tables", tables), Route("/api/games/{gid}/path", send_path, methods=["POST"]),
            Route("/api/records/{rid}/path", record_path), Route("/api/records/{rid}/evf", record_evf),
            Route("/replay/{rid}", replay_link), Route("/board/{rid}", board_link)]
