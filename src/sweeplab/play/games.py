"""The games being played: one hub that creates games, applies actions, gives hints, and files
every finished game in the store. Both front ends (web server and terminal) drive it.

What it hands out while a game is in play is what a player sees (cell codes without mines, the
counter, the clock); the seed and the board come only once the game is over. The seed of a game
from a WinMine session (its rand() state) is never handed out: it would foretell the session's next
boards. The store keeps it, so the game can still be reproduced from the database file.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from ..board import Board
from ..errors import IllegalMoveError, SweeplabError
from ..game import ACTIONS, LOST, WON, Game, replay
from ..stats import game_stats
from ..svg import EXPLODED_CELL, FLAG_CELL, HIDDEN_CELL, MINE_CELL, QUESTION_CELL, WRONG_FLAG_CELL
from . import modes as M
from .store import NotFoundError, Store

# One character per cell code (svg.py): 0..8 numbers, hidden, flag, "?", mine, exploded mine, wrong flag.
CODE_CHARS = {**{k: str(k) for k in range(9)}, HIDDEN_CELL: "#", FLAG_CELL: "F", QUESTION_CELL: "?", MINE_CELL: "*",
              EXPLODED_CELL: "X", WRONG_FLAG_CELL: "W"}
_TABLE = bytearray(range(256))
for _code, _ch in CODE_CHARS.items():
    _TABLE[_code] = ord(_ch)
_TABLE = bytes(_TABLE)


def cells_text(codes: np.ndarray) -> str:
    return codes.astype(np.uint8).tobytes().translate(_TABLE).decode("ascii")


class GameBusyError(SweeplabError):
    """An action on a game that is still busy with the previous one (laying a large no-guess board)."""


class UnknownGameError(SweeplabError):
    """A game id the server does not hold (never made, or long finished and dropped)."""


@dataclass
class PlayedGame:
    id: str
    game: Game
    mode: str
    level: str
    seed: int
    seed_private: bool = False  # a live WinMine session's rand() state: it would foretell the next boards
    hints_used: int = 0
    record_id: int | None = None
    new_best: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


class Hub:
    """Every game in play, by id. Thread-safe: one lock per game, one for the table."""

    def __init__(self, store: Store, *, max_games: int = 5000, clock=time.monotonic):
        self.store = store
        self.sessions = M.Sessions()
        self._games: OrderedDict[str, PlayedGame] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_games
        self._clock = clock

    # --- games ---------------------------------------------------------------------------
    def new(self, *, mode: str | None = None, level: str = "beginner", width=None, height=None, mines=None,
            marks: bool = True, seed: int | None = None, session: str | None = None) -> PlayedGame:
        """Start a game. `seed` replays a seed (else the server draws one from the OS); `session`
        keys the continuing generator of the session modes."""
        mode_ = M.check_mode(mode if mode is not None else M.default_mode()[0])
        level, w, h, m = M.check_level(mode_, level, width, height, mines)
        if not isinstance(marks, bool):
            raise IllegalMoveError(f"marks must be true or false, got {marks!r}")
        state = None
        if mode_.session and seed is None:
            state = self.sessions.get(session or secrets.token_hex(8), mode_.name,
                                      lambda: M.new_session_state(mode_))
        rule, seed = M.make_rule(mode_, w, h, m, seed, session_state=state)
        pg = PlayedGame(secrets.token_urlsafe(12), Game(rule=rule, marks=marks, clock=self._clock), mode_.name,
                        level, seed, seed_private=state is not None)
        with self._lock:
            self._games[pg.id] = pg
            while len(self._games) > self._max:
                self._games.popitem(last=False)  # the least recently touched game goes
        return pg

    def get(self, game_id) -> PlayedGame:
        if not isinstance(game_id, str):
            raise UnknownGameError(f"game id must be a string, got {game_id!r}")
        with self._lock:
            pg = self._games.get(game_id)
            if pg is None:
                raise UnknownGameError(f"no game {game_id!r} in play; start one with POST /api/games")
            self._games.move_to_end(game_id)
            return pg

    def act(self, pg: PlayedGame, kind, x, y, *, file: bool = True, wait: bool = True) -> dict:
        """Apply one action; a finished game is filed before this returns (unless `file` is False:
        then the caller must call `file(pg)` before it answers). Raises, changing nothing, on an
        unknown kind, a cell off the board, a finished game, or (with `wait` False) a game that
        another thread is still busy with."""
        if kind not in ACTIONS:
            raise IllegalMoveError(f"unknown action {kind!r}; allowed: {', '.join(ACTIONS)}")
        if not pg.lock.acquire(blocking=wait):
            raise GameBusyError("this game is still busy with its previous action (laying its board); "
                                "try again in a moment")
        try:
            pg.game.act(kind, x, y)
            if file and pg.game.over and pg.record_id is None:
                self._file(pg)
            return self.state(pg)
        finally:
            pg.lock.release()

    def file(self, pg: PlayedGame) -> dict:
        """File a finished game in the store (once) and return its final state."""
        with pg.lock:
            if pg.game.over and pg.record_id is None:
                self._file(pg)
            return self.state(pg)

    def hint(self, pg: PlayedGame) -> dict:
        """The solver's hint from the view alone; the game is marked as played with hints."""
        from ..solver import hint as solver_hint
        with pg.lock:
            if pg.game.over:
                raise IllegalMoveError(f"the game is over ({pg.game.status}); no hints for it")
            h = solver_hint(pg.game.view())
            pg.hints_used += 1
            return {"kind": h.kind, "cells": [[int(x), int(y)] for x, y in h.cells],
                    "probability": None if h.probability is None else float(h.probability),
                    "reason": h.reason, "hints_used": pg.hints_used}

    def _file(self, pg: PlayedGame) -> None:
        g = pg.game
        st = game_stats(g)
        rec = g.record()
        rec.update(mode=pg.mode, level=pg.level, seed=pg.seed, seed_private=pg.seed_private, hints_used=pg.hints_used,
                   played_board=None if g.board is None else g.board.to_dict(), stats=st.as_dict())
        eligible = g.status == WON and pg.hints_used == 0 and pg.level != "custom"
        if eligible:
            best = [b for b in self.store.best_times() if b["level"] == pg.level and b["mode"] == pg.mode]
        pg.record_id = self.store.add({
            "game_id": pg.id, "finished_at": time.time(), "mode": pg.mode, "level": pg.level, "width": g.width,
            "height": g.height, "mines": g.mine_count, "seed": pg.seed, "seed_private": int(pg.seed_private), "marks": int(g.marks),
            "hints": pg.hints_used, "status": g.status, "elapsed": st.time, "timer": g.timer, "bbbv": st.bbbv,
            "bbbv_per_second": st.bbbv_per_second, "ioe": st.ioe, "record": rec})
        pg.new_best = eligible and (not best or st.time < best[0]["elapsed"])

    # --- what a player sees ----------------------------------------------------------------
    def state(self, pg: PlayedGame) -> dict:
        g = pg.game
        out = {"id": pg.id, "mode": pg.mode, "level": pg.level, "width": g.width, "height": g.height,
               "mines": g.mine_count, "marks": g.marks, "status": g.status, "mines_left": g.mines_left,
               "timer": g.timer, "elapsed": round(g.elapsed, 3), "cells": cells_text(g.cell_codes()),
               "hints_used": pg.hints_used}
        if g.over:
            st = game_stats(g)
            out.update(seed=None if pg.seed_private else pg.seed, record_id=pg.record_id, new_best=pg.new_best,
                       eligible=pg.hints_used == 0 and pg.level != "custom",
                       board=None if g.board is None else cells_text(g.board.cell_codes()),
                       stats={"time": round(st.time, 3), "bbbv": st.bbbv, "bbbv_solved": st.bbbv_solved,
                              "bbbv_per_second": round(st.bbbv_per_second, 3), "ioe": round(st.ioe, 3),
                              "clicks": st.clicks})
        return out

    def __len__(self) -> int:
        return len(self._games)


def replay_frames(record: dict) -> list[dict]:
    """A finished game move by move: the cells, counter and clock after each action. The played board
    is fixed from the first click on, so replaying on it reproduces the game for every mode."""
    pb = record.get("played_board")
    acts = record.get("actions", [])
    if pb is None:
        frames = [{"t": 0.0, "action": None, "cells": "#" * (record["width"] * record["height"]),
                   "mines_left": record["mines"], "status": "ready"}]
        return frames + [{"t": a[3], "action": a[:3], "cells": frames[0]["cells"], "mines_left": record["mines"],
                          "status": "ready"} for a in acts]
    board = Board.from_dict(pb)
    game = replay(board, [], marks=record.get("marks", True))
    times = iter([float(a[3]) for a in acts])
    game._clock = lambda: next(times)

    def timer(t):  # the counter as it read right after the action at time t
        if game._started is None:
            return 0
        end = game._ended if game._ended is not None else t
        return min(999, int(end - game._started) + 1)

    frames = [{"t": 0.0, "action": None, "cells": cells_text(game.cell_codes()), "mines_left": game.mines_left,
               "status": game.status, "timer": 0}]
    for kind, x, y, t in acts:
        game.act(kind, x, y)
        frames.append({"t": t, "action": [kind, x, y], "cells": cells_text(game.cell_codes()),
                       "mines_left": game.mines_left, "status": game.status, "timer": timer(t)})
    return frames


__all__ = ["Hub", "PlayedGame", "GameBusyError", "UnknownGameError", "NotFoundError", "replay_frames", "cells_text", "LOST", "WON"]
