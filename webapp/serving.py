"""Running the app under waitress: the settings event streams need, in the foreground
(`icetable serve`) or in a background thread (tests, benchmarks)."""
from __future__ import annotations

import threading

from waitress import wasyncore
from waitress.server import create_server


def make_server(app, host: str = "127.0.0.1", port: int = 0, threads: int = 64):
    """A waitress server: one worker thread per open stream plus `threads` for the rest is the
    caller's sizing; a read-ahead of 5 lets a stream notice a phone that went away."""
    return create_server(app, host=host, port=port, threads=threads,
                         connection_limit=max(100, threads * 4), channel_request_lookahead=5,
                         ident="icetable")


class BackgroundServer:
    """A server on loopback (a free port by default) running in a daemon thread."""

    def __init__(self, app, threads: int = 48, port: int = 0):
        self.app = app
        self.server = make_server(app, "127.0.0.1", port, threads)
        self.port = self.server.effective_port
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """Close the listening socket and every open connection (streams end), then the pool.
        The closing runs on the server's own loop thread, woken by its trigger."""
        self.server.trigger.pull_trigger(lambda: wasyncore.close_all(self.server._map))
        self.thread.join(timeout=5)
        self.server.task_dispatcher.shutdown(cancel_pending=True, timeout=2)
