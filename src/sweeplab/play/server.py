"""The web server of `sweeplab play`: a Starlette app over the game hub, and its uvicorn runner.

The browser only draws what the JSON says: cell codes without mines while a game is in play, the
board once it is over. Every bad request gets a 4xx JSON body `{"error": ...}` that says what was
wrong and what is allowed, and changes no game. Seeds travel as strings of digits both ways: a
63-bit seed does not survive a JavaScript number.

Other sites must not drive the server from the player's browser: a POST must say
`Content-Type: application/json` (which a cross-site form or a simple fetch cannot send without
asking first), and the Host header must be a loopback name or the address the server was told to
listen on (a DNS-rebinding page arrives with its own host name).

What one client can make the server hold is bounded: a body past its route's limit is refused (413)
by its Content-Length or once that much has come; a client address keeps at most PER_CLIENT games in
play (429 beyond, dropping only its own games that have no move; this machine's loopback clients are
one, and its stalest game gives way instead); a game takes at most games.most_actions; a replay file
is read in a child with a memory limit and a deadline (replays.py). Heavy work has threads of its own
(threads.py) and bounds: analyses a queue (analyse.py), dense no-guess first clicks a child with a
deadline (board_child.py), record replays a size. A 200 to a move means the move is in the database;
when the database does not take it, 503 says so and the game is as before the move.
"""

from __future__ import annotations

import ipaddress
import json
import signal
import socket
import threading
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..errors import (
    BadRequest,
    BodyTooLarge,
    GameBusyError,
    GameGoneError,
    GameOverError,
    GenerationError,
    NotFoundError,
    NotYoursError,
    OneAtATimeError,
    ReplayBusy,
    ServerBusyError,
    StoreBusyError,
    StoreError,
    SweeplabError,
    TooManyGamesError,
    UnknownGameError,
)
from . import modes as M
from .analyse import WORKER, Queue, analyse_routes
from .board_child import SECONDS as BOARD_SECONDS
from .board_child import Layer
from .bodies import check_text, read_body, record_id
from .games import Hub
from .practice import practice_routes
from .record_routes import record_routes
from .replays import Framer, Reader, replay_answer, replay_routes
from .store import PER_CLIENT, Store
from .threads import Threads

STATIC = Path(__file__).parent / "static"
MAX_BODY = 16 * 1024
NEW_GAME_FIELDS = {"mode", "level", "width", "height", "mines", "marks", "seed", "session", "again", "player"}
LOOPBACK_NAMES = {"localhost", "localhost."}
ACTION_FIELDS = {"kind", "x", "y"}


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request, allowed: set[str], *, empty_ok: bool = False, limit: int = MAX_BODY) -> dict:
    raw = await read_body(request, limit)
    if not raw.strip():
        if empty_ok:
            return {}
        raise BadRequest(f"expected a JSON object body with {', '.join(sorted(allowed))}")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as e:
        raise BadRequest(f"body is not JSON ({e}); expected a JSON object") from None
    if not isinstance(data, dict):
        raise BadRequest(f"body must be a JSON object, got {type(data).__name__}")
    check_text(data)
    unknown = set(data) - allowed
    if unknown:
        raise BadRequest(f"unknown field(s) {', '.join(sorted(map(repr, unknown)))}; allowed: "
                         f"{', '.join(sorted(allowed))}")
    return data


def _int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"query parameter {name}={raw!r} is not an integer; allowed {low}..{high}") from None
    if not low <= value <= high:
        raise BadRequest(f"query parameter {name}={value} is out of range; allowed {low}..{high}")
    return value


def _public(row: dict) -> dict:
    """A record as the API shows it: seeds as strings; a WinMine session's rand() state held back (it
    foretells the session's next boards; the database keeps it); never its game id, which is the key
    to the game (its player's name) that only the tab that played it holds."""
    row = {k: v for k, v in row.items() if k not in ("game_id", "path")}  # (a path: GET .../path)
    row["seed"] = None if row.get("seed") is None else str(row["seed"])
    if "record" in row:
        rec = dict(row["record"])
        if rec.get("seed") is not None:
            rec["seed"] = str(rec["seed"])
        if isinstance(rec.get("rule"), dict):
            rec["rule"] = {k: str(v) if k in ("seed", "state") and isinstance(v, int) else v
                           for k, v in rec["rule"].items()}
        row["record"] = rec
    if row.get("seed_private"):
        row = dict(row, seed=None)
        if "record" in row:
            row["record"] = {k: v for k, v in row["record"].items() if k not in ("seed", "rule")}
    return row


def host_checker(listen_host: str):
    """Whether a Host header (name[:port]) names this server: a loopback name or address, the address
    it listens on, or (listening on every address) any IP address, never another DNS name."""
    wildcard = listen_host in ("0.0.0.0", "::", "")
    extra = listen_host.lower().strip("[]")

    def ok(header: str) -> bool:
        name = header.strip().lower()
        if name.startswith("["):
            name = name[1:name.find("]")] if "]" in name else ""
        elif name.count(":") == 1:
            name = name.split(":")[0]
        if not name:
            return False
        if name in LOOPBACK_NAMES or name == extra:
            return True
        try:
            ip = ipaddress.ip_address(name)
        except ValueError:
            return False
        return ip.is_loopback or wildcard

    return ok


# Neither type can be sent by another site's form without the browser asking first (CORS preflight).
POST_TYPES = {"/api/replays": "application/octet-stream"}  # a replay file's bytes


class Guard:
    """ASGI middleware: a foreign Host gets 403 and a POST that is not application/json gets 415,
    before any route runs."""

    def __init__(self, app: Starlette, host_ok):
        self.app, self.host_ok = app, host_ok
        self.state = app.state  # the hub, store and reader, as the tests and the CLI reach them

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            host = headers.get(b"host", b"").decode("latin-1")
            why = None
            if not self.host_ok(host):
                why = (403, f"Host {host!r} is not this server's; open it as http://127.0.0.1:PORT/ or "
                            "http://localhost:PORT/ (or the --host it was started with)")
            elif scope["method"] == "POST":
                ctype = headers.get(b"content-type", b"").decode("latin-1").split(";")[0].strip().lower()
                want = POST_TYPES.get(scope["path"], "application/json")
                if ctype != want:
                    why = (415, f"a POST to {scope['path']} must be sent as Content-Type: {want}, "
                                f"not {ctype or 'none'!r}")
            if why is not None:
                await _error(*why)(scope, receive, send)
                return
        await self.app(scope, receive, send)


# --- the routes: each finds the hub, store, thread pools and board child in request.app.state ----------
async def index(request):
    return FileResponse(STATIC / "index.html")


async def records_page(request):
    return FileResponse(STATIC / "records.html")


async def favicon(request):
    return Response(status_code=204)


async def api_modes(request):
    return JSONResponse(M.modes_info())


async def new_game(request):
    hub, threads = request.app.state.hub, request.app.state.threads
    data = await _body(request, NEW_GAME_FIELDS, empty_ok=True)
    if "seed" in data and not isinstance(data["seed"], str):
        raise BadRequest(f"seed must be a string of decimal digits (a JSON number loses digits above 2^53), "
                         f"got {data['seed']!r}")
    again = data.get("again")
    if again is not None and (isinstance(again, bool) or not isinstance(again, int) or not 1 <= again < 10 ** 18):
        raise BadRequest(f"again must be a record id (a positive integer below 10^18), got {again!r}")
    kw = {k: data[k] for k in ("mode", "width", "height", "mines", "marks", "seed", "again", "player", "session")
          if k in data}
    client = request.client.host if request.client else None
    # In a worker thread: it may file the tab's game given up (synced) or wait for the database.
    pg = await threads.run("games", lambda: hub.new(level=data.get("level", "beginner"), client=client, **kw))
    return JSONResponse(hub.state(pg), status_code=201)


async def name_player(request):
    hub, threads = request.app.state.hub, request.app.state.threads
    pg = hub.get(request.path_params["gid"])
    data = await _body(request, {"player", "session"})
    return JSONResponse(await threads.run("games", hub.name_player, pg, data.get("player"), data.get("session")))


async def get_game(request):
    hub, threads = request.app.state.hub, request.app.state.threads
    pg = hub.get(request.path_params["gid"])
    if pg.game.over and pg.record_id is None:  # over, but the store did not take it then: filed now
        return JSONResponse(await threads.run("games", hub.file, pg))
    return JSONResponse(hub.state(pg))


async def act(request):
    hub, threads, layer = request.app.state.hub, request.app.state.threads, request.app.state.layer
    gid = request.path_params["gid"]
    pg = hub.get(gid)
    data = await _body(request, ACTION_FIELDS)
    missing = ACTION_FIELDS - set(data)
    if missing:
        raise BadRequest(f"action lacks {', '.join(sorted(missing))}; send {{\"kind\": open|flag|chord, "
                         "\"x\": column, \"y\": row}")
    kind, x, y = data["kind"], data["x"], data["y"]
    g = pg.game
    first = g.board is None and kind == "open" and M.slow_first_click(pg.mode, g.width, g.height, g.mine_count)
    if first and M.dense_no_guess(pg.mode, g.width, g.height, g.mine_count) and type(x) is int and type(y) is int \
            and 0 <= x < g.width and 0 <= y < g.height:
        # A dense or large no-guess board can take many seconds, holding the interpreter: laid in the
        # board child (board_child.py) under a deadline, while this request waits without the GIL.
        laid = await threads.run("boards", layer.lay, pg.mode, g.width, g.height, g.mine_count, pg.seed, x, y)
        state = await threads.run("games", lambda: hub.act(pg, kind, x, y, file=False, laid=laid))
    elif first:  # any board while the kernels run as Python: in a thread, other games answered meanwhile
        state = await threads.run("games", lambda: hub.act(pg, kind, x, y, file=False))
    else:
        # Other first clicks (an expert no-guess board: a few ms) run on the event loop: a worker
        # thread would hold the GIL against the loop and slow every other game's answer far more
        # (measured: p99 of the other actions 491 ms with a thread, 92 ms inline; bench_play.py).
        # The write is tried once; when another program holds the database's write lock, the move
        # is rolled back and made again in a worker thread that waits for the lock (a bounded time).
        try:
            state = hub.act(pg, kind, x, y, file=False, wait=False, store_wait=0)
        except StoreBusyError:
            pg = hub.get(gid)
            state = await threads.run("games", lambda: hub.act(pg, kind, x, y, file=False))
    if state["status"] in ("won", "lost"):
        # Filed (committed and synced) before the answer goes out; in a worker thread, because
        # SQLite lets go of the GIL while it waits for the disk and the loop can serve others.
        state = await threads.run("games", hub.file, pg)
    return JSONResponse(state)


async def hint(request):
    hub, threads = request.app.state.hub, request.app.state.threads
    pg = hub.get(request.path_params["gid"])
    await _body(request, set(), empty_ok=True)
    try:  # as a move: the write tried once on the loop, waited for in a worker thread
        return JSONResponse(hub.hint(pg, store_wait=0))
    except StoreBusyError:
        return JSONResponse(await threads.run("games", hub.hint, pg))


def _table(rows):
    for r in rows:
        r["table"] = "session" if r["mode"] in M.MODES and M.MODES[r["mode"]].session else "best"
    return rows


async def best(request):
    store = request.app.state.store
    return JSONResponse({"best": _table(store.best_times())})


async def stats(request):
    store = request.app.state.store
    return JSONResponse({"statistics": store.statistics(request.query_params.get("style")),
                         "top": _table(store.top_times(10))})


async def records(request):
    store = request.app.state.store
    limit = _int_param(request, "limit", 50, 1, 500)
    offset = _int_param(request, "offset", 0, 0, 10 ** 9)
    filters = {}
    for name in ("mode", "level", "status", "style"):
        v = request.query_params.get(name)
        if v is not None:
            filters[name] = v
    unknown = set(request.query_params) - {"limit", "offset", "mode", "level", "status", "style"}
    if unknown:
        raise BadRequest(f"unknown query parameter(s) {', '.join(sorted(unknown))}; allowed: limit, offset, "
                         "mode, level, status, style")
    rows, total = store.records(limit=limit, offset=offset, **filters)
    return JSONResponse({"records": [_public(r) for r in rows], "total": total, "limit": limit, "offset": offset})


async def record(request):
    store = request.app.state.store
    return JSONResponse(_public(store.get(record_id(request))))


async def record_replay(request):
    state = request.app.state
    # its size counted before the record is read, and its frames made in a child: never on the loop, never
    # holding the interpreter against other players
    return Response(await state.threads.run("reads", replay_answer, state.store, state.framer, record_id(request)),
                    media_type="application/json")


async def bad_request(request, exc):
    return _error(400, str(exc))


async def not_found(request, exc):
    return _error(404, str(exc))


async def unavailable(request, exc):  # the generator gave up: nothing wrong with the request
    return _error(503, f"{exc}; try again or choose another mode")


async def store_failed(request, exc):  # the database did not take a write: its message says what was kept
    return _error(503, str(exc))


async def too_many(request, exc):
    return _error(429, str(exc))


async def not_yours(request, exc):
    return _error(403, str(exc))


async def too_large(request, exc):
    return _error(413, str(exc))


async def gone(request, exc: GameGoneError):
    return JSONResponse({"error": str(exc), "abandoned": True, "record_id": exc.record_id}, status_code=410)


async def conflict(request, exc):
    return _error(409, str(exc))


async def http_error(request, exc: HTTPException):
    msg = {404: f"no such page or API route: {request.url.path}",
           405: f"method {request.method} is not allowed on {request.url.path}"}.get(exc.status_code, exc.detail)
    return _error(exc.status_code, msg)


async def server_error(request, exc):  # a bug: still a JSON body, and the test suite fails on it
    return _error(500, f"internal error: {type(exc).__name__}")


def create_app(store: Store, *, hub: Hub | None = None, host: str = "127.0.0.1",
               replay: dict | None = None, board_seconds: float = BOARD_SECONDS) -> Guard:
    """The app over `store`; `host` is the address it listens on (for the Host check). The routes above
    find what they serve (hub, store, threads, layer) in the app's state."""
    hub = hub if hub is not None else Hub(store)  # (an empty Hub is falsy: it has a length)
    threads = Threads()  # a pool per purpose: no kind of work waits for another's threads
    layer = Layer(board_seconds)  # the child that lays dense no-guess boards (started at the first one)

    routes = [
        Route("/", index),
        Route("/records", records_page),
        Route("/favicon.ico", favicon),
        Route("/api/modes", api_modes),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{gid}", get_game),
        Route("/api/games/{gid}/actions", act, methods=["POST"]),
        Route("/api/games/{gid}/hint", hint, methods=["POST"]),
        Route("/api/games/{gid}/player", name_player, methods=["POST"]),
        Route("/api/best", best),
        Route("/api/stats", stats),
        Route("/api/records", records),
        Route("/api/records/{rid}", record),
        Route("/api/records/{rid}/replay", record_replay),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    reader = Reader()  # the child that reads uploaded replay files (started on the first upload)
    routes[-1:-1] = replay_routes(replay, reader, threads)  # replay files: upload, or the one given to `play --replay`
    analyses = Queue(WORKER)  # who waits for the analysis worker: the analysis board and practice alike
    routes[-1:-1] = analyse_routes(hub, store, _body, threads, analyses)  # the analysis board (play/analyse.py)
    routes[-1:-1] = practice_routes(hub, _body, analyses)  # practice with the solver (play/practice.py)
    routes[-1:-1] = record_routes(store, _body, threads)  # tables, mouse paths, EVF, links (play/record_routes.py)
    handlers = {GameGoneError: gone, UnknownGameError: not_found, NotFoundError: not_found, GameOverError: conflict,
                GameBusyError: conflict, GenerationError: unavailable, StoreError: store_failed,
                ReplayBusy: store_failed, TooManyGamesError: too_many, NotYoursError: not_yours,
                BodyTooLarge: too_large, ServerBusyError: store_failed, OneAtATimeError: too_many,
                SweeplabError: bad_request, HTTPException: http_error, Exception: server_error}
    app = Starlette(routes=routes, exception_handlers=handlers)
    app.state.hub, app.state.store, app.state.reader, app.state.layer = hub, store, reader, layer
    app.state.threads, app.state.framer = threads, Framer()
    return Guard(app, host_checker(host))


def bind(host: str, port: int) -> socket.socket:
    """A listening socket; port 0 takes a free one."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio turns Nagle off (TCP_NODELAY) only on sockets whose proto says TCP;
    # with proto 0 every response written in two parts waits ~40 ms for a delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise SweeplabError(f"cannot listen on {host}:{port} ({e.strerror}); choose another --port, or 0 for "
                            "a free one") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def warm_up() -> None:
    """Lay one board of every available mode (and measure it once), so that the numba kernels are
    compiled or loaded from their cache before the first player's first click, not during it."""
    from ..game import Game
    from ..stats import game_stats
    for name, mode in M.MODES.items():
        if M.availability(name) is not None:
            continue
        for level in ("beginner", "expert"):
            w, h, m = mode.levels[level]
            rule, _ = M.mode_rule(mode, w, h, m, 0 if not mode.session else 1)
            game = Game(rule=rule)
            game.open(w // 2, h // 2)
            game_stats(game)


def _no_wait_while_warming(server) -> None:
    """Ctrl-C or SIGTERM while `sweeplab play` still compiles its kernels (its first run) stops without
    waiting for the answers in flight: a first click waiting for the compile would hold the stop for
    minutes. (The click's request is cancelled as the loop closes: expected, so not logged.)"""
    import logging
    handle_exit = server.handle_exit

    def stop(sig, frame):
        if M.WARMING.is_set():
            server.force_exit = True
            logging.getLogger("uvicorn.error").disabled = True
        handle_exit(sig, frame)
    server.handle_exit = stop


STOP_SECONDS = 3  # the most a stop waits for the answers in flight


def _server_class():
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, whose stop first stops the heavy work (the analysis and board children), so
        that the requests waiting for it are answered at once (503) instead of when it would have ended."""

        def __init__(self, config, app: Guard):
            super().__init__(config)
            self.app = app

        async def shutdown(self, sockets=None):
            stop_heavy_work(self.app)
            await super().shutdown(sockets)

    return Server


def stop_heavy_work(app: Guard) -> None:
    """Kill the children that run long jobs, and have them start no other: the server is stopping."""
    WORKER.close()
    app.state.layer.close()
    app.state.framer.close()


def _stop(signum, frame):
    raise KeyboardInterrupt  # SIGTERM ends the server as Ctrl-C does: gracefully


def serve(db_path, *, host: str = "127.0.0.1", port: int = 0, on_started=None, log_level: str = "warning",
          warm: bool = True, replay: dict | None = None, per_client: int = PER_CLIENT,
          board_seconds: float = BOARD_SECONDS) -> None:
    """Run the server until Ctrl-C or SIGTERM (both shut down cleanly: games in play stay in the store,
    the WAL is checkpointed away); `on_started(url)` is called once it listens. `per_client`: games in
    play one client address may keep; `board_seconds`: the most a dense no-guess first click may take."""
    import uvicorn

    from .connections import Protocol

    Server = _server_class()
    store = Store(db_path)
    sock = None
    previous = signal.signal(signal.SIGTERM, _stop) if threading.current_thread() is threading.main_thread() else None
    try:
        sock = bind(host, port)
        url = url_of(sock)
        if warm:
            warm_up()
        app = create_app(store, hub=Hub(store, per_client=per_client), host=host, replay=replay,
                         board_seconds=board_seconds)
        # proxy_headers off: a client's X-Forwarded-For must not choose the address its games count against
        # timeout_graceful_shutdown: a stop waits at most that long for the answers in flight
        server = Server(uvicorn.Config(app, log_level=log_level, access_log=False, lifespan="off",
                                       timeout_keep_alive=60, proxy_headers=False, http=Protocol,
                                       timeout_graceful_shutdown=STOP_SECONDS), app)

        def watch():
            while not server.started and not server.should_exit:
                threading.Event().wait(0.02)
            if server.started and on_started is not None:
                on_started(url)

        threading.Thread(target=watch, daemon=True).start()
        _no_wait_while_warming(server)
        server.run(sockets=[sock])  # uvicorn re-raises the signal it caught once it has shut down
    except KeyboardInterrupt:
        pass
    finally:
        if sock is not None:
            sock.close()
        store.close()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def main() -> None:
    """`python -m sweeplab.play.server DB [PORT] [--no-warm] [--per-client N] [--board-seconds S]`: the
    server alone, for tests and benchmarks (--no-warm: no board laid before it listens, the first games
    compile or load the kernels; --per-client: a load test's many players come from one address;
    --board-seconds: the deadline of a dense no-guess first click)."""
    import argparse
    import sys
    ap = argparse.ArgumentParser(prog="python -m sweeplab.play.server")
    ap.add_argument("db")
    ap.add_argument("port", nargs="?", type=int, default=0)
    ap.add_argument("--no-warm", action="store_true")
    ap.add_argument("--per-client", type=int, default=PER_CLIENT)
    ap.add_argument("--board-seconds", type=float, default=BOARD_SECONDS)
    a = ap.parse_args()
    try:
        serve(a.db, port=a.port, warm=not a.no_warm, per_client=a.per_client, board_seconds=a.board_seconds,
              on_started=lambda url: print(url, flush=True))
    except SweeplabError as e:
        print(f"sweeplab play: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    print("stopped", flush=True)


if __name__ == "__main__":
    main()
