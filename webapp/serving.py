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


STOP_SECONDS = 10.0     # a stream notices its closed connection within one poll


class BackgroundServer:
    """A server on loopback (a free port by default) running in a daemon thread."""

    def __init__(self, app, threads: int = 48, port: int = 0):
        self.app = app
        self.server = make_server(app, "127.0.0.1", port, threads)
        self.port = self.server.effective_port
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """Close the listening socket and every connection (streams end), wait for the workers,
        end the loop, and only then close the loop's wake-up pipe. No thunk given to the pipe
        closes it: the loop may run a thunk before the pull that queued it writes its byte."""
        server = self.server
        server.trigger.pull_trigger(lambda: close_connections(server))
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=STOP_SECONDS)
        server.trigger.pull_trigger(server.trigger.del_channel)  # nothing left to watch: the loop ends
        self.thread.join(timeout=STOP_SECONDS)
        server.trigger.close()


def close_connections(server) -> None:
    """Close a waitress server's listening socket and connections, leaving its wake-up pipe
    open (the server's own close() would close the pipe too)."""
    for dispatcher in list(server._map.values()):
        if dispatcher is server:
            wasyncore.dispatcher.close(server)
        elif dispatcher is not server.trigger:
            dispatcher.close()
