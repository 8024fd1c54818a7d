"""A direct raster of the classic look, for `render_mode="rgb_array"`: one tile per cell code.

Takes the same cell codes as the SVG renderer (svg.py: 0..8 numbers, then hidden, flag, "?",
mine, exploded mine, wrong flag) and its number colours; tiles are drawn once per size and
cached, so a frame is one gather.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..svg import EXPLODED_CELL, FLAG_CELL, MINE_CELL, NUMBER_COLOURS, QUESTION_CELL, WRONG_FLAG_CELL

GREY, LIGHT, DARK = (192, 192, 192), (255, 255, 255), (128, 128, 128)

# 3x5 glyphs of the digits 1..8 and "?", one string of 15 bits per glyph, row by row.
GLYPHS = {1: "010110010010111", 2: "111001111100111", 3: "111001111001111", 4: "101101111001001",
          5: "111100111001111", 6: "111100111101111", 7: "111001001001001", 8: "111101111101111",
          "?": "111001011000010"}


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    r, g, b = (int(hex_colour[k:k + 2], 16) for k in (1, 3, 5))
    return r, g, b


def _glyph(tile: np.ndarray, bits: str, colour) -> None:
    c = tile.shape[0]
    scale = max(1, c // 8)
    gw, gh = 3 * scale, 5 * scale
    x0, y0 = (c - gw) // 2, (c - gh) // 2
    g = np.array([int(b) for b in bits], dtype=bool).reshape(5, 3)
    g = np.kron(g, np.ones((scale, scale), dtype=bool))
    tile[y0:y0 + gh, x0:x0 + gw][g] = colour


def _disc(tile: np.ndarray, colour, radius: float) -> None:
    c = tile.shape[0]
    yy, xx = np.mgrid[0:c, 0:c] + 0.5
    tile[(xx - c / 2) ** 2 + (yy - c / 2) ** 2 <= radius ** 2] = colour


@lru_cache(maxsize=8)
def tiles(cell: int) -> np.ndarray:
    """(15, cell, cell, 3) uint8: the tile of each cell code (-6..8; a negative code indexes from
    the end, as numpy does)."""
    out = np.zeros((9 - WRONG_FLAG_CELL, cell, cell, 3), dtype=np.uint8)
    b = max(1, cell // 8)
    for code in range(WRONG_FLAG_CELL, 9):
        t = out[code]
        t[:] = GREY
        if code < 0 and code not in (MINE_CELL, EXPLODED_CELL):  # raised
            t[:b, :] = LIGHT
            t[:, :b] = LIGHT
            t[-b:, :] = DARK
            t[:, -b:] = DARK
        else:  # sunken: a one-pixel grey line on the top and left
            if code == EXPLODED_CELL:
                t[:] = (255, 0, 0)
            t[0, :] = DARK
            t[:, 0] = DARK
        if 1 <= code <= 8:
            _glyph(t, GLYPHS[code], _rgb(NUMBER_COLOURS[code]))
        elif code in (MINE_CELL, EXPLODED_CELL, WRONG_FLAG_CELL):
            _disc(t, (0, 0, 0), cell * 0.28)
            if code == WRONG_FLAG_CELL:
                d = np.arange(b * 2, cell - b * 2)
                t[d, d] = (255, 0, 0)
                t[d, cell - 1 - d] = (255, 0, 0)
        elif code == FLAG_CELL:
            pole = cell // 2
            t[cell // 5:cell * 3 // 4, pole:pole + max(1, cell // 12)] = (0, 0, 0)
            for k in range(cell // 5, cell // 2):  # a red pennant left of the pole
                half = min(k - cell // 5, cell // 2 - k)
                t[k, max(0, pole - 2 * half):pole] = (255, 0, 0)
        elif code == QUESTION_CELL:
            _glyph(t, GLYPHS["?"], (0, 0, 0))
    out.setflags(write=False)
    return out


def draw(codes: np.ndarray, cell: int = 16) -> np.ndarray:
    """An (h*cell, w*cell, 3) uint8 image of a (h, w) array of cell codes."""
    h, w = codes.shape
    img = tiles(cell)[codes]  # (h, w, cell, cell, 3)
    return np.ascontiguousarray(img.transpose(0, 2, 1, 3, 4)).reshape(h * cell, w * cell, 3)
