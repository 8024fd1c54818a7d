"""sweeplab: Minesweeper, exactly. Engine, formats, statistics, generators, solvers and play."""

from .board import Board, load_board, parse_board
from .errors import FormatError, GameOverError, GenerationError, IllegalMoveError, InvalidBoardError, SweeplabError
from .firstclick import FirstClick
from .game import Action, Game, replay
from .generators import make_rule
from .generators.uniform import uniform_board
from .presets import PRESETS, preset
from .view import View

__all__ = [
    "Action", "Board", "FirstClick", "FormatError", "Game", "GameOverError", "GenerationError", "IllegalMoveError",
    "InvalidBoardError", "PRESETS", "SweeplabError", "View", "load_board", "make_rule", "parse_board", "preset",
    "replay", "uniform_board",
]
__version__ = "0.1.0"
