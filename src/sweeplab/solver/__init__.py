"""Solvers: local rules, complete deduction with exact probabilities, and hints. They take only a View.

>>> from sweeplab import View
>>> a = analyse(View.from_text("mines: 1\\n1#\\n##\\n"))
>>> a.layouts, round(float(a.probability[0, 1]), 4)
(3, 0.3333)
"""

from ..errors import InconsistentPositionError, TooComplexError
from .complete import Analysis, analyse
from .conflict import AnalysisWithoutTotal, analyse_without_total, conflict_core
from .hints import Hint, hint
from .rules import deduce_rules

__all__ = ["Analysis", "AnalysisWithoutTotal", "Hint", "InconsistentPositionError", "TooComplexError", "analyse",
           "analyse_without_total", "conflict_core", "deduce_rules", "hint"]
