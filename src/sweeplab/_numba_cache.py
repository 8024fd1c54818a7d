"""Where numba keeps compiled kernels: a directory named after the package's sources.

numba checks a cached function against its own file only, yet a kernel's cached machine code
carries the kernels it calls from other modules (the no-guess chain carries the certifier). After
an edit or an upgrade that touches only the callee, the caller would run the old code. Keying the
cache directory by every source file's size and change time makes any change start afresh.

numba's cache directory is one setting for the whole process, read when a kernel is decorated;
sweeplab's kernels are decorated through `njit` here, which sets it only for their decoration, so
importing sweeplab leaves other packages' caches where they were.
"""

from __future__ import annotations

import hashlib
import os
import shutil

import numba

from . import _tiers

PACKAGE = os.path.dirname(os.path.abspath(__file__))


def source_key(root: str = PACKAGE) -> str:
    """A short digest of the size and change time of every .py file under `root`."""
    digest = hashlib.sha1()
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                stat = os.stat(os.path.join(folder, name))
                digest.update(f"{os.path.relpath(folder, root)}/{name}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def cache_dir() -> str:
    """<base>/sweeplab-<source key>, where <base> is NUMBA_CACHE_DIR if the user set one, else the
    package's __pycache__ (where the caches of older sources are then removed). Computed once."""
    global _CACHE_DIR
    if _CACHE_DIR is None:
        user_base = os.environ.get("NUMBA_CACHE_DIR")
        base = user_base or os.path.join(PACKAGE, "__pycache__")
        here = "sweeplab-" + source_key()
        if not user_base and os.path.isdir(base):
            for old in os.listdir(base):
                if old.startswith("sweeplab-") and old != here:
                    shutil.rmtree(os.path.join(base, old), ignore_errors=True)
        _CACHE_DIR = os.path.join(base, here)
    return _CACHE_DIR


_CACHE_DIR: str | None = None


def njit(function=None, **options):
    """`numba.njit(cache=True, **options)` whose cache lies in `cache_dir()`, run as Python until
    that cache is complete (_tiers.py).

    numba fixes a kernel's cache path when the kernel is decorated, from its one process-wide
    setting; setting it only while sweeplab's kernels are decorated leaves everyone else's as it was.
    """
    def decorate(f):
        saved = numba.config.CACHE_DIR
        numba.config.CACHE_DIR = cache_dir()
        try:
            kernel = numba.njit(cache=True, **options)(f)
        finally:
            numba.config.CACHE_DIR = saved
        return kernel if numba.config.DISABLE_JIT else _tiers.wrap(kernel, cache_dir())

    return decorate if function is None else decorate(function)


NOTICE = ("compiling kernels (once after an install or an update; a minute or two on a slow machine; "
          "later runs start at once)...")
_announcing = False


def announce_compiles(say=None) -> None:
    """From now on, the first time a sweeplab kernel compiles (rather than loading from the cache), say
    so once: `say(NOTICE)`; by default one line on stderr when stderr is a terminal, where a person
    waits (a log or a pipe gets no such line). Kernels compile on the first run after an install or an
    update, and a command silent for a minute looks hung. Installed once per process; worker processes
    forked later share the once, so a run of many processes says it a single time.
    """
    import multiprocessing
    import sys

    from numba.core import event

    global _announcing
    if _announcing:
        return
    if say is None:
        if not sys.stderr.isatty():
            return

        def say(text):
            print(f"sweeplab: {text}", file=sys.stderr, flush=True)
    _announcing = True
    _tiers.announce(say)
    said = multiprocessing.Value("b", 0)

    class Notice(event.Listener):
        def on_start(self, ev):
            func = getattr(ev.data.get("dispatcher"), "py_func", None)
            if not getattr(func, "__module__", "").startswith("sweeplab."):
                return  # another package's kernel: not ours to announce
            with said.get_lock():
                if said.value:
                    return
                said.value = 1
            say(NOTICE)

        def on_end(self, ev):
            pass

    event.register("numba:compile", Notice())
