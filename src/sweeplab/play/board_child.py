"""Dense no-guess boards laid at the first click in a child process, with a deadline and a memory limit.

A no-guess board denser or larger than expert can take the generator seconds (tens of seconds near the
Custom limits), all of it holding the interpreter: in a server thread it would stall every other
player's answers. In a child (replays/child.py's Child) it has an interpreter of its own, is killed at
the deadline, and the click is answered 503 with what to do instead. Rules are deterministic, so the
board the child lays from the game's seed is the board the server would have laid (and lays again
when it resumes the game after a restart).

Request: (mode, width, height, mines, seed, x, y). Answer: {"board": Board.to_dict(), "check": bool},
{"none": True} when the click lays nothing, {"error": message} when the generator gives up, or
{"bug": message}. `python -m sweeplab.play.board_child --memory BYTES` is the child's side.
"""

from __future__ import annotations

import atexit
import sys

from ..errors import ChildBusy, ChildError, GenerationError, ServerBusyError
from ..replays.child import Child

SECONDS = 20.0  # the most a first click may take to lay its board
MEMORY = 2 * 2 ** 30  # the child's address space (the interpreter and its kernels take ~0.8 GB)
START_TIMEOUT = 900.0  # its first start may compile the kernels


class Layer:
    """The server's board child: started at the first dense first click (its start is not the click's
    time), one board at a time; a second click meanwhile is answered 503 at once."""

    def __init__(self, seconds: float = SECONDS):
        self.seconds = seconds
        self._child = Child([sys.executable, "-m", "sweeplab.play.board_child"], memory=MEMORY, group=True,
                            startup=START_TIMEOUT)
        self.closed = False
        atexit.register(self.close)

    def lay(self, mode: str, width: int, height: int, mines: int, seed: int, x: int, y: int):
        """The board a first click at (x, y) lays (Board, check_win), None when it lays nothing; raises
        ServerBusyError when another board is being laid or the deadline passes, GenerationError when
        the generator gives up."""
        from ..board import Board
        if self.closed:
            raise ServerBusyError("the server is stopping; no board is laid now")
        try:
            answer = self._child.ask((mode, width, height, mines, seed, x, y), timeout=self.seconds, wait=False)
        except ChildBusy:
            raise ServerBusyError("another dense no-guess board is being laid; click again in a moment") from None
        except ChildError as e:
            if self.closed:
                raise ServerBusyError("the server is stopping; no board is laid now") from None
            raise ServerBusyError(f"laying this no-guess board stopped ({e}); the most a first click may take is "
                                  f"{self.seconds:g} s: click again to try once more, or start a game with fewer "
                                  "mines") from None
        if "bug" in answer:
            raise RuntimeError(answer["bug"])
        if "error" in answer:
            raise GenerationError(answer["error"])
        if "none" in answer:
            return None
        return Board.from_dict(answer["board"]), answer["check"]

    def close(self) -> None:
        """Stop the child, and start no other (the server is stopping)."""
        self.closed = True
        self._child.stop()
        self._child.close()


def handle(request) -> dict:
    from . import modes as M
    mode, width, height, mines, seed, x, y = request
    try:
        rule, _ = M.mode_rule(M.MODES[mode], width, height, mines, seed)
        placed = rule.board_for(x, y)
    except GenerationError as e:
        return {"error": str(e)}
    except Exception as e:  # noqa: BLE001  (a bug: the server answers 500, as for any other)
        return {"bug": f"{type(e).__name__}: {e}"}
    if placed is None:
        return {"none": True}
    return {"board": placed[0].to_dict(), "check": bool(placed[1])}


def warm() -> None:
    """Load every kernel a dense board uses (numba's cache, or a compile on the first run after an
    install) before the first click's deadline starts: rejection's play, and the chain from each of
    its starts (a board the rule leaves to rejection compiles none of the chain's kernels)."""
    from ..generators import noguess
    handle(("noguess", 9, 9, 10, 1, 4, 4))
    for start in noguess.STARTS:
        noguess.generate(9, 9, 30, 4, 4, 1, method="chain", chain_start=start, steps=16, allow_uncertified=True)


def main() -> None:
    from .._tiers import compile_here
    from ..replays.child import limit_memory, serve
    limit_memory(sys.argv)
    # A dense board's chain is thousands of plays, minutes as Python: on the first run after an install
    # the child compiles its kernels before it says it is ready (_tiers.py).
    compile_here()
    warm()
    serve(handle)


if __name__ == "__main__":
    main()
