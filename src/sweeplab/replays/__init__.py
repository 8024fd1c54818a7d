"""Replays: the community's recordings (AVF, RMV, MVF, EVF) read, their clicks judged exactly, and EVF written.

>>> from sweeplab import Board, Game
>>> from sweeplab.replays import game_to_evf, judge, read_replay
>>> game = Game(Board("*.\\n..\\n..\\n.."), marks=False)
>>> game.open(0, 3)
6
>>> game.open(1, 0)  # one mine between (0, 0) and (1, 0), nothing to tell them apart: a forced 50/50
1
>>> replay = read_replay(game_to_evf(game), name="game.evf")  # written as EVF, read back (ms-toollib parses)
>>> replay.board == game.board, replay.won, replay.check()  # check(): where ms-toollib's figures differ
(True, True, [])
>>> [(str(c.risk), c.fifty_fifty) for c in judge(replay.game).guesses]
[('1/2', True)]
"""

from ..errors import ReplayError
from .evf import game_to_evf, record_to_evf, write_evf
from .judge import Click, Judgement, judge
from .read import Replay, read_many, read_replay

__all__ = ["Click", "Judgement", "Replay", "ReplayError", "game_to_evf", "judge", "read_many", "read_replay",
           "record_to_evf", "write_evf"]
