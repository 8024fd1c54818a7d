"""The server's worker threads, one pool per purpose, so that no kind of work waits behind another's.

anyio's default pool (40 threads) is shared by everything that calls `to_thread.run_sync` without a
limiter: forty slow requests of one kind (analyses, replays, dense boards) would hold every thread
that a new game or the filing of a finished game needs. Each purpose here has its own few threads;
what waits for one holds no thread meanwhile.
"""

from __future__ import annotations

import anyio

SIZES = {
    "games": 16,   # new games, filing a finished game, a move or hint that waits for the database's lock
    "reads": 2,    # positions of records (Python: each holds the GIL), and replays waiting on their child
    "replays": 2,  # uploaded replay files, each waiting on the reading child
    "boards": 2,   # dense no-guess first clicks, each waiting on the board child
}


class Threads:
    """The limiters by purpose (SIZES), made on the server's event loop at their first use: a limiter
    belongs to the loop it was first used on."""

    def __init__(self):
        self._made: dict[str, anyio.CapacityLimiter] = {}

    def __getitem__(self, purpose: str) -> anyio.CapacityLimiter:
        limiter = self._made.get(purpose)
        if limiter is None:
            limiter = self._made[purpose] = anyio.CapacityLimiter(SIZES[purpose])
        return limiter

    async def run(self, purpose: str, fn, *args):
        """`fn(*args)` in a thread of `purpose`'s pool."""
        return await anyio.to_thread.run_sync(fn, *args, limiter=self[purpose])
