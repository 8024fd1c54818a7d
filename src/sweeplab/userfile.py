"""Reading a file a user names (or stdin): regular files only, and never more than a stated size.

A device such as /dev/zero, a pipe or a folder given where a file is expected is refused before
anything is read; a file (or stdin) past the size cap is refused after reading at most one byte
more than the cap, so no input can hold the program or its memory without limit.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import BinaryIO

from .errors import FormatError, SweeplabError

MiB = 1024 * 1024


def _size(n: int) -> str:
    return f"{n // MiB} MiB" if n % MiB == 0 else f"{n:,} bytes"


def read_user_file(path: str | os.PathLike, *, what: str, limit: int, error: type[SweeplabError] = FormatError,
                   name: str | None = None, stdin: BinaryIO | None = None) -> bytes:
    """The bytes of `path` ('-' reads stdin), a `what` ("a board file") of at most `limit` bytes.
    Anything else raises `error` with one line that says what was wrong and what is allowed."""
    name = name or str(path)
    if str(path) == "-":
        source = stdin if stdin is not None else sys.stdin.buffer
        try:
            data = source.read(limit + 1)
        except OSError as e:
            raise error(f"cannot read stdin ({e.strerror or e})") from None
        if len(data) > limit:
            raise error(f"stdin holds more than {_size(limit)}, too large for {what}; at most {_size(limit)}")
        return data
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # (a pipe's open would wait for a writer)
    except OSError as e:
        raise error(f"{name}: cannot read it ({e.strerror})") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise error(f"{name}: not a regular file (a device, pipe or folder); give {what}")
    with os.fdopen(fd, "rb") as f:
        if info.st_size > limit:
            raise error(f"{name}: {info.st_size:,} bytes is too large for {what}; at most {_size(limit)}")
        try:
            data = f.read(limit + 1)
        except OSError as e:
            raise error(f"{name}: cannot read it ({e.strerror})") from None
    if len(data) > limit:  # it grew while being read
        raise error(f"{name}: over {_size(limit)}, too large for {what}; at most {_size(limit)}")
    return data
