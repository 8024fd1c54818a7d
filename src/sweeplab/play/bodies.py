"""Request bodies as the server takes them: at most a route's limit, read as a stream (a body announced
larger is refused before any of it is read; one sent in chunks is cut off once past the limit), and text
that can be stored; and the record id a route's path names."""

from __future__ import annotations

import re

from starlette.requests import Request

from ..errors import BadRequest, BodyTooLarge
from .games import encodable

RECORD_ID = re.compile(r"[0-9]{1,18}")  # ASCII digits: a full-width "１" is not record 1


def record_id(request: Request) -> int:
    """The record id of the route's `{rid}`: a positive integer, or BadRequest."""
    raw = request.path_params["rid"]
    if not RECORD_ID.fullmatch(raw):
        raise BadRequest(f"record id {raw!r} is not a positive integer")
    return int(raw)


async def read_body(request: Request, cap: int) -> bytes:
    """The request body, at most `cap` bytes: refused by its Content-Length before any of it is read,
    and (chunked, or a Content-Length that lies) as soon as more than `cap` bytes have come."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > cap:
        raise BodyTooLarge(f"request body of {int(declared)} bytes is too large; at most {cap}")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            raise BodyTooLarge(f"request body is over {cap} bytes, too large; at most {cap}")
        chunks.append(chunk)
    return b"".join(chunks)


def check_text(data) -> None:
    """Refuse text that cannot be stored: JSON can carry a lone surrogate ("\\udfff"), which is no Unicode
    text, and SQLite (UTF-8) cannot take it."""
    stack = [data]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if not encodable(v):
                raise BadRequest(f"the body holds text that is not valid Unicode ({v[:40]!r} has a lone surrogate); "
                                 "send UTF-8 text")
        elif isinstance(v, dict):
            stack += [*v.keys(), *v.values()]
        elif isinstance(v, list):
            stack += v
