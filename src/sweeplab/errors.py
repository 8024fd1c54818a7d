"""Typed errors: every one is a ValueError that says what was wrong and what is allowed."""


class SweeplabError(ValueError):
    """Base of every error sweeplab raises for bad input."""


class InvalidBoardError(SweeplabError):
    """A size, mine count, topology or layout that no board can have."""


class FormatError(SweeplabError):
    """Text, MBF or JSON that does not parse as what it claims to be."""


class IllegalMoveError(SweeplabError):
    """An action the game cannot take: off the board, or of an unknown kind."""


class GameOverError(IllegalMoveError):
    """An action on a game that has already been won or lost."""


class GenerationError(SweeplabError):
    """A generator that cannot make the board asked for (for example, no certified board within budget)."""
