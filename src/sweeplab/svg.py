"""One SVG renderer for boards, views, games and solver output (notebooks, docs, figures, the web).

Cells are drawn from a code per cell: 0..8 an open number, below 0 the constants below. A View's
cells are such codes as they stand (view.HIDDEN is HIDDEN_CELL, view.FLAG is FLAG_CELL); the rest
show what only a finished game or a board shows. The play JSON writes the same codes as one
character each (play/games.py: "#", "F", "?", "*", "X", "W"), as the View's text does.
"""

from __future__ import annotations

import numpy as np

HIDDEN_CELL, FLAG_CELL, QUESTION_CELL, MINE_CELL, EXPLODED_CELL, WRONG_FLAG_CELL = -1, -2, -3, -4, -5, -6

# The classic number colours: 1 blue, 2 green, 3 red, 4 navy, 5 maroon, 6 teal, 7 black, 8 grey.
NUMBER_COLOURS = ("", "#0000ff", "#008000", "#ff0000", "#000080", "#800000", "#008080", "#000000", "#808080")


def draw_cells(codes: np.ndarray, *, cell: int = 20, probabilities: np.ndarray | None = None,
               highlight: np.ndarray | None = None, outlines: dict[str, np.ndarray] | None = None) -> str:
    """SVG text for a (height, width) array of cell codes.

    `probabilities` (same shape, NaN where not wanted) tints hidden cells from green (safe)
    to red (mine) and prints the percentage; `highlight` (bool, same shape) outlines cells;
    `outlines` maps an SVG colour to the cells (bool mask) to outline in it.
    """
    height, width = codes.shape
    w, h = width * cell, height * cell
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
           f'font-family="Tahoma, Verdana, sans-serif" font-weight="bold">',
           f'<rect width="{w}" height="{h}" fill="#c0c0c0"/>']
    fs = cell * 0.7
    for y in range(height):
        for x in range(width):
            c = int(codes[y, x])
            px, py = x * cell, y * cell
            cx, cy = px + cell / 2, py + cell / 2
            if c < 0 and c not in (MINE_CELL, EXPLODED_CELL):  # raised
                out.append(_raised(px, py, cell))
            else:
                fill = "#ff0000" if c == EXPLODED_CELL else "#c0c0c0"
                out.append(f'<rect x="{px}" y="{py}" width="{cell}" height="{cell}" fill="{fill}" '
                           f'stroke="#808080" stroke-width="1"/>')
            if 1 <= c <= 8:
                out.append(f'<text x="{cx}" y="{cy + fs * 0.36:.1f}" font-size="{fs:.1f}" text-anchor="middle" '
                           f'fill="{NUMBER_COLOURS[c]}">{c}</text>')
            elif c in (MINE_CELL, EXPLODED_CELL, WRONG_FLAG_CELL):
                out.append(f'<circle cx="{cx}" cy="{cy}" r="{cell * 0.28:.1f}" fill="#000"/>')
                if c == WRONG_FLAG_CELL:
                    d = cell * 0.35
                    out.append(f'<path d="M{cx - d},{cy - d}L{cx + d},{cy + d}M{cx + d},{cy - d}L{cx - d},{cy + d}" '
                               f'stroke="#ff0000" stroke-width="2"/>')
            elif c == FLAG_CELL:
                out.append(f'<path d="M{cx - cell * 0.05:.1f},{py + cell * 0.2:.1f}L{cx - cell * 0.05:.1f},'
                           f'{py + cell * 0.55:.1f}L{px + cell * 0.25:.1f},{py + cell * 0.375:.1f}Z" fill="#ff0000"/>'
                           f'<rect x="{cx - cell * 0.05:.1f}" y="{py + cell * 0.2:.1f}" width="{cell * 0.08:.1f}" '
                           f'height="{cell * 0.55:.1f}" fill="#000"/>')
            elif c == QUESTION_CELL:
                out.append(f'<text x="{cx}" y="{cy + fs * 0.36:.1f}" font-size="{fs:.1f}" text-anchor="middle">?</text>')
            if probabilities is not None and c in (HIDDEN_CELL, QUESTION_CELL):
                p = float(probabilities[y, x])
                if not np.isnan(p):
                    r, g = int(255 * p), int(255 * (1 - p))
                    out.append(f'<rect x="{px + 2}" y="{py + 2}" width="{cell - 4}" height="{cell - 4}" '
                               f'fill="rgb({r},{g},0)" fill-opacity="0.45"/>'
                               f'<text x="{cx}" y="{cy + cell * 0.12:.1f}" font-size="{cell * 0.32:.1f}" '
                               f'text-anchor="middle" font-weight="normal">{round(100 * p)}</text>')
            if highlight is not None and highlight[y, x]:
                out.append(f'<rect x="{px + 1}" y="{py + 1}" width="{cell - 2}" height="{cell - 2}" fill="none" '
                           f'stroke="#ff00ff" stroke-width="2"/>')
    for colour, mask in (outlines or {}).items():
        ys, xs = np.nonzero(mask)
        for y, x in zip(ys.tolist(), xs.tolist()):
            out.append(f'<rect x="{x * cell + 1}" y="{y * cell + 1}" width="{cell - 2}" height="{cell - 2}" '
                       f'fill="none" stroke="{colour}" stroke-width="2"/>')
    out.append("</svg>")
    return "".join(out)


def _raised(px: float, py: float, cell: int) -> str:
    b = max(2, cell // 8)
    return (f'<rect x="{px}" y="{py}" width="{cell}" height="{cell}" fill="#c0c0c0"/>'
            f'<path d="M{px},{py}h{cell}l-{b},{b}h-{cell - 2 * b}v{cell - 2 * b}l-{b},{b}Z" fill="#fff"/>'
            f'<path d="M{px + cell},{py + cell}h-{cell}l{b},-{b}h{cell - 2 * b}v-{cell - 2 * b}l{b},-{b}Z" '
            f'fill="#808080"/>')
