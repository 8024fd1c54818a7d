"""Typed errors: every exception sweeplab raises is a `SweeplabError`, a ValueError that says what was wrong
and what is allowed. The CLI prints one as one line on stderr (exit 2); the server answers a 4xx JSON body.

All of them live here, so that `except SweeplabError` catches each one and a reader finds them in one
place; the modules that raise them import them from here.
"""

from __future__ import annotations

__all__ = [
    "AnalysisError", "AutomatonError", "BadRequest", "BodyTooLarge", "ChildBusy", "ChildError", "EvfWriteError",
    "FormatError", "GameBusyError", "GameGoneError", "GameOverError", "GenerationError", "IllegalMoveError",
    "InconsistentPositionError", "InvalidBoardError", "NoMoveError", "NotFoundError", "NotYoursError",
    "OneAtATimeError", "PolicyFileError", "PositionError", "ReplayBusy", "ReplayError", "RLConfigError",
    "SearchTooLargeError", "ServerBusyError", "StoreBusyError", "StoreError", "StoreFullError", "SweeplabError",
    "TooComplexError", "TooManyGamesError", "UnknownGameError",
]


class SweeplabError(ValueError):
    """Base of every error sweeplab raises on purpose: bad input, or a request past its stated limits."""


# --- boards, games and their files -----------------------------------------------------------------

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


# --- solving ---------------------------------------------------------------------------------------

class InconsistentPositionError(SweeplabError):
    """A position no mine layout can produce (numbers that contradict each other or the mine total)."""


class TooComplexError(SweeplabError):
    """A position whose exact count is past sweeplab's stated bound (numbers packed densely in 2-D)."""


class SearchTooLargeError(SweeplabError):
    """A board whose exact search goes past the layout or state cap."""


class AutomatonError(SweeplabError):
    """Parameters the automaton cannot run with (density, size, starting cells)."""


class RLConfigError(SweeplabError):
    """An environment argument no environment can take (a size, a rule, a reward, an option)."""


# --- replay files --------------------------------------------------------------------------------

class ReplayError(FormatError):
    """A file that is not a readable replay: unknown format, truncated, or not what its name says."""


class EvfWriteError(FormatError):
    """A game or event list that EVF cannot hold (size, times out of range)."""


class ChildError(SweeplabError):
    """The reading child could not answer: it died (the reason it left, if any) or ran past its deadline
    (what a crafted or malformed file does to the reader it is shown to)."""


class ChildBusy(ChildError):
    """The child is answering another request (asked not to wait)."""


# --- the play server ---------------------------------------------------------------------------------

class PositionError(FormatError):
    """A position the analysis board cannot read: its text, code or cells say what is wrong."""


class AnalysisError(SweeplabError):
    """A request the analysis API does not take."""


class BadRequest(SweeplabError):
    """A request that is not what the API takes."""


class BodyTooLarge(BadRequest):
    """A request body over the route's limit (refused by its Content-Length, or once that much has come)."""


class ReplayBusy(SweeplabError):
    """Another replay file is being read (one at a time)."""


class ServerBusyError(SweeplabError):
    """Heavy work refused because as much of it waits as the server takes (503: try again later)."""


class OneAtATimeError(SweeplabError):
    """Heavy work refused because this client already has one waiting or running (429)."""


class GameBusyError(SweeplabError):
    """An action on a game that is still busy with the previous one (laying a large no-guess board)."""


class NotYoursError(SweeplabError):
    """A change to a game asked by a client that did not start it (another session)."""


class UnknownGameError(SweeplabError):
    """A game id the server does not hold (never made, or long finished and dropped)."""


class GameGoneError(SweeplabError):
    """A game kept in play that could not be made again after a restart: filed as abandoned."""

    def __init__(self, message: str, record_id: int) -> None:
        super().__init__(message)
        self.record_id = record_id


class NotFoundError(SweeplabError):
    """A record or game id that does not exist."""


class StoreError(SweeplabError):
    """A write the game database did not take (locked by another program, read-only, disk full,
    damaged): nothing of it was kept, and the game in memory is as the database has it."""


class StoreBusyError(StoreError):
    """Another program held the database's write lock for longer than the store waits."""


class StoreFullError(StoreError):
    """The server keeps as many games in play as it may."""


class NoMoveError(SweeplabError):
    """The practice solver has no move to make: nothing is wrong with the request. `status`: 503 when
    the analysis ran out of time, 409 when the position leaves it no cell to open."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


class TooManyGamesError(SweeplabError):
    """A client with as many games in play as one client may have, none of them free to drop."""


class PolicyFileError(SweeplabError):
    """A weights file that is not a policy network this version can run (solver/policy_net.py)."""
