"""One Ctrl-C stops a command at once, even inside a long kernel.

Python runs its Ctrl-C handler between bytecodes, and a numba kernel is a single call: a Ctrl-C in a
long one waited until it returned (minutes on a large board). The signal also writes a byte to a
wakeup pipe, at once, from C; a thread watching that pipe gives the handler GRACE seconds to run,
and if it has not (the main thread is inside a kernel), says so in one line and ends the process
with status 130, as an interrupted command ends. Whatever the command wrote before is kept: files
are written as their parts are made.

The watching thread needs Python's lock to run: it stops kernels declared `njit(nogil=True)`, the
ones that can run for long; a kernel that keeps the lock still finishes first.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading

GRACE = 0.5  # seconds the ordinary handler has to start before the command is ended from outside
LINE = "sweeplab: interrupted"

_lock = threading.Lock()
_handled = 0  # Ctrl-Cs the ordinary handler has seen
_armed = False


def _handler(signum, frame):
    global _handled
    with _lock:  # (held by the watcher while it ends the process: then this waits for the end)
        _handled += 1
    raise KeyboardInterrupt


def arm() -> None:
    """Watch for Ctrl-C from now on (in the main thread; once). Worker processes forked later do not
    inherit the watch: their Ctrl-C is their parent's to handle."""
    global _armed
    if _armed or os.name != "posix" or threading.current_thread() is not threading.main_thread():
        return  # (elsewhere a wakeup needs a socket, and nothing forks: Ctrl-C stays Python's own)
    read, write = os.pipe()
    os.set_blocking(write, False)
    signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    signal.signal(signal.SIGINT, _handler)
    _armed = True
    os.register_at_fork(after_in_child=_forget)
    threading.Thread(target=_watch, args=(read,), name="sweeplab-ctrl-c", daemon=True).start()


def disarm() -> None:
    """Leave Ctrl-C to Python alone again (a command with a stop of its own: the play server's)."""
    global _armed
    if not _armed or threading.current_thread() is not threading.main_thread():
        return
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    _armed = False


def _forget() -> None:
    global _armed
    if _armed:
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGINT, signal.default_int_handler)
        except ValueError:  # (not the main thread of the child: nothing to undo there)
            pass
        _armed = False


def _watch(read: int) -> None:
    import time

    seen = 0
    while True:
        data = os.read(read, 512)
        if not data:
            return
        if not _armed:
            continue
        seen += data.count(signal.SIGINT)
        time.sleep(GRACE)
        with _lock:
            if _handled >= seen or not _armed or signal.getsignal(signal.SIGINT) is not _handler:
                # the handler ran, or another took its place (a server's): the command stops its own way
                seen = _handled
                continue
            for child in multiprocessing.active_children():  # (none are left running on their own)
                child.terminate()
            try:
                sys.stdout.flush()
            except Exception:  # (a closed or broken stdout loses nothing more than its last line)
                pass
            os.write(2, (LINE + "\n").encode())
            os._exit(130)
