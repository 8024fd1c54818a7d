"""Minesweeper for reinforcement learning: Gymnasium environments on sweeplab's engine (needs sweeplab[rl]).

Importing this module registers the environments:

- `sweeplab/Minesweeper-v0`: any level (keyword arguments width, height, mines or level; beginner
  by default), first-click rule, generator and topology;
- `sweeplab/Beginner-v0`, `sweeplab/Intermediate-v0`, `sweeplab/Expert-v0`: the levels.

Each id makes a `MinesweeperEnv` with `gymnasium.make` and a batched `MinesweeperVectorEnv` with
`gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`. Baseline agents are in
`sweeplab.rl.baselines`; docs/rl.md has the spaces, rewards and figures.
"""

from __future__ import annotations

from ..errors import RLConfigError
from ..extras import install_hint

try:
    import gymnasium as gym
except ModuleNotFoundError as e:
    if e.name != "gymnasium":
        raise
    raise ModuleNotFoundError(f"sweeplab.rl needs gymnasium, which is not installed; install the rl extra with: "
                              f"{install_hint('rl')}", name="gymnasium") from None

from .config import Config, Rewards
from .env import MinesweeperEnv
from .vector import MinesweeperVectorEnv

__all__ = ["Config", "ENV_IDS", "MinesweeperEnv", "MinesweeperVectorEnv", "RLConfigError", "Rewards"]

ENV_IDS = {
    "sweeplab/Minesweeper-v0": {},
    "sweeplab/Beginner-v0": {"level": "beginner"},
    "sweeplab/Intermediate-v0": {"level": "intermediate"},
    "sweeplab/Expert-v0": {"level": "expert"},
}

for _id, _kwargs in ENV_IDS.items():
    if _id not in gym.registry:
        gym.register(id=_id, entry_point="sweeplab.rl.env:MinesweeperEnv",
                     vector_entry_point="sweeplab.rl.vector:MinesweeperVectorEnv", kwargs=dict(_kwargs))
