"""Solvers: deduction (local rules and complete), exact probabilities and hints. They take only a View."""

from .complete import Analysis, analyse
from .frontier import InconsistentPositionError

__all__ = ["Analysis", "InconsistentPositionError", "analyse"]
