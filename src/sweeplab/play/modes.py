"""Generation modes of `sweeplab play`: each names a generator and first-click rule, with its levels.

A mode whose generator is not installed yet shows as unavailable (with the reason) instead of
crashing the server; the default is no guess, and when no guess is unavailable the default is
the safe-first-click uniform mode and `default_note` says so (never a silent fallback).
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field

from .. import generators
from ..errors import InvalidBoardError, SweeplabError
from ..firstclick import FirstClick
from ..presets import PRESETS


@dataclass(frozen=True)
class Mode:
    name: str
    label: str
    generator: str
    first_click: str | None = None  # None: the generator's own default
    levels: dict = field(default_factory=lambda: {k: tuple(v) for k, v in PRESETS.items()})
    min_side: int = 9  # custom limits as WinMine: 9..30 wide (8 on Windows 98), 9..24 high
    session: bool = False  # one continuing generator per player session (WinMine's rand() stream)
    seed_bits: int = 63  # what a seed is: a 64-bit key, Windows 7's time(0), WinMine's 32-bit rand() state
    min_mines: int = 1

    def limits(self) -> dict:
        return {"width": [self.min_side, 30], "height": [self.min_side, 24],
                "mines": [self.min_mines, "(width-1)*(height-1)" + (", at most 999" if self.session else "")]}


MODES: dict[str, Mode] = {m.name: m for m in (
    Mode("noguess", "No guess", "noguess"),
    Mode("win7", "Windows 7", "win7", seed_bits=32, min_mines=10),
    Mode("winxp", "Windows XP", "winxp", session=True, seed_bits=32, min_mines=10),
    Mode("win98", "Windows 98 (8x8 beginner)", "win98",
         levels={"beginner": (8, 8, 10), "intermediate": (16, 16, 40), "expert": (30, 16, 99)}, min_side=8,
         session=True, seed_bits=32, min_mines=10),
    Mode("safe", "Uniform, safe first click", "uniform", "safe"),
)}
PREFERRED_DEFAULT = "noguess"


def availability(name: str) -> str | None:
    """None when the mode can make boards now, else why not."""
    mode = MODES[name]
    try:
        info = generators.lookup(mode.generator)
    except Exception as e:  # a half-built plugin must not take the server down
        return f"not available yet: {e}"
    if mode.first_click is not None and mode.first_click not in info.first_clicks:
        return f"generator {info.name!r} lacks first-click rule {mode.first_click!r}"
    return None


def modes_info() -> dict:
    """The menu: every mode with whether it is available, the default, and why."""
    out = []
    for m in MODES.values():
        why = availability(m.name)
        out.append({"name": m.name, "label": m.label, "available": why is None, "why": why,
                    "levels": {k: list(v) for k, v in m.levels.items()}, "limits": m.limits()})
    default, note = default_mode()
    return {"modes": out, "default": default, "default_note": note}


def default_mode() -> tuple[str, str | None]:
    why = availability(PREFERRED_DEFAULT)
    if why is None:
        return PREFERRED_DEFAULT, None
    return "safe", ("No guess is not available yet, so the default mode is the uniform one with a safe "
                    "first click: its boards may need guessing.")


def slow_first_click(mode_name: str, width: int, height: int, mines: int) -> bool:
    """Whether laying this board at the first click may take long (a no-guess board denser or larger
    than expert: up to seconds), so that it is better done off the server's event loop."""
    return mode_name == "noguess" and (width * height > 480 or mines * 480 > 99 * width * height)


def check_mode(name) -> Mode:
    if not isinstance(name, str) or name not in MODES:
        raise InvalidBoardError(f"unknown mode {name!r}; allowed: {', '.join(MODES)}")
    why = availability(name)
    if why is not None:
        raise InvalidBoardError(f"mode {name!r} is {why}; available: "
                                f"{', '.join(n for n in MODES if availability(n) is None)}")
    return MODES[name]


def check_level(mode: Mode, level, width=None, height=None, mines=None) -> tuple[str, int, int, int]:
    """(level, width, height, mines) for a named level of this mode or a custom one within its limits."""
    if not isinstance(level, str):  # (a list from JSON, say, cannot even be looked up)
        raise InvalidBoardError(f"level must be a name, got {level!r}; allowed: {', '.join(mode.levels)}, custom")
    if level in mode.levels:
        if (width, height, mines) != (None, None, None):
            raise InvalidBoardError(f"level {level!r} has a fixed size; give width, height and mines only with "
                                    "level 'custom'")
        return (level, *mode.levels[level])
    if level != "custom":
        raise InvalidBoardError(f"unknown level {level!r}; allowed: {', '.join(mode.levels)}, custom")
    lo = mode.min_side
    for name, value, hi in (("width", width, 30), ("height", height, 24)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidBoardError(f"a custom level needs an integer {name}, got {value!r}; allowed {lo}..{hi}")
        if not lo <= value <= hi:
            raise InvalidBoardError(f"custom {name} {value} is out of range; allowed {lo}..{hi}")
    room = (width - 1) * (height - 1)
    if mode.session:
        room = min(room, 999)
    low = mode.min_mines
    if isinstance(mines, bool) or not isinstance(mines, int):
        raise InvalidBoardError(f"a custom level needs an integer mine count, got {mines!r}; allowed {low}..{room}")
    if not low <= mines <= room:
        raise InvalidBoardError(f"{mines} mines on {width}x{height}: allowed {low}..{room} ((width-1)*(height-1)"
                                f"{', at most 999' if mode.session else ''}, as in Windows)")
    return "custom", width, height, mines


class Sessions:
    """Per player session state of the session modes (WinMine continues one rand() stream)."""

    def __init__(self, limit: int = 1000):
        self._state: dict[tuple[str, str], object] = {}
        self._lock = threading.Lock()
        self._limit = limit

    def get(self, session: str, mode: str, factory):
        with self._lock:
            key = (session, mode)
            if key not in self._state:
                if len(self._state) >= self._limit:
                    self._state.pop(next(iter(self._state)))
                self._state[key] = factory()
            return self._state[key]


class WinMinePlayer:
    """A player session of a WinMine mode: started from a random 16-bit tick, as the program was,
    every new game continues its one rand() stream (so the cycles players found show up here too)."""

    def __init__(self, version: str, tick: int):
        from ..generators.winmine import WinMineSession
        self.session = WinMineSession(version, tick=tick)
        self._lock = threading.Lock()

    def next_rule(self, width: int, height: int, mines: int) -> tuple[FirstClick, int]:
        from ..generators.winmine import Shift
        with self._lock:
            state = self.session.state
            board = self.session.next_board(width=width, height=height, mines=mines)
        return Shift(board, origin={"version": self.session.version.name, "state": state}), state


def new_session_state(mode: Mode):
    """The continuing generator of a session mode, seeded from the OS like a fresh start of the program."""
    return WinMinePlayer(mode.generator, secrets.randbelow(1 << 16))


def check_seed(mode: Mode, seed) -> int:
    top = 2 ** mode.seed_bits - 1
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= top:
        what = {63: "a seed", 32: "a 32-bit seed (Windows 7's time(0); WinMine's rand() state before the board)"}
        raise InvalidBoardError(f"{what[mode.seed_bits]} must be an integer in 0..{top}, got {seed!r}")
    return seed


def make_rule(mode: Mode, width: int, height: int, mines: int, seed: int | None = None, *,
              session_state=None) -> tuple[FirstClick, int]:
    """The first-click rule for one game of this mode (the board itself may come at the first click),
    and the seed that reproduces it: a given seed, the session's rand() state, or one drawn from the OS."""
    try:
        if seed is None and mode.session and session_state is not None:
            return session_state.next_rule(width, height, mines)
        seed = secrets.randbits(mode.seed_bits) if seed is None else check_seed(mode, seed)
        if mode.session:  # a WinMine seed is the rand() state before the board
            return generators.make(mode.generator, width, height, mines, 0, state=seed), seed
        return generators.make(mode.generator, width, height, mines, seed, first_click=mode.first_click), seed
    except SweeplabError:
        raise
    except Exception as e:  # a generator's own failure is reported, never replaced by another board
        raise InvalidBoardError(f"mode {mode.name!r} could not make a {width}x{height}/{mines} board: {e}") from e
