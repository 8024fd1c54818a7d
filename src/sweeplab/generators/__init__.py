"""Board generators found by name, with aliases and metadata.

A generator is a factory of a first-click rule (see firstclick.py): it may lay the board at
once or at the first click. `make(name, ...)` builds one; `GENERATORS` lists them. Each one
carries the limits of its Custom dialog (`Limits`), which the play modes ask for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import InvalidBoardError
from ..firstclick import FirstClick, make_rule


@dataclass(frozen=True)
class Limits:
    """What a generator's Custom dialog allows: sides and mines (at most (width-1)*(height-1), and
    at most `mines_cap` where the game capped it)."""

    min_side: int
    max_width: int
    max_height: int
    min_mines: int
    mines_cap: int | None = None

    def max_mines(self, width: int, height: int) -> int:
        room = (width - 1) * (height - 1)
        return room if self.mines_cap is None else min(self.mines_cap, room)

    def text(self) -> str:
        room = "(width−1)×(height−1)"
        top = room if self.mines_cap is None else f"min({self.mines_cap}, {room})"
        return (f"Width {self.min_side}–{self.max_width}, height {self.min_side}–{self.max_height}, "
                f"mines {self.min_mines}–{top}.")

    def as_dict(self) -> dict:
        return {"width": [self.min_side, self.max_width], "height": [self.min_side, self.max_height],
                "mines": [self.min_mines, "(width-1)*(height-1)"], "mines_cap": self.mines_cap, "text": self.text()}


CLASSIC = Limits(9, 30, 24, 1)  # the classic Custom dialog's sizes, for generators of no game of their own


@dataclass(frozen=True)
class GeneratorInfo:
    name: str
    summary: str
    first_clicks: tuple[str, ...]  # the first-click rules it supports; the first is its default
    factory: Callable[..., FirstClick]
    aliases: tuple[str, ...] = field(default=())
    limits: Limits = CLASSIC  # what its Custom dialog allows (the play modes ask here)


GENERATORS: dict[str, GeneratorInfo] = {}
_ALIASES: dict[str, str] = {}


def register(info: GeneratorInfo) -> None:
    GENERATORS[info.name] = info
    for a in (info.name, *info.aliases):
        _ALIASES[a] = info.name


def lookup(name: str) -> GeneratorInfo:
    _load_all()
    try:
        return GENERATORS[_ALIASES[name.lower()]]
    except KeyError:
        names = ", ".join(sorted(_ALIASES))
        raise InvalidBoardError(f"unknown generator {name!r}; allowed: {names}") from None


def make(name: str, width: int, height: int, mines: int, seed, *, first_click: str | None = None,
         topology: str = "bounded", **options) -> FirstClick:
    """The first-click rule of generator `name` for this size and seed."""
    info = lookup(name)
    rule = first_click or info.first_clicks[0]
    if rule not in info.first_clicks:
        raise InvalidBoardError(f"generator {info.name!r} supports first-click rules "
                                f"{', '.join(info.first_clicks)}; not {rule!r}")
    return info.factory(width, height, mines, seed, first_click=rule, topology=topology, **options)


def _uniform(width, height, mines, seed, *, first_click, topology="bounded"):
    return make_rule(first_click, width, height, mines, seed, topology)


register(GeneratorInfo("uniform", "every layout equally likely; mines laid after the first click unless 'none'",
                       ("safe", "opening", "none"), _uniform, aliases=("random",)))

_LOADED = False


def _load_all() -> None:
    """Import the modules that register further generators (kept lazy: they compile kernels)."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import importlib
    for mod in _PLUGINS:
        importlib.import_module(mod)


# Modules that call register() when imported.
_PLUGINS: list[str] = ["sweeplab.generators.winmine", "sweeplab.generators.win7", "sweeplab.generators.win7_noguess",
                     "sweeplab.generators.noguess"]
