"""research/bench_paired.py: B played by another checkout's interpreter is that checkout's player,
whatever PYTHONPATH the comparison runs under (A from a work tree is often run with PYTHONPATH=src)."""

from __future__ import annotations

import sys

from bench_paired import source_tag


def test_another_interpreter_imports_its_own_sweeplab_whatever_pythonpath_says(tmp_path, monkeypatch):
    fake = tmp_path / "sweeplab"
    fake.mkdir()
    (fake / "__init__.py").write_text("# a checkout whose sweeplab is not the installed one\n")
    monkeypatch.delenv("PYTHONPATH", raising=False)
    installed = source_tag(sys.executable)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    assert source_tag(None) != installed  # this interpreter, as A: PYTHONPATH's sweeplab
    assert source_tag(sys.executable) == installed  # as B's interpreter: its own, PYTHONPATH dropped
