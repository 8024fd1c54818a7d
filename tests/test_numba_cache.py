"""Compiled kernels are cached under a key of the package's sources, so an edit to a module that
other modules' kernels call (the certifier, called by the no-guess chain) cannot leave stale code."""

from __future__ import annotations

import os
import subprocess
import sys

import numba
import pytest

from sweeplab import _numba_cache


def _tree(root, files):
    for name, text in files.items():
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


def test_the_key_changes_with_any_source_file_and_only_then(tmp_path):
    _tree(tmp_path, {"a.py": "x = 1\n", "sub/b.py": "y = 2\n", "notes.txt": "not a source\n"})
    key = _numba_cache.source_key(str(tmp_path))
    assert _numba_cache.source_key(str(tmp_path)) == key
    (tmp_path / "notes.txt").write_text("still not a source, longer\n")
    (tmp_path / "sub" / "__pycache__").mkdir()
    (tmp_path / "sub" / "__pycache__" / "c.py").write_text("ignored\n")
    assert _numba_cache.source_key(str(tmp_path)) == key
    (tmp_path / "sub" / "b.py").write_text("y = 3\n")  # same size: the change time tells
    os.utime(tmp_path / "sub" / "b.py", ns=(1, 1))
    changed = _numba_cache.source_key(str(tmp_path))
    assert changed != key
    (tmp_path / "a.py").write_text("x = 10\n")
    assert _numba_cache.source_key(str(tmp_path)) not in (key, changed)


@pytest.mark.slow
def test_sweeplab_caches_in_its_keyed_directory_and_leaves_numbas_setting_alone(tmp_path):
    cache = tmp_path / "cache"
    script = tmp_path / "user.py"  # a user's own kernel, compiled after importing sweeplab
    script.write_text("import numba\n"
                      "from sweeplab.generators.uniform import uniform_board\n"
                      "uniform_board(9, 9, 10, 1)\n"
                      "@numba.njit(cache=True)\n"
                      "def theirs(x):\n"
                      "    return x + 1\n"
                      "theirs(1)\n"
                      "print(numba.config.CACHE_DIR)\n")
    out = subprocess.run([sys.executable, str(script)], env={**os.environ, "NUMBA_CACHE_DIR": str(cache)},
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == str(cache)  # the user's setting, as it was
    keyed = cache / ("sweeplab-" + _numba_cache.source_key())
    assert any("lay_uniform" in p.name for p in keyed.rglob("*.nbi"))  # sweeplab's kernels: keyed
    users = [p for p in cache.rglob("*.nbi") if keyed not in p.parents]
    assert users and all("theirs" in p.name for p in users)  # the user's: where numba puts them
    assert numba.config.CACHE_DIR != _numba_cache.cache_dir()  # nor changed in this process
