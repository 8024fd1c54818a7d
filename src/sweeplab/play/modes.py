"""Generation modes of `sweeplab play`: each names a generator and first-click rule, with its levels.

A mode whose generator cannot load shows as unavailable (with the reason) instead of crashing
the server; the default is no guess, and when no guess is unavailable the default is
the safe-first-click uniform mode and `default_note` says so (never a silent fallback).
"""

from __future__ import annotations

import re
import secrets
import threading
from dataclasses import dataclass

from .. import generators
from ..errors import GenerationError, InvalidBoardError, SweeplabError
from ..firstclick import FirstClick
from ..generators import Limits
from ..presets import PRESETS


@dataclass(frozen=True)
class Mode:
    name: str
    label: str
    generator: str
    about: str  # one sentence for the Help
    first_click: str | None = None  # None: the generator's own default
    session: bool = False  # one continuing generator per player session (WinMine's rand() stream)
    seed_bits: int = 63  # what a seed is: a 64-bit key, Windows 7's time(0), WinMine's 32-bit rand() state

    def winmine(self):
        """The WinMine `Version` a session mode emulates (its presets and custom limits), else None."""
        if not self.session:
            return None
        from ..generators.winmine import version
        return version(self.generator)

    @property
    def levels(self) -> dict:
        v = self.winmine()
        return {k: tuple(lv) for k, lv in (v.presets if v is not None else PRESETS).items()}

    @property
    def custom(self) -> Limits:
        """What the Custom dialog allows: the generator's own limits, from the registry."""
        return generators.lookup(self.generator).limits

    def limits(self) -> dict:
        return self.custom.as_dict()


MODES: dict[str, Mode] = {m.name: m for m in (
    Mode("noguess", "No guess", "noguess",
         "Every board can be solved by logic alone from the first click, which always opens an area."),
    Mode("win7", "Windows 7", "win7",
         "Boards exactly as Windows 7 laid them: mines placed at the first click, never around it.",
         seed_bits=32),
    Mode("win7-noguess", "Windows 7, no-guess patch", "win7-noguess",
         "The patched Windows 7 of the documents: up to 500 Windows 7 boards from one seed, the first that "
         "three simple rules open without the mine counter; when none does, the last one, unchecked (said "
         "after the game).", seed_bits=32),
    Mode("winxp", "Windows XP", "winxp",
         "Boards exactly as Windows XP laid them, one rand() stream per session; a mine under the first "
         "click moves to the top-left corner.", session=True, seed_bits=32),
    Mode("win98", "Windows 98 (8x8 beginner)", "win98",
         "As Windows XP, with the 8x8 beginner level and 8-cell custom sides of Windows 98.",
         session=True, seed_bits=32),
    Mode("safe", "Uniform, safe first click", "uniform",
         "Every layout equally likely, laid after the first click so that it is never a mine; may need "
         "guessing.", "safe"),
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
        item = {"name": m.name, "label": m.label, "about": m.about, "available": why is None, "why": why,
                "best_times": "session" if m.session else "best"}
        if why is None:  # the limits come from the generator, so only once it loads
            item.update(levels={k: list(v) for k, v in m.levels.items()}, limits=m.limits())
        out.append(item)
    default, note = default_mode()
    return {"modes": out, "default": default, "default_note": note}


def default_mode() -> tuple[str, str | None]:
    why = availability(PREFERRED_DEFAULT)
    if why is None:
        return PREFERRED_DEFAULT, None
    return "safe", ("No guess is not available yet, so the default mode is the uniform one with a safe "
                    "first click: its boards may need guessing.")


# Set while `sweeplab play` has the game's kernels compiled in the background (its first run after an
# install): a first click then runs them as Python, slower, off the server's event loop.
WARMING = threading.Event()


def dense_no_guess(mode_name: str, width: int, height: int, mines: int) -> bool:
    """A no-guess board denser or larger than expert: seconds of the chain, laid in the board child."""
    return mode_name == "noguess" and (width * height > 480 or mines * 480 > 99 * width * height)


def slow_first_click(mode_name: str, width: int, height: int, mines: int) -> bool:
    """Whether laying this board at the first click may take long (a dense no-guess board; any board
    while the kernels still run as Python), so that it is better done off the server's event loop."""
    return WARMING.is_set() or dense_no_guess(mode_name, width, height, mines)


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
    v = mode.winmine()
    if v is not None:  # the generator's own check, with its own words
        v.check_custom(width, height, mines)
        return "custom", int(width), int(height), int(mines)
    lim = mode.custom
    for name, value, hi in (("width", width, lim.max_width), ("height", height, lim.max_height)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidBoardError(f"a custom level needs an integer {name}, got {value!r}; "
                                    f"allowed {lim.min_side}..{hi}")
        if not lim.min_side <= value <= hi:
            raise InvalidBoardError(f"custom {name} {value} is out of range; allowed {lim.min_side}..{hi}")
    low, room = lim.min_mines, lim.max_mines(width, height)
    if isinstance(mines, bool) or not isinstance(mines, int):
        raise InvalidBoardError(f"a custom level needs an integer mine count, got {mines!r}; allowed {low}..{room}")
    if not low <= mines <= room:
        raise InvalidBoardError(f"{mines} mines on {width}x{height}: {mode.label} allows {low} to {room} mines on "
                                f"this size ({lim.why})")
    return "custom", width, height, mines


class Passed(FirstClick):
    """A rule passed on as it is, for a wrapper to change one thing of it (each method of FirstClick is
    passed on here by name: __getattr__ never sees them, as the base class has them)."""

    def __init__(self, rule: FirstClick):  # (the rule checked its size already)
        self.rule = rule
        self.width, self.height, self.mines, self.topology = rule.width, rule.height, rule.mines, rule.topology
        self.name, self.check_win_on_first = rule.name, rule.check_win_on_first

    def __getattr__(self, name):  # what else the rule offers (its seed, its last generation)
        return getattr(self.__dict__["rule"], name)

    def board_before(self):
        return self.rule.board_before()

    def board_for(self, x, y):
        return self.rule.board_for(x, y)

    def spec(self):
        return self.rule.spec()

    def board_note(self):
        return self.rule.board_note()


class PlayersWords(Passed):
    """A mode's rule, as it is, but for a generator that gives up at the first click (rare within the
    Custom limits): that is told in a player's words, the cell counted from 1, not in the generator's."""

    def __init__(self, rule: FirstClick, label: str):
        super().__init__(rule)
        self.label = label

    def board_for(self, x, y):
        try:
            return self.rule.board_for(x, y)
        except GenerationError:
            raise GenerationError(f"no {self.label} board with {self.mines} mines on {self.width}x{self.height} "
                                  f"could be made around column {x + 1}, row {y + 1}; click another cell, or "
                                  "start a game with fewer mines") from None


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


SEED_TEXT = re.compile(r"[0-9]{1,20}")  # ASCII digits only: "１" is not a seed


def check_seed(mode: Mode, seed) -> int:
    """A seed as the API sends it (a string of decimal digits, so that no JSON reader rounds it) or as
    an int from Python; within the mode's range."""
    top = 2 ** mode.seed_bits - 1
    what = {63: "a seed", 32: "a 32-bit seed (Windows 7's time(0); WinMine's rand() state before the board)"}
    if isinstance(seed, str) and SEED_TEXT.fullmatch(seed):
        value = int(seed)
    elif isinstance(seed, int) and not isinstance(seed, bool):
        value = seed
    else:
        raise InvalidBoardError(f"{what[mode.seed_bits]} must be a string of decimal digits 0..{top}, got {seed!r}")
    if not 0 <= value <= top:
        raise InvalidBoardError(f"{what[mode.seed_bits]} must be in 0..{top}, got {seed!r}")
    return value


def mode_rule(mode: Mode, width: int, height: int, mines: int, seed: int | None = None, *,
              session_state=None) -> tuple[FirstClick, int]:
    """The first-click rule for one game of this mode (the board itself may come at the first click),
    and the seed that reproduces it: a given seed, the session's rand() state, or one drawn from the OS."""
    try:
        if seed is None and mode.session and session_state is not None:
            return session_state.next_rule(width, height, mines)
        seed = secrets.randbits(mode.seed_bits) if seed is None else check_seed(mode, seed)
        if mode.session:  # a WinMine seed is the rand() state before the board
            return generators.make(mode.generator, width, height, mines, 0, state=seed), seed
        rule = generators.make(mode.generator, width, height, mines, seed, first_click=mode.first_click)
        return PlayersWords(rule, mode.label), seed
    except SweeplabError:
        raise
    except Exception as e:  # a generator's own failure is reported, never replaced by another board
        raise InvalidBoardError(f"mode {mode.name!r} could not make a {width}x{height}/{mines} board: {e}") from e
