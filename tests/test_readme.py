"""The README's example runs."""

import doctest
from pathlib import Path

import sweeplab.board
import sweeplab.game

ROOT = Path(__file__).resolve().parents[1]


def test_readme_examples_run():
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False)
    assert result.attempted > 0 and result.failed == 0


def test_docstring_examples_run():
    for module in (sweeplab.board, sweeplab.game):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__
