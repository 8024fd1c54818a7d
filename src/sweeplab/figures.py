"""Figures: several boards, or snapshots of the automaton, side by side with titles and coloured
outlines; as SVG drawn by `svg.draw_cells` (the one renderer), or as PNG with matplotlib.

A panel holds svg cell codes, so anything that can say what each cell shows can be drawn: a
whole board (`Panel.of_board`, mines shown) or the automaton's state at a step
(`evolution_panels`: closed cells raised, marked cells flagged, open cells flat).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .board import Board
from .errors import SweeplabError
from .extras import install_hint
from .svg import FLAG_CELL, HIDDEN_CELL, MINE_CELL, NUMBER_COLOURS, QUESTION_CELL, draw_cells

# The automaton's cell statuses (sweeplab.automaton: closed, open, marked) as svg cell codes.
_AUTOMATON_CODES = np.array([HIDDEN_CELL, 0, FLAG_CELL], dtype=np.int16)


@dataclass
class Panel:
    """One picture of a figure: a title, a board (or svg cell codes), and cells to outline, by colour."""

    title: str
    board: Board | np.ndarray
    marks: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def codes(self) -> np.ndarray:
        """The svg cell codes drawn: a board's every cell with its mines, or the codes given."""
        return self.board.cell_codes() if isinstance(self.board, Board) else np.asarray(self.board)


def evolution_panels(evo, steps: list[int], *, game: int = 0) -> list[Panel]:
    """One panel per step of an automaton evolution (`sweeplab.automaton.Evolution`), titled "t = k"."""
    return [Panel(f"t = {step}", _AUTOMATON_CODES[evo.at(game, step)]) for step in steps]


def panels_svg(panels: list[Panel], *, cell: int = 16, columns: int = 4, min_width: int = 220) -> str:
    """One SVG of the panels in rows of `columns`, each titled and drawn by svg.draw_cells."""
    if not panels:
        return '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'
    codes = [p.codes for p in panels]
    pw = max(max(c.shape[1] for c in codes) * cell + 16, min_width)  # room for the titles
    ph = max(c.shape[0] for c in codes) * cell + 30
    cols = min(columns, len(panels))
    rows = (len(panels) + cols - 1) // cols
    W, H = cols * pw, rows * ph
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           f'font-family="Tahoma, Verdana, sans-serif">', f'<rect width="{W}" height="{H}" fill="#ffffff"/>']
    for k, (p, c) in enumerate(zip(panels, codes)):
        x0, y0 = (k % cols) * pw + 8, (k // cols) * ph + 22
        out.append(f'<text x="{x0}" y="{y0 - 7}" font-size="11">{_esc(p.title)}</text>')
        out.append(f'<g transform="translate({x0},{y0})">{draw_cells(c, cell=cell, outlines=p.marks)}</g>')
    out.append("</svg>")
    return "".join(out)


def panels_png(panels: list[Panel], path: str, *, columns: int = 4) -> None:
    """The same figure as panels_svg, drawn with matplotlib (sweeplab[plot])."""
    plt = pyplot()
    cols = min(columns, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 3.0 * rows), squeeze=False)
    for ax in axes.ravel():
        ax.axis("off")
    for k, p in enumerate(panels):
        ax = axes[k // cols][k % cols]
        codes = p.codes
        h, w = codes.shape
        ax.set_xlim(0, w)
        ax.set_ylim(h, 0)
        ax.set_aspect("equal")
        ax.add_patch(plt.Rectangle((0, 0), w, h, color="#c0c0c0"))
        for y in range(h):
            for x in range(w):
                c = int(codes[y, x])
                if c == MINE_CELL:
                    ax.add_patch(plt.Circle((x + 0.5, y + 0.5), 0.28, color="black"))
                elif 1 <= c <= 8:
                    ax.text(x + 0.5, y + 0.55, str(c), ha="center", va="center", fontsize=6,
                            color=NUMBER_COLOURS[c], weight="bold")
                elif c in (HIDDEN_CELL, QUESTION_CELL):
                    ax.add_patch(plt.Rectangle((x, y), 1, 1, color="#8a8a8a"))
                elif c == FLAG_CELL:
                    ax.add_patch(plt.Rectangle((x, y), 1, 1, color="#000000"))
        for colour, mask in p.marks.items():
            ys, xs = np.nonzero(mask)
            for y, x in zip(ys.tolist(), xs.tolist()):
                ax.add_patch(plt.Rectangle((x + 0.05, y + 0.05), 0.9, 0.9, fill=False, edgecolor=colour, lw=1.5))
        ax.set_title(p.title, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def evolution_svg(evo, steps: list[int], *, cell: int = 6, columns: int = 4) -> str:
    """Snapshots of game 0 of an automaton evolution side by side, as in the paper's figure."""
    return panels_svg(evolution_panels(evo, steps), cell=cell, columns=columns, min_width=60)


def evolution_png(evo, steps: list[int], path: str, *, columns: int = 4) -> None:
    panels_png(evolution_panels(evo, steps), path, columns=columns)


def pyplot():
    """matplotlib's pyplot on the file-only Agg backend, or a SweeplabError saying what to install."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SweeplabError(f"drawing plots needs matplotlib; install it with: {install_hint('plot')}") from None
    return plt


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
