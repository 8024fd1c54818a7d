"""What one client can make the server hold, over real HTTP to a real uvicorn server: a request body is
refused by its Content-Length before it is read and cut off once past the limit when it comes in chunks;
one client's games never push another client's game in play out, before or after a restart."""

from __future__ import annotations

import socket
import threading

import httpx
import pytest

from sweeplab.play.games import Hub
from sweeplab.play.server import MAX_BODY
from sweeplab.play.store import Store

from .play_server import running


@pytest.fixture()
def server(tmp_path):
    store = Store(tmp_path / "play.db")
    with running(store) as (url, app):
        yield url, store
    store.close()


def answer(sock) -> int:
    """The status code of the first response on the socket."""
    head = b""
    while b"\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    return int(head.split(b" ", 2)[1])


def request_head(url, path, extra, ctype="application/json") -> tuple[socket.socket, bytes]:
    host, port = url.split("//")[1].strip("/").split(":")
    sock = socket.create_connection((host, int(port)), timeout=20)
    head = (f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: {ctype}\r\n{extra}\r\n").encode()
    return sock, head


@pytest.mark.parametrize("path, ctype", [("/api/games", "application/json"),
                                         ("/api/replays?name=x.evf", "application/octet-stream")])
def test_a_body_declared_too_large_is_refused_before_it_is_read(server, path, ctype):
    url, store = server
    sock, head = request_head(url, path, "Content-Length: 1000000000\r\n", ctype)
    with sock:
        sock.sendall(head + b"{")  # one byte of the billion announced: the answer must not wait for the rest
        assert answer(sock) == 413


def test_a_chunked_body_is_cut_off_once_past_the_limit(server):
    url, store = server
    sock, head = request_head(url, "/api/games", "Transfer-Encoding: chunked\r\n")
    chunk = b"%x\r\n%s\r\n" % (4096, b" " * 4096)
    sent = [0]

    def send():  # up to 256 MB, unless the server stops reading first
        try:
            sock.sendall(head)
            while sent[0] < 256 * 2 ** 20:
                sock.sendall(chunk)
                sent[0] += 4096
            sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server closed the connection: it read no further

    with sock:
        t = threading.Thread(target=send, daemon=True)
        t.start()
        assert answer(sock) == 413
        sock.shutdown(socket.SHUT_RDWR)
        t.join(20)
    assert sent[0] < 64 * 2 ** 20 and MAX_BODY < 2 ** 20  # far fewer bytes than were on offer


def test_one_client_never_pushes_another_clients_game_in_play_out(tmp_path):
    # clients on other machines (this machine's loopback addresses all count as one: test_play_bounds.py)
    from sweeplab.errors import TooManyGamesError
    db = tmp_path / "play.db"
    store = Store(db)
    hub = Hub(store, per_client=8)

    def play(client, click=True, session=None):
        pg = hub.new(mode="safe", client=client, session=session)
        if click:
            hub.act(pg, "flag", 0, 0)
        return pg

    mine = play("192.0.2.2")
    cells = hub.state(mine)["cells"]
    for _ in range(30):  # games never clicked: the attacker's own oldest give way, without end
        play("192.0.2.1", click=False)
    for _ in range(8):  # games in play: up to its limit, then refused
        play("192.0.2.1")
    with pytest.raises(TooManyGamesError, match="games in play"):
        play("192.0.2.1")
    play("192.0.2.2", session="tab-2")  # the other client still has room
    store.close()
    store = Store(db)  # a restart: nothing of this is in memory any more
    with running(store, hub=Hub(store, per_client=8)) as (url, app), httpx.Client(base_url=url) as victim:
        s = victim.get(f"/api/games/{mine.id}")
        assert s.status_code == 200 and s.json()["cells"] == cells
        assert store.live_count() == 8 + 2
    store.close()


def test_a_full_server_refuses_a_new_game_and_drops_none(tmp_path):
    from sweeplab.errors import StoreFullError
    store = Store(tmp_path / "play.db")
    for i in range(3):
        store.start_live(f"g{i}", {}, created=i, owner=f"client-{i}", most=3)
    with pytest.raises(StoreFullError, match="3 games in play"):
        store.start_live("g3", {}, created=3, owner="client-3", most=3)
    assert store.live_count() == 3 and all(store.live(f"g{i}") for i in range(3))
    store.close()
