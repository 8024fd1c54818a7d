"""A real uvicorn server of `sweeplab play` in a thread, for the tests that talk HTTP to it."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager

from sweeplab.play.server import bind, create_app, url_of


@contextmanager
def running(store):
    """Serve `store` on a free loopback port; yields (url, app)."""
    import uvicorn
    app = create_app(store)
    sock = bind("127.0.0.1", 0)
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    t = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    t.start()
    while not srv.started:
        time.sleep(0.02)
    try:
        yield url_of(sock), app
    finally:
        srv.should_exit = True
        t.join(5)
