"""Replays: the community's recordings (AVF, RMV, MVF, EVF) read, their clicks judged exactly, and EVF written."""

from .read import Replay, ReplayError, read_replay

__all__ = ["Replay", "ReplayError", "read_replay"]
