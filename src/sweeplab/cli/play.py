"""`sweeplab play`: the classic game in the browser (a local server), or in the terminal with --tui."""

from __future__ import annotations

import socket
import webbrowser

import click

from ..errors import SweeplabError
from ..extras import install_hint


def check_host(host: str) -> None:
    """An address this machine can listen on, checked before anything starts: a name that does not
    resolve or an address of another machine gets one line about --host (not about the port)."""
    what = ("give an address of this machine: 127.0.0.1 (this machine only, the default), 0.0.0.0 (every "
            "network it is on) or one of its own addresses")
    if not host.strip():
        raise SweeplabError(f"--host is empty; {what}")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.bind((host, 0))
    except (OSError, UnicodeError) as e:
        why = getattr(e, "strerror", None) or str(e)
        raise SweeplabError(f"--host {host!r} is not an address to listen on ({why}); {what}") from None


def warm_in_background() -> None:
    """Have the kernels a game uses compiled, or loaded from the cache, in a thread, while the server
    already answers. On the first run after an install they run as Python until the compiler beside
    the server is done (_tiers.py); a first click meanwhile runs off the server's event loop."""
    import threading

    from .._tiers import wait_compiled
    from ..play import modes
    from ..play.server import warm_up

    def warm():
        try:
            wait_compiled()
            warm_up()
        finally:
            modes.WARMING.clear()

    modes.WARMING.set()
    threading.Thread(target=warm, name="sweeplab-warm-up", daemon=True).start()


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port to listen on; 0 takes a free one.")
@click.option("--no-browser", is_flag=True, help="Do not open the default browser.")
@click.option("--db", "db", type=click.Path(dir_okay=False), default=None,
              help="SQLite file for records and best times [default: the user's data directory, "
                   "e.g. $XDG_DATA_HOME/sweeplab/sweeplab.db].")
@click.option("--tui", is_flag=True, help="Play in the terminal (Textual) instead of the browser.")
@click.option("--replay", "replay_file", type=click.Path(dir_okay=False),
              help="Open a replay file (.avf, .rmv, .mvf, .evf) in the records page's viewer, its clicks judged.")
def play(host, port, no_browser, db, tui, replay_file):
    """Play Minesweeper: the classic Windows game, served to your browser (Ctrl-C or SIGTERM stops it;
    a game in play is kept and goes on after a restart)."""
    from .stop import disarm
    disarm()  # the server stops its own way on Ctrl-C (and the terminal game reads Ctrl-C as a key)
    view = None
    if replay_file and tui:
        raise click.UsageError("--replay opens the browser's replay viewer; it does not go with --tui")
    if not tui:
        check_host(host)
    if replay_file:
        from ..play.replays import replay_view
        from ..replays.read import read_replay
        view = replay_view(read_replay(replay_file))  # a bad file stops here, with one line
    from ..play.store import default_db_path
    db_path = db or default_db_path()
    if tui:
        try:
            from ..play.tui import run_tui
        except ImportError as e:
            raise SweeplabError(f"the terminal version needs Textual ({e}); install it with: "
                                f"{install_hint('tui')}") from None
        warm_in_background()
        run_tui(db_path)
        stop_now_if_still_compiling()
        return
    from ..play.server import serve

    def started(url):
        if view is not None:
            url += "records#replay"
        click.echo(f"sweeplab play: serving at {url}  (records: {db_path}; Ctrl-C stops)")
        warm_in_background()
        if not no_browser:
            webbrowser.open(url)

    serve(db_path, host=host, port=port, on_started=started, replay=view, warm=False)
    click.echo("sweeplab play: stopped")
    stop_now_if_still_compiling()


def stop_now_if_still_compiling() -> None:
    """A stop during the first run's compile: the store is closed and nothing is left to save, but a
    kernel compiling in a thread (the warm-up, or a first click waiting for it) cannot be interrupted,
    and Python would wait minutes for it before exiting. Exit now instead."""
    import os
    import sys

    from ..play import modes
    if modes.WARMING.is_set():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
