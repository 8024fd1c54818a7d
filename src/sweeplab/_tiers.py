"""Kernels run as plain Python until they are compiled.

numba compiles a kernel at its first call, and the engine takes most of a minute of CPU to compile:
a new user's first click would wait for it. A kernel is Python that numba types, so it also runs as
written, a hundred times slower, which is quick for a game's first moves (an expert no-guess board
is a few certifying plays: under a second). So a process that starts before the kernels are in
numba's cache runs each kernel as Python, and starts a compiler beside it (`python -m
sweeplab.play.warm`, at a lower priority) that compiles what a player meets first into the cache
and then marks the cache complete. From then on every call from Python goes to the compiled
kernel; a call under way finishes as Python (work that would take longer as Python than its
kernels' compile compiles them at once instead: `compile_here`). The same source runs either way, so
a seed gives the same board either way (tests/test_tiers.py).

SWEEPLAB_KERNELS chooses: `tiered` (the default), `compiled` (compile at the first call, as numba
does: the compiler itself, and benchmarks of the compile) or `interpreted` (never compile: tests
comparing the two, or stepping through a kernel in a debugger).
"""

from __future__ import annotations

import fcntl
import functools
import os
import sys
import threading
import time
import warnings
from typing import TYPE_CHECKING

from numba.core import types
from numba.extending import typeof_impl

if TYPE_CHECKING:
    import subprocess

MODES = ("tiered", "compiled", "interpreted")
MARK = "complete"        # the file the compiler leaves in the cache directory when it is done
LOCK = "compiling.lock"  # held by the one compiler of a cache directory
LOOK_EVERY = 0.5         # seconds between two looks for the mark, while interpreting
NOTICE = ("compiling kernels in the background (once after an install or an update); until then they run as "
          "plain Python, slower")


def mode() -> str:
    """SWEEPLAB_KERNELS, checked."""
    chosen = os.environ.get("SWEEPLAB_KERNELS", "tiered")
    if chosen not in MODES:
        raise RuntimeError(f"SWEEPLAB_KERNELS must be one of {', '.join(MODES)}, got {chosen!r}")
    return chosen


def is_complete(cache: str) -> bool:
    return os.path.exists(os.path.join(cache, MARK))


def lock(cache: str, wait: bool = True):
    """The cache's compiler lock, held (an open file: closing it lets go); None where another holds it
    and `wait` is False."""
    os.makedirs(cache, exist_ok=True)
    held = open(os.path.join(cache, LOCK), "a")
    try:
        fcntl.flock(held, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        held.close()
        return None
    return held


def compiling(cache: str) -> bool:
    """Whether a compiler holds the cache's lock now."""
    held = lock(cache, wait=False)
    if held is None:
        return True
    held.close()
    return False


def _writable(cache: str) -> bool:
    try:
        os.makedirs(cache, exist_ok=True)
    except OSError:
        return False
    return os.access(cache, os.W_OK)


def mark_complete(cache: str) -> None:
    os.makedirs(cache, exist_ok=True)
    with open(os.path.join(cache, MARK), "w") as f:
        f.write("the kernels a player meets first are compiled here\n")


class Tiered:
    """A kernel that runs as Python until the cache is complete, then compiled. numba types it as the
    kernel it wraps, so compiled callers call the compiled kernel directly."""

    def __init__(self, dispatcher):
        self.dispatcher = dispatcher
        self.py_func = dispatcher.py_func
        functools.update_wrapper(self, self.py_func)

    def __call__(self, *args, **kwargs):
        calls = _STATE.calls
        depth = getattr(calls, "depth", 0)
        if depth == 0 and _STATE.ready():
            return self.dispatcher(*args, **kwargs)
        # A call made from inside an interpreted kernel stays interpreted: its arguments are what
        # Python computed (a numpy scalar where numba would have widened it, a Python int where
        # numba kept a uint64), and a compiled kernel typed for those could compute otherwise.
        calls.depth = depth + 1
        try:
            return self.py_func(*args, **kwargs)
        finally:
            calls.depth = depth

    def __getattr__(self, name):  # signatures, overloads, stats...: the kernel's own
        return getattr(self.dispatcher, name)

    def __repr__(self):
        return f"<tiered kernel {self.__module__}.{self.__qualname__}>"


@typeof_impl.register(Tiered)
def _typeof_tiered(value, context):
    return types.Dispatcher(value.dispatcher)


class _State:
    """The process's tier: decided at its first kernel, from SWEEPLAB_KERNELS and the cache's mark."""

    def __init__(self):
        self.cache = ""                # the kernel cache's directory, once decided
        self.interpreting = False  # kernels wrapped in this process
        self.compiled = True       # calls go to the compiled kernels
        self.forever = False       # SWEEPLAB_KERNELS=interpreted
        self.next_look = 0.0
        self.calls = threading.local()  # depth: interpreted kernels under way in this thread
        self.compiler: subprocess.Popen | None = None
        self.say = None            # where to announce the compiler (_numba_cache.announce_compiles)

    def decide(self, cache: str) -> None:
        if self.cache:
            return
        self.cache = cache
        chosen = mode()
        # (a cache this process cannot write holds no compiler's lock nor mark: numba compiles, as its own)
        self.interpreting = chosen == "interpreted" or (chosen == "tiered" and not is_complete(cache)
                                                        and _writable(cache))
        self.compiled = not self.interpreting
        self.forever = chosen == "interpreted"
        if self.interpreting:
            # numpy warns where a scalar's arithmetic wraps or meets a NaN; a compiled kernel says nothing
            warnings.filterwarnings("ignore", r"(overflow|invalid value|divide by zero) encountered",
                                    RuntimeWarning, r"sweeplab\.")

    def ready(self) -> bool:
        if self.compiled:
            return True
        if self.forever:
            return False
        now = time.monotonic()
        if now < self.next_look:
            return False
        self.next_look = now + LOOK_EVERY
        if is_complete(self.cache):
            self.compiled = True
            return True
        self.start_compiler()
        return False

    def start_compiler(self) -> None:
        """The compiler, once per process, unless another holds the cache's lock; it outlives the
        process, so that a short command still leaves the cache compiled for the next."""
        if self.compiler is not None or self.compiled or self.forever or compiling(self.cache):
            return
        import atexit
        import subprocess

        env = dict(os.environ, SWEEPLAB_KERNELS="compiled")  # (the same NUMBA_CACHE_DIR: the same cache)
        self.compiler = subprocess.Popen([sys.executable, "-m", "sweeplab.play.warm", "--background"], env=env,
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, start_new_session=True)
        atexit.register(self.compiler.poll)  # (reaps it if it ended first: no zombie in the report)
        if self.say is not None:
            self.say(NOTICE)


_STATE = _State()


def wrap(dispatcher, cache: str):
    """The kernel as this process runs it: numba's dispatcher, or a Tiered one while interpreting."""
    _STATE.decide(cache)
    return Tiered(dispatcher) if _STATE.interpreting else dispatcher


def compiled() -> bool:
    """Whether calls from Python go to the compiled kernels now (True where they never were
    interpreted); a look for the mark, which starts the compiler where none works yet."""
    return _STATE.ready()


def wait_compiled(timeout: float | None = None) -> bool:
    """Wait until the kernels run compiled (starting the compiler if need be); False at the timeout."""
    end = None if timeout is None else time.monotonic() + timeout
    while not _STATE.ready():
        if _STATE.forever or (end is not None and time.monotonic() >= end):
            return False
        _STATE.start_compiler()
        time.sleep(LOOK_EVERY)
    return True


def stop_compilers(base: str, quiet: float = 5.0) -> None:
    """Kill the compilers working on the caches under `base` (a test's or a benchmark's throwaway one),
    with their warm-ups: each writes its pid in the cache's lock once it holds it, leading a process
    group of its own, and one that waited for the lock takes it when the first is gone; done once
    none has come for `quiet` seconds."""
    import glob
    import signal

    since = time.monotonic()
    while time.monotonic() - since < quiet:
        for path in glob.glob(os.path.join(base, "*", LOCK)):
            with open(path) as f:
                text = f.read().strip()
            if text:
                open(path, "w").close()
                try:
                    os.killpg(int(text), signal.SIGKILL)
                except ProcessLookupError:
                    pass
                since = time.monotonic()
        time.sleep(0.2)


def compile_here() -> None:
    """From now on this process's kernels compile at their first call, as numba's do, whether or not
    the compiler beside it is done: for work longer as Python than its kernels' compile (a dense
    board's chain). Not where SWEEPLAB_KERNELS=interpreted says never."""
    _STATE.compiled = not _STATE.forever


def announce(say) -> None:
    """Say, once, when this process starts the compiler."""
    _STATE.say = say


__all__ = ["LOCK", "MARK", "MODES", "NOTICE", "Tiered", "announce", "compile_here", "compiled", "compiling", "is_complete",
           "lock", "mark_complete", "mode", "stop_compilers", "wait_compiled", "wrap"]
