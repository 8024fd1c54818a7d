"""The child process in which the web server reads an uploaded replay file (replays/child.py's protocol):
`python -m sweeplab.play._replay_child --memory BYTES`.

Reading a file means ms-toollib's parse (in a child of this one), sweeplab's engine playing it again,
every click judged by the solver, and the frames of the viewer: seconds of Python for a large board,
which in the server's own process would hold the interpreter against every other player's request.
Here it has its own interpreter, its own memory limit and the server's deadline.

Request: (name, data: bytes, seconds). Answer: {"json": bytes} (the viewer's JSON, at most MAX_ANSWER
bytes), {"error": message} for a file that cannot be shown, or {"bug": message} for anything else.
Request ("frames", record id, width, height, the record's JSON text): {"json": bytes}, the record's replay
as GET /api/records/{id}/replay answers it (the server counted its size before asking).
"""

import json
import sys

from ..replays.child import limit_memory, serve

MEMORY = limit_memory(sys.argv)


def handle(request) -> dict:
    from ..errors import SweeplabError
    from .replays import MAX_ANSWER, frames_answer, read_view
    if request[0] == "frames":
        try:
            return {"json": frames_answer(*request[1:])}
        except Exception as e:  # noqa: BLE001  (a bug: the server answers 500, as for any other)
            return {"bug": f"{type(e).__name__}: {e}"}
    name, data, seconds = request
    try:
        raw = json.dumps(read_view(data, name, timeout=seconds), separators=(",", ":")).encode()
    except SweeplabError as e:
        return {"error": str(e)}
    except MemoryError:
        return {"error": f"{name}: reading it needed more memory than its limit"
                         + (f" of {MEMORY / 2 ** 30:g} GiB" if MEMORY else "")}
    except Exception as e:  # noqa: BLE001  (a bug: the server answers 500, as for any other)
        return {"bug": f"{type(e).__name__}: {e}"}
    if len(raw) > MAX_ANSWER:
        return {"error": f"{name}: its viewer would take {len(raw) / 2 ** 20:.0f} MB; at most "
                         f"{MAX_ANSWER / 2 ** 20:.0f} MB"}
    return {"json": raw}


def warm_up() -> None:
    """Read one small game, so that the imports, the kernels and the ms-toollib child are ready before
    the first file's deadline starts."""
    from ..board import Board
    from ..game import Game
    from ..replays.evf import game_to_evf
    game = Game(Board("*..\n...\n..."))
    game.open(2, 2)
    handle(("warm-up.evf", game_to_evf(game), 60.0))


if __name__ == "__main__":
    warm_up()
    serve(handle)
