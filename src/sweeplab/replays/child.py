"""A child process that answers requests one at a time, with bounded memory and time.

Every child process of sweeplab runs through here: the readers of untrusted files, and the analysis
board's worker (play/analyse_worker.py), whose answers come in parts so that what a job found before
its time ran out is still shown. Untrusted files are read in children: ms-toollib
(replays/_toollib_worker.py) aborts its whole process on many malformed files, and a crafted one can
ask it for gigabytes and minutes. A child sets its own address-space limit (RLIMIT_AS) from
`--memory BYTES` before it does anything else, so an allocation past it fails inside the child; the
parent gives each request a deadline and kills the child (its whole process group) past it; either
way only that one request fails, with a reason, and the next one starts a new child.

Protocol, over the child's stdin and stdout: the child first writes the string "ready" (its start-up,
imports and warm-up, is not counted against any request), then answers each pickled request with one
answer (`serve(handle)`, the child's side) or with its parts and then "done" (`serve` with `parts`). What the
child writes goes in frames (a length, then the pickle), read by the parent as they come, so that a
deadline holds between the parts of one answer too.
"""

from __future__ import annotations

import os
import pickle
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

READY = "ready"
_LATE = object()  # (no message before the deadline)
DONE = "done"  # (after the parts of an answer)
HEADER = 8  # bytes of a frame's length


def limit_memory(argv: list[str]) -> int | None:
    """In the child: the limit from `--memory BYTES` in argv, set as RLIMIT_AS (where the OS has it)."""
    if "--memory" not in argv:
        return None
    limit = int(argv[argv.index("--memory") + 1])
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):  # no RLIMIT_AS (Windows): the deadline still holds
        pass
    return limit


def _send(out: IO[bytes], message) -> None:
    data = pickle.dumps(message)
    out.write(len(data).to_bytes(HEADER, "little") + data)
    out.flush()


def serve(handle, parts: bool = False) -> None:
    """In the child: say ready, then answer every request with `handle(request)` until stdin closes
    (with `parts`, `handle` yields the answer's parts, each sent as it comes, then "done")."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    _send(stdout, READY)
    while True:
        try:
            request = pickle.load(stdin)
        except EOFError:
            return
        if not parts:
            _send(stdout, handle(request))
            continue
        for part in handle(request):
            _send(stdout, part)
        _send(stdout, DONE)


def _pipes(proc: subprocess.Popen[bytes]) -> tuple[IO[bytes], IO[bytes]]:
    """The child's stdin and stdout (`Child._start` opens both as pipes)."""
    assert proc.stdin is not None and proc.stdout is not None
    return proc.stdin, proc.stdout


def close_pipes(proc: subprocess.Popen[bytes]) -> None:
    """Close a finished child's pipes (else each warns when collected)."""
    for pipe in (proc.stdin, proc.stdout):
        try:
            if pipe is not None:
                pipe.close()
        except OSError:  # (a broken pipe's buffered bytes cannot be flushed: nobody reads them)
            pass


class Child:
    """One child process running `argv`, started on demand and again after it dies or is killed.

    `memory`: bytes of address space the child may use (passed as --memory); `startup`: seconds it may
    take to say ready; `group`: the child leads a process group of its own, so that killing it kills what
    it started too; `env`: its environment (None: this one's)."""

    def __init__(self, argv: list[str], *, memory: int | None = None, startup: float = 120.0,
                 group: bool = False, env: dict | None = None):
        self.argv, self.memory, self.startup, self.group, self.env = argv, memory, startup, group, env
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._dir: str | None = None  # its working directory: ms-toollib writes crash.log there
        self._buf = b""  # what the child wrote that is not yet a whole frame

    def start(self) -> None:
        """Start the child now (it loads what it needs), so that the first request does not wait."""
        with self._lock:
            self._start()

    def _start(self) -> subprocess.Popen[bytes]:
        # imported here, not at the top: the ms-toollib worker runs this file as a plain module (the child's
        # side, serve and limit_memory), outside the package
        from ..errors import ChildError
        if self._proc is not None:
            if self._proc.poll() is None:
                return self._proc
            close_pipes(self._proc)  # a child that died: its pipes go with it
        if self._dir is None:
            self._dir = tempfile.mkdtemp(prefix="sweeplab-child-")
        argv = [*self.argv, *(["--memory", str(self.memory)] if self.memory else [])]
        with open(Path(self._dir) / "stderr", "wb") as err:
            proc = self._proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                                 cwd=self._dir, start_new_session=self.group, env=self.env)
        self._buf = b""  # (its stdout is read with os.read alone, so that nothing waits in a buffer unseen)
        try:
            said = self._receive(proc, time.monotonic() + self.startup)
        except (EOFError, pickle.UnpicklingError, OSError):
            proc.wait()
            raise ChildError(f"it did not start ({self._why_died()})") from None
        if said is _LATE or said != READY:
            self._kill(proc)
            raise ChildError(f"it did not start within {self.startup:.0f} s")
        return proc

    def _receive(self, proc: subprocess.Popen[bytes], deadline: float):
        """The child's next message, or _LATE when the deadline passes first (pipes cannot be waited
        on in Windows: there a read waits as long as it takes). EOFError when the child is gone."""
        fd = _pipes(proc)[1].fileno()
        while len(self._buf) < HEADER or len(self._buf) < HEADER + int.from_bytes(self._buf[:HEADER], "little"):
            left = deadline - time.monotonic()
            if os.name != "nt" and (left <= 0 or not select.select([fd], [], [], left)[0]):
                return _LATE
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise EOFError
            self._buf += chunk
        end = HEADER + int.from_bytes(self._buf[:HEADER], "little")
        message, self._buf = pickle.loads(self._buf[HEADER:end]), self._buf[end:]
        return message

    def _kill(self, proc: subprocess.Popen[bytes]) -> None:
        try:
            if self.group and os.name != "nt":
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()

    def _why_died(self) -> str:
        """What the child left behind: ms-toollib's panic message (crash.log, e.g. FileIsTooShort), an
        allocation past the memory limit, or the signal that ended it."""
        folder = Path(self._dir or ".")
        try:
            text = (folder / "crash.log").read_text(errors="replace")
            (folder / "crash.log").unlink()
            for line in text.splitlines():
                if line.startswith("message:"):
                    return line.rsplit("value: ", 1)[-1].strip() if "value: " in line else line[8:].strip()
        except OSError:
            pass
        try:
            err = (folder / "stderr").read_text(errors="replace")[-4000:]
        except OSError:
            err = ""
        if "memory allocation of" in err or "MemoryError" in err:
            return "it needed more memory than its limit" + (f" of {self.memory / 2 ** 30:g} GiB" if self.memory else "")
        code = self._proc.returncode if self._proc is not None else None
        return f"it ended with signal {-code}" if code is not None and code < 0 else f"exit status {code}"

    def ask(self, request, *, timeout: float, wait: bool = True):
        """The child's answer to `request` within `timeout` s; ChildError when it dies or runs past that
        (it is killed), ChildBusy when `wait` is False and it is answering another request."""
        from ..errors import ChildError
        answer, late = self._exchange(request, timeout, wait, False)
        if late:
            raise ChildError(f"it took over {timeout:g} s; given up")
        return answer

    def ask_parts(self, request, *, timeout: float) -> tuple[list, bool]:
        """The parts of the child's answer to `request` (a child that `serve`s with `parts`) that came
        within `timeout` s, and whether the time ran out (then the child is killed, and the next
        request starts another). ChildError when it dies."""
        return self._exchange(request, timeout, True, True)

    def _exchange(self, request, timeout: float, wait: bool, parts: bool):
        from ..errors import ChildBusy, ChildError
        if not self._lock.acquire(blocking=wait):
            raise ChildBusy("it is busy with another file")
        try:
            proc = self._start()
            deadline = time.monotonic() + timeout  # (from when the child is ready)
            got: list = []
            try:
                pickle.dump(request, _pipes(proc)[0])
                _pipes(proc)[0].flush()
                while True:
                    message = self._receive(proc, deadline)
                    if message is _LATE:
                        self._kill(proc)
                        return got, True
                    if not parts:
                        return message, False
                    if message == DONE:
                        return got, False
                    got.append(message)
            except (EOFError, BrokenPipeError, pickle.UnpicklingError, OSError):
                proc.wait()
                raise ChildError(self._why_died()) from None
        finally:
            self._lock.release()

    def stop(self) -> None:
        """Kill the child now, from any thread: a request in progress ends at once with ChildError, and the
        next request starts another child."""
        proc = self._proc
        if proc is not None and proc.poll() is None:
            self._kill(proc)

    def close(self) -> None:
        """Stop the child (it holds nothing to keep: closing its stdin ends it, else it is killed)."""
        if self._proc is not None:
            if self._proc.poll() is None:
                _pipes(self._proc)[0].close()
                try:
                    self._proc.wait(1)
                except subprocess.TimeoutExpired:
                    self._kill(self._proc)
            close_pipes(self._proc)
        self._proc = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
