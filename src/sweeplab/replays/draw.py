"""Pictures of a judged game, drawn by the one SVG renderer (svg.py): a position with its probabilities."""

from __future__ import annotations

import numpy as np

from ..errors import SweeplabError
from ..game import Game
from ..solver import analyse
from .judge import Judgement


def position_before(game: Game, index: int) -> Game:
    """The game as it stood before its action `index` (played again on its board)."""
    g = Game(game.board, marks=game.marks, clock=lambda: 0.0)
    for a in game.log[:index]:
        g.act(a.kind, a.x, a.y)
    return g


def judged_svg(game: Game, judgement: Judgement, index: int | None = None, *, cell: int = 24) -> str:
    """The View before a judged click (by default the riskiest guess), every hidden cell tinted by its
    exact mine probability, the clicked cell outlined."""
    clicks = {c.index: c for c in judgement.clicks}
    if index is None:
        guesses = judgement.guesses
        if not guesses:
            raise SweeplabError("this game has no guess to draw; choose a judged click with --click N")
        index = max(guesses, key=lambda c: (c.risk, c.index)).index  # the riskiest; the latest of equals
    if index not in clicks:
        raise SweeplabError(f"action {index} is not a judged click; judged clicks: "
                            f"{', '.join(str(i) for i in sorted(clicks)[:20])}{' ...' if len(clicks) > 20 else ''}")
    view = position_before(game, index).view()
    a = analyse(view)
    highlight = np.zeros((view.height, view.width), dtype=bool)
    highlight[clicks[index].y, clicks[index].x] = True
    return view.to_svg(cell=cell, probabilities=a.probability, highlight=highlight)
