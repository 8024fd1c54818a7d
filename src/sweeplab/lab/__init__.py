"""The lab: seeded, batched Monte Carlo runs of players, on local processes or a Dask cluster."""

from .intervals import wilson
from .runner import BenchSpec, Counts, append_row, game_seeds, play_games, read_done, run, summary

__all__ = ["BenchSpec", "Counts", "append_row", "game_seeds", "play_games", "read_done", "run", "summary", "wilson"]
