"""The server's HTTP/1.1 connections (uvicorn's h11 protocol) with a deadline for a request's headers.

uvicorn closes a connection idle between requests after its keep-alive time, but waits without end for
the headers of a request begun, or for the first request of a connection that sends nothing: thousands
of such connections could be held open by one client. Here a connection that has not sent a whole
request head within HEADER_SECONDS of connecting, or of starting a request, is closed.
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_SECONDS = 5.0  # a browser sends a request's head at once; a client that dribbles it is cut off


class Protocol(H11Protocol):
    """uvicorn's H11Protocol, with the deadline for request heads."""

    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # a whole head came: the request is under way
            self._disarm()
        elif self.conn.trailing_data[0] and self._head_timer is None:  # part of the next head
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._head_timer = self.loop.call_later(HEADER_SECONDS, self._head_late)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_late(self) -> None:
        self._head_timer = None
        if self.conn.their_state is h11.IDLE and (self.cycle is None or self.cycle.response_complete) \
                and not self.transport.is_closing():
            self.transport.close()
