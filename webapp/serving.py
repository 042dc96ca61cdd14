"""Running the app on gevent's WSGI server: each connection is a greenlet, so an open event
stream costs a parked greenlet, not a thread. The server runs in the foreground (`icetable
serve`) or in a background thread with its own gevent hub (tests, `live`, `demo`); nothing is
monkey-patched: the app's own waits (store, notifier, table locks) are gevent-aware, and its
store reads are short, so they run in the server's thread.

gevent runs on Linux, macOS and Windows (wheels for each) and is maintained; Flask documents it
as a deployment server (docs/deploying/gevent.rst).
"""
from __future__ import annotations

import logging
import select
import socket
import threading

import gevent
from gevent.pool import Pool
from gevent.pywsgi import WSGIHandler, WSGIServer

MAX_CONNECTIONS = 4000      # open connections at once (streams included); more wait to be accepted
STOP_SECONDS = 2.0         # at most, to let requests finish when stopping; then streams are ended


class Handler(WSGIHandler):
    """Logs nothing per request (no access log: paths carry table codes, nothing more, but the
    console stays readable); server errors go to the `icetable.server` logger. A stream reads
    `icetable.gone` from its environ: a check that the client has closed the connection."""

    def log_request(self):
        pass

    def get_environ(self):
        environ = super().get_environ()
        environ["icetable.gone"] = lambda sock=self.socket: peer_closed(sock)
        return environ


def peer_closed(sock) -> bool:
    """Whether the other end closed `sock` (readable, and nothing to read). Never blocks."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


class Server:
    """A listening socket for `app`, bound at once (OSError if the address cannot be bound; the
    port it got is `server_port`), served by `serve_forever()` in the thread that calls it.
    gevent's server is made there: its watchers belong to that thread's hub."""

    def __init__(self, app, host: str = "127.0.0.1", port: int = 0, connections: int = MAX_CONNECTIONS):
        self.app, self.connections = app, connections
        self.socket = socket.create_server((host, port), backlog=1024)
        self.socket.setblocking(False)          # gevent accepts when the hub says it is ready
        self.server_port = self.socket.getsockname()[1]
        self.hub = self.wsgi = None
        self.ready = threading.Event()

    def serve_forever(self) -> None:
        """Serve until `close()` (or Ctrl-C in the foreground)."""
        self.hub = gevent.get_hub()
        self.wsgi = WSGIServer(self.socket, self.app, spawn=Pool(self.connections), handler_class=Handler,
                               log=None, error_log=logging.getLogger("icetable.server"))
        self.wsgi.start()
        self.ready.set()
        self.wsgi.serve_forever(stop_timeout=STOP_SECONDS)

    def close(self) -> None:
        """Stop accepting and end every connection (open streams end); from any thread."""
        if self.hub is None:
            self.socket.close()
        else:
            self.hub.loop.run_callback_threadsafe(self.wsgi.close)


def make_server(app, host: str = "127.0.0.1", port: int = 0) -> Server:
    return Server(app, host, port)


def serve(server: Server) -> None:
    server.serve_forever()


class BackgroundServer:
    """A server on loopback (a free port by default) running in a daemon thread."""

    def __init__(self, app, port: int = 0):
        self.app = app
        self.server = Server(app, "127.0.0.1", port)
        self.port = self.server.server_port
        self.thread = threading.Thread(target=self.server.serve_forever, name="icetable-server", daemon=True)
        self.thread.start()
        self.server.ready.wait(10)

    def stop(self) -> None:
        """Close the listener and every connection, then wait for the thread."""
        self.server.close()
        self.thread.join(timeout=STOP_SECONDS * 2)
