"""The lab: seeded, batched Monte Carlo runs of players, on local processes or a Dask cluster."""

from .runner import BenchSpec, Counts, append_row, game_seeds, play_games, read_done, run, summary
from .intervals import wilson

__all__ = ["BenchSpec", "Counts", "append_row", "game_seeds", "play_games", "read_done", "run", "summary", "wilson"]
