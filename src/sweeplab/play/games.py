"""The games being played: one hub that creates games, applies actions, gives hints, keeps every
game in play in the store (so it is resumed after a restart), and files every finished game there.
Both front ends (web server and terminal) drive it.

What it hands out while a game is in play is what a player sees (cell codes without mines, the
counter, the clock); the seed and the board come only once the game is over. The seed of a game
from a WinMine session (its rand() state) is never handed out: it would foretell the session's next
boards. The store keeps it, so the game can still be reproduced from the database file.

Best times count only boards the player could not know: seeds the server drew (never one the
player chose, never one of an earlier record). A game by seed or "play this board again" (the
record's board itself: the same mines whatever the first click) is practice: played and recorded,
never a best time. The WinMine session modes lay boards as Windows did, predictable from the
session's earlier boards, so their best times are a table of their own.

A move and its write go together: when the store does not take a move, the game is made again from
what the store holds, and the move was not made. A game given up for a new one after its first click
is filed as quit, a loss in the statistics, as in Windows 7.
"""

from __future__ import annotations

import ipaddress
import re
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from ..board import Board
from ..errors import (
    GameBusyError,
    GameGoneError,
    GameOverError,
    IllegalMoveError,
    NotFoundError,
    NotYoursError,
    StoreError,
    StoreFullError,
    TooManyGamesError,
    UnknownGameError,
)
from ..firstclick import FirstClick, Fixed
from ..game import ACTIONS, LOST, PLAYING, WON, Game, replay, replay_steps
from ..stats import game_stats
from ..svg import EXPLODED_CELL, FLAG_CELL, HIDDEN_CELL, MINE_CELL, QUESTION_CELL, WRONG_FLAG_CELL
from . import modes as M
from .store import MAX_LIVE, PER_CLIENT, Store

IDLE = 24 * 3600.0  # a game in play untouched this long may give way to its own client's new game (as quit)
IDLE_ANYONE = 3600.0  # under the server's cap of games in play, any game untouched this long gives way to a new one
GIVE_WAY = 8  # games that may give way to one new game (more: something keeps them from going)
LOOPBACK = "loopback"  # every client on this machine (127.0.0.0/8, ::1) counts as this one owner


def owner_of(client: str | None) -> str:
    """Who a new game counts against: its client's address, every loopback address as one client (each
    of 127.0.0.0/8 would otherwise count as a new client, from the same machine)."""
    if client is None:
        return "local"
    try:
        return LOOPBACK if ipaddress.ip_address(client).is_loopback else client
    except ValueError:
        return client


ACTIONS_PER_CELL, LEAST_ACTIONS = 3, 1000  # a game takes at most max(1000, 3 per cell) actions


def most_actions(width: int, height: int) -> int:
    """The actions a game may take: every cell opened, flagged and chorded once over, and then some; a
    game past it (a client toggling one flag forever) is refused further moves, not kept growing."""
    return max(LEAST_ACTIONS, ACTIONS_PER_CELL * width * height)

# One character per cell code (svg.py): 0..8 numbers, hidden, flag, "?", mine, exploded mine, wrong flag.
CODE_CHARS = {**{k: str(k) for k in range(9)}, HIDDEN_CELL: "#", FLAG_CELL: "F", QUESTION_CELL: "?", MINE_CELL: "*",
              EXPLODED_CELL: "X", WRONG_FLAG_CELL: "W"}
_table = bytearray(range(256))
for _code, _ch in CODE_CHARS.items():
    _table[_code % 256] = ord(_ch)  # the codes as the bytes of uint8 (negative codes wrap)
_TABLE = bytes(_table)


def cells_text(codes: np.ndarray) -> str:
    return codes.astype(np.uint8).tobytes().translate(_TABLE).decode("ascii")


class Laid(M.Passed):
    """A game's rule, with the board of its first click laid already (in the board child): the very
    board the rule lays there from its seed."""

    def __init__(self, rule: FirstClick, x: int, y: int, placed):
        super().__init__(rule)
        self.at, self.placed = (x, y), placed

    def board_for(self, x, y):
        return self.placed if (x, y) == self.at else self.rule.board_for(x, y)


@dataclass
class PlayedGame:
    id: str
    game: Game
    mode: str
    level: str
    seed: int
    seed_private: bool = False  # a live WinMine session's rand() state: it would foretell the next boards
    practice: bool = False  # a seed the player chose, or a board played again: never a best time
    hints_used: int = 0
    record_id: int | None = None
    new_best: bool = False
    again: int | None = None  # the record this game plays again (its board, whatever the first click)
    player: str | None = None
    session: str | None = None  # the tab that started it: only it may name the player
    stale: bool = False  # the store could not give it back after a failed write: made again on the next request
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def table(self) -> str:
        """Which best-times table a win goes to: the WinMine session modes keep their own."""
        return "session" if M.MODES[self.mode].session else "best"

    @property
    def eligible(self) -> bool:
        return self.hints_used == 0 and self.level != "custom" and not self.practice


PLAYER_NAME = re.compile(r"[^\x00-\x1f\x7f]{1,32}")


def encodable(text: str) -> bool:
    """Whether text can be stored (UTF-8): a lone surrogate, which JSON can carry, cannot."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_player(name) -> str | None:
    if name is None:
        return None
    if not isinstance(name, str) or not PLAYER_NAME.fullmatch(name.strip() or "\x00") or not encodable(name):
        raise IllegalMoveError(f"player must be a name of 1..32 printable characters, got {name!r}")
    return name.strip()


def check_session(session) -> str | None:
    if session is not None and (not isinstance(session, str) or not 1 <= len(session) <= 64
                                or not encodable(session)):
        raise IllegalMoveError(f"session must be a string of 1..64 characters, got {session!r}")
    return session


class Hub:
    """Every game in play, by id. Thread-safe: one lock per game, one for the table. Games in play are
    kept in the store too: one evicted from memory, or lost with a restart, is made again on demand."""

    def __init__(self, store: Store, *, max_games: int = 5000, clock=time.monotonic, per_client: int = PER_CLIENT,
                 most_live: int = MAX_LIVE):
        self.store = store
        self.sessions = M.Sessions()
        self._games: OrderedDict[str, PlayedGame] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_games
        self._clock = clock
        self.per_client, self.most_live = per_client, most_live

    # --- games ---------------------------------------------------------------------------
    def new(self, *, mode: str | None = None, level: str = "beginner", width=None, height=None, mines=None,
            marks: bool = True, seed=None, session: str | None = None, again: int | None = None,
            player: str | None = None, client: str | None = None) -> PlayedGame:
        """Start a game. `seed` plays a seed (practice; else the server draws one from the OS); `again`
        plays the board of a finished record again (practice: the same mines whatever the first click);
        `session` keys the continuing generator of the session modes and replaces that session's
        unfinished game (one past its first click is filed as quit: a loss). `client` (the address it
        came from) may keep PER_CLIENT games in play (see Store.start_live)."""
        player = check_player(player)
        session = check_session(session)
        seed_private = False
        board = None
        if again is not None:
            if seed is not None:
                raise IllegalMoveError("give either seed or again (a record id), not both")
            rec = self.store.get(again)
            if rec["status"] not in ("won", "lost") or not rec["record"].get("played_board"):
                raise IllegalMoveError(f"record {again} was {rec['status']}; only a won or lost game can be played "
                                       "again")
            mode, level, seed, marks = rec["mode"], rec["level"], rec["seed"], bool(rec["marks"])
            width, height, mines = ((rec["width"], rec["height"], rec["mines"]) if level == "custom"
                                    else (None, None, None))
            seed_private = bool(rec["seed_private"])
            board = rec["record"]["played_board"]
        mode_ = M.check_mode(mode if mode is not None else M.default_mode()[0])
        level, w, h, m = M.check_level(mode_, level, width, height, mines)
        if not isinstance(marks, bool):
            raise IllegalMoveError(f"marks must be true or false, got {marks!r}")
        practice = seed is not None
        state = None
        rule: FirstClick
        if board is not None:  # the board as it was played: the same mines whatever the first click
            rule = Fixed(Board.from_dict(board))
        else:
            if mode_.session and seed is None:
                state = self.sessions.get(session or secrets.token_hex(8), mode_.name,
                                          lambda: M.new_session_state(mode_))
                seed_private = True
            elif seed is None:
                seed = self._unseen_seed(mode_)
            rule, seed = M.mode_rule(mode_, w, h, m, seed, session_state=state)
        pg = PlayedGame(secrets.token_urlsafe(12), Game(rule=rule, marks=marks, clock=self._clock), mode_.name,
                        level, seed, seed_private=seed_private, practice=practice, again=again, player=player,
                        session=session)
        spec = {"mode": pg.mode, "level": level, "width": w, "height": h, "mines": m, "seed": str(seed),
                "seed_private": seed_private, "practice": practice, "marks": marks, "again": again,
                "board": board, "player": player}
        if session is not None:
            old = self.store.live_of_session(session)
            if old is not None:
                self._give_up(old)
        owner = owner_of(client)
        # the wall-clock moment the game's own clock started (not now: a resumed game's clock goes on
        # from it, and must not lose the time spent here since)
        created = time.time() - pg.game.now
        for _ in range(GIVE_WAY):
            try:
                self.store.start_live(pg.id, spec, created=created, session=session, owner=owner,
                                      per_client=self.per_client, most=self.most_live)
                break
            except TooManyGamesError:
                # this machine's browser is never locked out of a new game: its stalest game gives way
                idle = self.store.idle_game(owner, time.time() - (0 if owner == LOOPBACK else IDLE))
                if idle is None:
                    raise
                self._give_up(idle)  # counted as quit (one without a move is forgotten), and its room is this game's
            except StoreFullError:
                idle = self.store.idle_game(None, time.time() - IDLE_ANYONE)  # anyone's, an hour untouched
                if idle is None:
                    raise
                self._give_up(idle)
        else:
            raise StoreFullError("the server keeps as many games in play as it may, none of them free to give way; "
                                 "try again later")
        self._keep(pg)
        return pg

    def _give_up(self, game_id: str) -> None:
        """A game in play thrown away for a new one: filed as quit (a loss, as in Windows 7) once its first
        click was made; one still waiting for it is forgotten when the new one is kept (Store.start_live)."""
        try:
            pg = self.get(game_id)
        except (UnknownGameError, GameGoneError):  # gone already, or filed as abandoned on the way
            return
        if not pg.lock.acquire(blocking=False):
            raise GameBusyError("the game in play is still busy with its previous action (laying its board); "
                                "try again in a moment")
        try:
            if pg.record_id is None and pg.game.over:
                self._file(pg)
            elif pg.record_id is None and pg.game.status == PLAYING:
                self._file(pg, quit=True)
            elif pg.record_id is None:
                self.store.drop_live(pg.id)
        finally:
            pg.lock.release()
        with self._lock:
            self._games.pop(game_id, None)

    def _unseen_seed(self, mode: M.Mode) -> int:
        """A seed from the OS that no finished game of this mode had (its board could be known)."""
        while True:
            seed = secrets.randbits(mode.seed_bits)
            if not self.store.seen(mode.name, seed):
                return seed

    def _keep(self, pg: PlayedGame) -> None:
        with self._lock:
            self._games[pg.id] = pg
            while len(self._games) > self._max:
                self._games.popitem(last=False)  # the least recently touched game goes (the store keeps it)

    def get(self, game_id) -> PlayedGame:
        if not isinstance(game_id, str):
            raise UnknownGameError(f"game id must be a string, got {game_id!r}")
        with self._lock:
            pg = self._games.get(game_id)
            if pg is not None:
                self._games.move_to_end(game_id)
                return pg
        return self._resume(game_id)

    def _resume(self, game_id: str) -> PlayedGame:
        """A game kept in play by the store, made again: the same rule from its seed, its actions
        replayed with their times, and its clock going on from when it was created (the time the
        server was away counts: stopping the server must not stop the clock)."""
        live = self.store.live(game_id)
        if live is None:
            raise UnknownGameError(f"no game {game_id!r} in play; start one with POST /api/games")
        spec = live["spec"]
        try:
            mode_ = M.check_mode(spec["mode"])
            level = spec["level"]
            game, seed = self._remake(mode_, spec, live)
        except Exception as e:  # a mode gone, a generator changed: the game cannot be made again
            rid = self._file_abandoned(game_id, spec, live, f"{type(e).__name__}: {e}")
            raise GameGoneError(f"game {game_id!r} could not be resumed after the server restarted ({e}); it was "
                                f"filed as abandoned (record {rid}); start a new game", rid) from None
        try:
            player = check_player(spec.get("player"))
        except IllegalMoveError:  # a name kept before names were checked as text: the game goes on without it
            player = None
        pg = PlayedGame(game_id, game, mode_.name, level, seed, seed_private=spec["seed_private"],
                        practice=spec["practice"], hints_used=live["hints"], again=spec.get("again"),
                        player=player, session=live["session"])
        with self._lock:  # another request may have resumed it meanwhile: one copy only
            if game_id in self._games:
                return self._games[game_id]
        self._keep(pg)
        if game.over:  # it ended just before the server stopped, before it was filed
            self.file(pg)
        return pg

    def _remake(self, mode_: M.Mode, spec: dict, live: dict) -> tuple[Game, int]:
        """The game as the store has it: its rule again (the kept board of a board played again, else
        from the seed), its actions replayed, its clock going on from its creation."""
        rule: FirstClick
        if spec.get("board"):
            rule, seed = Fixed(Board.from_dict(spec["board"])), int(spec["seed"])
        else:
            level, w, h, m = M.check_level(mode_, spec["level"], *((spec["width"], spec["height"], spec["mines"])
                                                                   if spec["level"] == "custom" else (None,) * 3))
            rule, seed = M.mode_rule(mode_, w, h, m, int(spec["seed"]))
        game = replay(None, live["actions"], rule=rule, marks=spec["marks"], now=time.time() - live["created"])
        return game, seed

    def _roll_back(self, pg: PlayedGame) -> None:
        """After a write the store did not take: the game made again as the store has it, so that what the
        player sees, the store and a restarted server agree. If even that fails, the game is dropped
        from memory and made again from the store on its next request."""
        try:
            live = self.store.live(pg.id)
            if live is None:
                raise UnknownGameError(pg.id)
            pg.game, _ = self._remake(M.check_mode(pg.mode), live["spec"], live)
        except Exception:  # noqa: BLE001  (the store itself failing: the next request tries again)
            pg.stale = True
            with self._lock:
                if self._games.get(pg.id) is pg:
                    del self._games[pg.id]

    def _file_abandoned(self, game_id: str, spec: dict, live: dict, why: str) -> int:
        acts = live["actions"]
        return self.store.add({
            "game_id": game_id, "finished_at": time.time(), "mode": spec["mode"], "level": spec["level"],
            "width": spec["width"], "height": spec["height"], "mines": spec["mines"], "seed": int(spec["seed"]),
            "seed_private": int(spec["seed_private"]), "marks": int(spec["marks"]), "hints": live["hints"],
            "status": "abandoned", "elapsed": float(acts[-1][3]) if acts else 0.0, "timer": 0, "bbbv": 0,
            "bbbv_per_second": 0.0, "ioe": 0.0, "practice": int(spec["practice"]), "player": spec.get("player"),
            "record": {"abandoned": why, "width": spec["width"], "height": spec["height"], "mines": spec["mines"],
                       "marks": spec["marks"], "actions": acts, "played_board": None}})

    def act(self, pg: PlayedGame, kind, x, y, *, file: bool = True, wait: bool = True,
            store_wait: float | None = None, laid=None) -> dict:
        """Apply one action and keep it in the store, as one: when the store does not take the action,
        the game is rolled back to what the store has and StoreError says the move was not made. A
        finished game is filed before this returns (unless `file` is False: then the caller must call
        `file(pg)` before it answers). Raises, changing nothing, on an unknown kind, a cell off the
        board, a finished game, or (with `wait` False) a game that another thread is still busy with.
        `store_wait`: how long the store may wait for another program's write lock (None: its own).
        `laid`: the board a first click at (x, y) lays, laid already (board_child.py), or None."""
        if kind not in ACTIONS:
            raise IllegalMoveError(f"unknown action {kind!r}; allowed: {', '.join(ACTIONS)}")
        if not pg.lock.acquire(blocking=wait):
            raise GameBusyError("this game is still busy with its previous action (laying its board); "
                                "try again in a moment")
        try:
            self._check_live(pg)
            g = pg.game
            most = most_actions(g.width, g.height)
            if len(g.log) >= most:
                raise IllegalMoveError(f"this game has taken {len(g.log):,} actions, the most a {g.width}x{g.height} "
                                       f"game may take ({most:,}); finish it or start a new game")
            if laid is not None and g.board is None:
                g.rule = Laid(g.rule, x, y, laid)
            g.act(kind, x, y)
            a = pg.game.log[-1]
            try:
                self.store.add_action(pg.id, len(pg.game.log) - 1, a.kind, a.x, a.y, a.t, wait=store_wait)
            except StoreError:
                self._roll_back(pg)
                raise
            if file and pg.game.over and pg.record_id is None:
                self._file(pg)
            return self.state(pg)
        finally:
            pg.lock.release()

    def _check_live(self, pg: PlayedGame) -> None:
        if pg.stale:
            raise StoreError("the game database could not be read just now; nothing was changed: try again")
        if pg.record_id is not None and not pg.game.over:
            raise GameOverError("this game was given up for a new one (filed as quit); start a new game")

    def file(self, pg: PlayedGame) -> dict:
        """File a finished game in the store (once) and return its final state."""
        with pg.lock:
            if pg.game.over and pg.record_id is None:
                self._file(pg)
            return self.state(pg)

    def hint(self, pg: PlayedGame, *, store_wait: float | None = None) -> dict:
        """The solver's hint from the view alone; the game is marked as played with hints (in the store
        first: a hint the store did not count is not given). Cells in the reason are named as a player
        counts them: column and row from 1."""
        from ..solver import hint as solver_hint
        with pg.lock:
            self._check_live(pg)
            if pg.game.over:
                raise IllegalMoveError(f"the game is over ({pg.game.status}); no hints for it")
            h = solver_hint(pg.game.view(), name=lambda x, y: f"column {x + 1}, row {y + 1}")
            self.store.set_live_hints(pg.id, pg.hints_used + 1, wait=store_wait)
            pg.hints_used += 1
            return {"kind": h.kind, "cells": [[int(x), int(y)] for x, y in h.cells],
                    "why": [[int(x), int(y)] for x, y in h.named],  # marked on the board beside the advice
                    "probability": None if h.probability is None else float(h.probability),
                    "reason": h.reason, "hints_used": pg.hints_used}

    def name_player(self, pg: PlayedGame, player, session=None) -> dict:
        """Put the player's name on a finished game (for the top-10 table); only the session (tab) that
        started the game may, when it was started by one."""
        player = check_player(player)
        if pg.session is not None and session != pg.session:
            raise NotYoursError("only the tab that played this game may name its player; send its \"session\"")
        if player is None or pg.record_id is None or not pg.game.over:
            raise IllegalMoveError("only a finished game takes a player name; send {\"player\": name}")
        self.store.set_player(pg.id, player)
        pg.player = player
        return self.state(pg)

    def _file(self, pg: PlayedGame, *, quit: bool = False) -> None:
        """File the game (over, or given up in play when `quit`) as a record; the same transaction drops it
        from the games in play. When the store does not take it, StoreError says so: the game's moves are
        kept, and it is filed the next time it is asked for (or when the server starts again)."""
        g = pg.game
        st = game_stats(g)
        status = "quit" if quit else g.status
        rec = g.record()
        rec.update(status=status, mode=pg.mode, level=pg.level, seed=pg.seed, seed_private=pg.seed_private,
                   hints_used=pg.hints_used, practice=pg.practice, again=pg.again,
                   played_board=None if g.board is None else g.board.to_dict(), stats=st.as_dict(),
                   board_note=g.rule.board_note())
        eligible = status == WON and pg.eligible
        best = []
        if eligible:
            best = [b for b in self.store.best_times() if b["level"] == pg.level and b["mode"] == pg.mode]
        try:
            pg.record_id = self.store.add({
                "game_id": pg.id, "finished_at": time.time(), "mode": pg.mode, "level": pg.level, "width": g.width,
                "height": g.height, "mines": g.mine_count, "seed": pg.seed, "seed_private": int(pg.seed_private),
                "marks": int(g.marks), "hints": pg.hints_used, "status": status, "elapsed": st.time,
                "timer": g.timer, "bbbv": st.bbbv, "bbbv_per_second": st.bbbv_per_second, "ioe": st.ioe,
                "practice": int(pg.practice), "player": pg.player, "record": rec})
        except StoreError as e:
            if quit:
                raise
            raise StoreError(f"the game is over and its moves are kept, but it could not be filed yet ({e}); it is "
                             "filed when it is next opened") from None
        pg.new_best = eligible and (not best or st.time < best[0]["elapsed"])

    # --- what a player sees ----------------------------------------------------------------
    def state(self, pg: PlayedGame) -> dict:
        g = pg.game
        out = {"id": pg.id, "mode": pg.mode, "level": pg.level, "width": g.width, "height": g.height,
               "mines": g.mine_count, "marks": g.marks, "status": g.status, "mines_left": g.mines_left,
               "timer": g.timer, "elapsed": round(g.elapsed, 3), "cells": cells_text(g.cell_codes()),
               "hints_used": pg.hints_used, "practice": pg.practice, "table": pg.table, "again": pg.again}
        if g.over:
            st = game_stats(g)
            out.update(seed=None if pg.seed_private else str(pg.seed), record_id=pg.record_id, new_best=pg.new_best,
                       eligible=pg.eligible, player=pg.player, board_note=g.rule.board_note(),
                       board=None if g.board is None else cells_text(g.board.cell_codes()),
                       stats=finished_figures(st))
        return out

    def __len__(self) -> int:
        return len(self._games)


def finished_figures(st) -> dict:
    """A finished game's figures for the page's counters: every count of `GameStats`, the ratios to 3
    decimals."""
    out = st.as_dict()
    for k in ("time", "bbbv_per_second", "ioe", "correctness", "throughput", "rqp"):
        out[k] = round(out[k], 3)
    return out


def replay_frames(record: dict) -> list[dict]:
    """A finished game move by move: the cells, counter and clock after each action. The played board
    is fixed from the first click on, so replaying on it reproduces the game for every mode."""
    pb = record.get("played_board")
    acts = record.get("actions", [])
    if pb is None:
        frames = [{"t": 0.0, "action": None, "cells": "#" * (record["width"] * record["height"]),
                   "mines_left": record["mines"], "status": "ready", "timer": 0}]
        return frames + [{"t": a[3], "action": a[:3], "cells": frames[0]["cells"], "mines_left": record["mines"],
                          "status": "ready", "timer": 0} for a in acts]
    board = Board.from_dict(pb)
    frames = []
    for i, game in enumerate(replay_steps(board, acts, marks=record.get("marks", True))):
        a = acts[i - 1] if i else None
        frames.append({"t": 0.0 if a is None else a[3], "action": None if a is None else a[:3],
                       "cells": cells_text(game.cell_codes()), "mines_left": game.mines_left,
                       "status": game.status, "timer": game.timer})
    return frames


__all__ = ["Hub", "PlayedGame", "GameBusyError", "GameGoneError", "NotYoursError", "UnknownGameError", "NotFoundError",
           "replay_frames", "cells_text", "LOST", "WON"]
