"""Board generators found by name, with aliases and metadata.

A generator is a factory of a first-click rule (see firstclick.py): it may lay the board at
once or at the first click. `make(name, ...)` builds one; `GENERATORS` lists them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..errors import InvalidBoardError
from ..firstclick import FirstClick, make_rule


@dataclass(frozen=True)
class GeneratorInfo:
    name: str
    summary: str
    first_clicks: tuple[str, ...]  # the first-click rules it supports; the first is its default
    factory: Callable[..., FirstClick]
    aliases: tuple[str, ...] = field(default=())


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


# Modules that call register() when imported; later issues add theirs here.
_PLUGINS: list[str] = ["sweeplab.generators.winmine", "sweeplab.generators.win7", "sweeplab.generators.noguess"]
