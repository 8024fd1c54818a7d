"""`sweeplab analyse [FILE]`: the analysis board in the browser (a local server, as `sweeplab play`),
opened on FILE's position when one is given."""

from __future__ import annotations

import threading
import webbrowser

import click

from ..userfile import MiB, read_user_file

POSITION_BYTES = MiB  # the analysis board takes 10,000 cells; their text is a few tens of kB


@click.command()
@click.argument("path", metavar="[FILE]", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port to listen on; 0 takes a free one.")
@click.option("--no-browser", is_flag=True, help="Do not open the default browser.")
@click.option("--db", "db", type=click.Path(dir_okay=False), default=None,
              help="SQLite file of `sweeplab play`'s records, whose games the board opens [default: the user's "
                   "data directory, as for play].")
def analyse(path, host, port, no_browser, db):
    """Open the analysis board: set up or paste any position and see its exact mine probabilities,
    the best move and why, and perfect play on small boards. FILE (or '-' for stdin) opens a position:
    the View text ('mines: N' then rows of '#', 'F', '0'-'8'), a JSMinesweeper 'WxHxM' position, a
    text grid, or a board file (text, JSON or MBF)."""
    from ..play.analyse import WORKER
    from ..play.analyse_position import read_position

    where = "analyse"
    if path is not None:
        data = read_user_file(path, what="a position or board file", limit=POSITION_BYTES)
        pos, _ = read_position(data)  # a bad file stops here, with one line
        where += f"#p={pos.code}"
    from ..play.server import serve
    from ..play.store import default_db_path
    db_path = db or default_db_path()
    threading.Thread(target=WORKER.start, daemon=True).start()  # its kernels load while the server starts

    def started(url):
        click.echo(f"sweeplab analyse: serving at {url}{where}  (Ctrl-C stops)")
        if not no_browser:
            webbrowser.open(url + where)

    serve(db_path, host=host, port=port, on_started=started, warm=False)
    click.echo("sweeplab analyse: stopped")
