"""Real servers of `sweeplab play` for the tests that talk HTTP to one: uvicorn in a thread of this
process (`running`), or the server as its own process on a database file (`process`), which a test can
kill and start again on the same file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from sweeplab.play.server import bind, create_app, url_of

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def running(store, **app_kw):
    """Serve `store` on a free loopback port; yields (url, app)."""
    import uvicorn
    app = create_app(store, **app_kw)
    sock = bind("127.0.0.1", 0)
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                                        proxy_headers=False))
    t = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    t.start()
    while not srv.started:
        time.sleep(0.02)
    try:
        yield url_of(sock), app
    finally:
        srv.should_exit = True
        t.join(5)


def start(db, port: int = 0, *options: str, **popen_kw) -> tuple[subprocess.Popen, str]:
    """`python -m sweeplab.play.server DB PORT --no-warm [OPTIONS]` started; returns the process and its URL
    once it listens."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    p = subprocess.Popen([sys.executable, "-m", "sweeplab.play.server", str(db), str(port), "--no-warm", *options],
                         stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env, **popen_kw)
    line = p.stdout.readline()
    if not line.startswith("http://"):
        p.kill()
        raise AssertionError(f"the server did not start: {line}{p.communicate(timeout=30)[1]}")
    return p, line.strip()


@contextmanager
def process(db, port: int = 0):
    """A server process on `db`; yields a box {"proc", "url"}. `restart(box, kill=True)` kills it (SIGKILL:
    no goodbye, so only what was committed is in the file) and starts another on the same file and port."""
    proc, url = start(db, port)
    box = {"proc": proc, "url": url, "db": db}
    try:
        yield box
    finally:
        stop(box["proc"])


def stop(proc: subprocess.Popen, sig=signal.SIGTERM) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()


def restart(box: dict) -> str:
    """Kill the box's server (SIGKILL) and start another on the same file and port; returns its URL."""
    stop(box["proc"], signal.SIGKILL)
    port = int(box["url"].rsplit(":", 1)[1].strip("/"))
    box["proc"], box["url"] = start(box["db"], port)
    return box["url"]
