"""Board generators found by name, with aliases and metadata: the one registry of generators and of
first-click rules.

A generator is a factory of a first-click rule (see firstclick.py): it may lay the board at
once or at the first click. `make(name, ...)` builds one; `GENERATORS` lists them. Each one
carries the limits of its Custom dialog (`Limits`), which the play modes ask for, and names the
first-click rules it defines (`rules`): `make_rule(rule, ...)` builds a rule through the factory of the
generator that defines it, so each factory is registered once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..board import Board
from ..errors import InvalidBoardError
from ..firstclick import FirstClick, Fixed, Opening, Safe
from ..rng import Seed


@dataclass(frozen=True)
class Limits:
    """What a generator's Custom dialog allows: sides and mines (at most (width-1)*(height-1), at most
    `mines_cap` where the game capped it, and at most `mines_limit(width, height)` for a generator that
    cannot make every count up to that: the no-guess generator past the densities it can certify)."""

    min_side: int
    max_width: int
    max_height: int
    min_mines: int
    mines_cap: int | None = None
    mines_limit: Callable[[int, int], int] | None = None
    why: str = "at most (width−1)×(height−1), as in the classic Custom dialog"  # the top's reason, in plain words

    def max_mines(self, width: int, height: int) -> int:
        top = (width - 1) * (height - 1)
        if self.mines_cap is not None:
            top = min(top, self.mines_cap)
        if self.mines_limit is not None:
            top = min(top, int(self.mines_limit(width, height)))
        return top

    def text(self) -> str:
        if self.mines_limit is not None:
            top = f"up to {self.max_mines(self.max_width, self.max_height)} on {self.max_width}×{self.max_height}"
        else:
            room = "(width−1)×(height−1)"
            top = room if self.mines_cap is None else f"min({self.mines_cap}, {room})"
        return (f"Width {self.min_side}–{self.max_width}, height {self.min_side}–{self.max_height}, "
                f"mines {self.min_mines}–{top}.")

    def table(self) -> list[list[int]]:
        """The most mines of every size the dialog allows: row `height - min_side`, column `width - min_side`
        (what a page needs to show the real limit as the player types, whatever rule gives it)."""
        return [[self.max_mines(w, h) for w in range(self.min_side, self.max_width + 1)]
                for h in range(self.min_side, self.max_height + 1)]

    def as_dict(self) -> dict:
        table = self.table()
        return {"width": [self.min_side, self.max_width], "height": [self.min_side, self.max_height],
                "mines": [self.min_mines, max(map(max, table))], "mines_cap": self.mines_cap,
                "max_mines": table, "why": self.why, "text": self.text()}


CLASSIC = Limits(9, 30, 24, 1)  # the classic Custom dialog's sizes, for generators of no game of their own


@dataclass(frozen=True)
class GeneratorInfo:
    """One generator: `factory(width, height, mines, seed, *, first_click, topology, **options)` makes its
    first-click rule."""

    name: str
    summary: str
    first_clicks: tuple[str, ...]  # the first-click rules it supports; the first is its default
    factory: Callable[..., FirstClick]
    aliases: tuple[str, ...] = field(default=())
    limits: Limits = CLASSIC  # what its Custom dialog allows (the play modes ask here)
    rules: tuple[str, ...] = ()  # the first-click rules it defines: make_rule(rule) builds them with `factory`
    seed_bits: int = 64  # its seed's width where narrower than a 64-bit key (a rand() state, a time(0))


GENERATORS: dict[str, GeneratorInfo] = {}
_ALIASES: dict[str, str] = {}
_RULES: dict[str, GeneratorInfo] = {}  # each first-click rule, by the generator that defines it


def register(info: GeneratorInfo) -> None:
    """Add a generator, and the first-click rules it defines, to the registry."""
    taken = [r for r in info.rules if r in _RULES and _RULES[r].name != info.name]
    if taken or not set(info.rules) <= set(info.first_clicks):
        raise ValueError(f"generator {info.name!r}: rules {info.rules} must be among its first clicks "
                         f"{info.first_clicks} and defined by no other generator (taken: {taken})")
    GENERATORS[info.name] = info
    for a in (info.name, *info.aliases):
        _ALIASES[a] = info.name
    for r in info.rules:
        _RULES[r] = info


def rule_generator(rule: str) -> GeneratorInfo:
    """The generator that defines first-click rule `rule`."""
    _load_all()
    try:
        return _RULES[rule]
    except KeyError:
        raise InvalidBoardError(f"unknown first-click rule {rule!r}; allowed: {', '.join(sorted(_RULES))}") from None


def rule_names() -> list[str]:
    """Every first-click rule, by name."""
    _load_all()
    return sorted(_RULES)


def rule_seed(name: str, key: int) -> int:
    """The seed rule `name` takes for a 64-bit stream key: its low bits where the rule's seed is narrower
    (WinMine's shift takes a 32-bit rand() state, Windows 7 a 32-bit time(0))."""
    return key & ((1 << rule_generator(name).seed_bits) - 1)


def make_rule(name: str, width: int, height: int, mines: int, seed: Seed, topology: str = "bounded",
              **options: Any) -> FirstClick:
    """Build a first-click rule by name: none, safe, opening, shift, win7, noguess, ... (see `rule_names`)."""
    info = rule_generator(name)
    return info.factory(width, height, mines, seed, first_click=name, topology=topology, **options)


UNIFORM_RULES = ("none", "safe", "opening")


def kept_free(name: str, width: int, height: int, mines: int, x: int, y: int, topology: str = "bounded") -> np.ndarray:
    """The cells (flat bool mask) that rule `name` keeps free of mines at a first click on (x, y), for the
    rules that lay every layout with those cells free equally likely: none (no cell kept), safe, opening.
    Other rules (WinMine's shift, Windows 7, noguess) are not uniform over such layouts and raise."""
    rule = make_rule(name, width, height, mines, 0, topology)
    if type(rule) is Fixed:
        return np.zeros(width * height, dtype=np.bool_)
    if isinstance(rule, Safe) and type(rule) in (Safe, Opening):
        return rule.excluded(x, y)
    raise InvalidBoardError(f"first-click rule {name!r} does not lay its boards uniformly over the layouts it "
                            f"allows; allowed: {', '.join(UNIFORM_RULES)}")


def lookup(name: str) -> GeneratorInfo:
    """A generator by its name or an alias (any case)."""
    _load_all()
    try:
        return GENERATORS[_ALIASES[name.lower()]]
    except KeyError:
        names = ", ".join(sorted(_ALIASES))
        raise InvalidBoardError(f"unknown generator {name!r}; allowed: {names}") from None


def make(name: str, width: int, height: int, mines: int, seed: Seed, *, first_click: str | None = None,
         topology: str = "bounded", **options: Any) -> FirstClick:
    """The first-click rule of generator `name` for this size and seed."""
    info = lookup(name)
    rule = first_click or info.first_clicks[0]
    if rule not in info.first_clicks:
        raise InvalidBoardError(f"generator {info.name!r} supports first-click rules "
                                f"{', '.join(info.first_clicks)}; not {rule!r}")
    return info.factory(width, height, mines, seed, first_click=rule, topology=topology, **options)


def _uniform(width: int, height: int, mines: int, seed: Seed, *, first_click: str, topology: str = "bounded",
             board: Board | None = None, **options: Any) -> FirstClick:
    """`none`: the given board, or a uniform board laid from `seed` before any click; `safe`, `opening`: mines
    laid uniformly at the first click."""
    if first_click == "none":
        if board is None:
            from .uniform import uniform_board
            board = uniform_board(width, height, mines, seed, topology=topology)
        return Fixed(board)
    return {"safe": Safe, "opening": Opening}[first_click](width, height, mines, seed, topology, **options)


register(GeneratorInfo("uniform", "every layout equally likely; mines laid after the first click unless 'none'",
                       ("safe", "opening", "none"), _uniform, aliases=("random",), rules=("none", "safe", "opening")))

_LOADED = False


_LOADING = threading.RLock()  # (re-entrant: a plugin may look a generator up while it loads)


def _load_all() -> None:
    """Import the modules that register further generators (kept lazy: they compile kernels). Once,
    and whole before any lookup answers: `sweeplab play` warms up in a thread while it serves, and a
    lookup meanwhile must wait for the plugins, not find them missing."""
    global _LOADED
    if _LOADED:
        return
    with _LOADING:
        if _LOADED:
            return
        import importlib
        try:
            for mod in _PLUGINS:
                importlib.import_module(mod)
        finally:  # a plugin that fails to load fails that lookup, and leaves the others to answer
            _LOADED = True


# Modules that call register() when imported.
_PLUGINS: list[str] = ["sweeplab.generators.winmine", "sweeplab.generators.win7", "sweeplab.generators.win7_noguess",
                     "sweeplab.generators.noguess"]
