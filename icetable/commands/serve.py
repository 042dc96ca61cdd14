"""`icetable serve`: the web app for phones and the table page, on gevent's WSGI server."""
from __future__ import annotations

import signal
import socket
import sys
from pathlib import Path

from icetable import checks
from icetable.cli import UserError


def register(sub) -> None:
    p = sub.add_parser("serve", help="run the phone app and table page (join by QR code)")
    p.add_argument("--host", "--bind", dest="host", default="0.0.0.0",
                   help="address to listen on (default 0.0.0.0: every network of this machine)")
    p.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    p.add_argument("--data-dir", default="icetable-data",
                   help="folder of the SQLite store, created on first start (default ./icetable-data)")
    p.add_argument("--database", metavar="URL",
                   help="postgresql://user@host/db: keep the tables in PostgreSQL, shared by every "
                        "serve process given the same URL (default: the SQLite file in --data-dir)")
    p.add_argument("--public-url", help="base URL phones use, e.g. http://192.168.1.20:8000 "
                   "(default: this machine's LAN address)")
    p.add_argument("--game", choices=("icehouse", "icefloe", "iceberg", "icepirates"),
                   help="also open a table for this game and print its join URL and QR code")
    p.set_defaults(run=run)


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent), or 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))
            return s.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def open_app(args):
    """The app on the store in --data-dir, which is created if needed, or on --database;
    UserError (one line naming the store, and its last backup) when it cannot be used."""
    from webapp import create_app
    from webapp.db import StoreError

    check_server_options(args)
    data = Path(args.data_dir)
    try:
        data.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"--data-dir {data}: {exc.strerror}") from None
    database = getattr(args, "database", None)
    if database and not database.startswith(("postgresql://", "postgres://")):
        raise UserError(f"--database {database}: give a postgresql:// URL")
    try:
        return create_app({"DATA_DIR": str(data.resolve()), "DATABASE_URL": database})
    except StoreError as exc:
        raise UserError(str(exc)) from None


def check_server_options(args) -> None:
    """--bind/--host an address, --port a port: checked before the store is opened."""
    checks.address("--bind", args.host)
    checks.port("--port", args.port)


def listen(app, args):
    """(server for `app` listening on --host/--port, base URL phones use): --public-url, or this
    machine's LAN address and the port the server got (--port 0 picks a free one). The URL
    becomes the app's PUBLIC_URL."""
    from webapp.serving import make_server

    try:
        server = make_server(app, args.host, args.port)
    except (OSError, ValueError) as exc:
        raise UserError(f"cannot listen on {args.host}:{args.port}: {getattr(exc, 'strerror', None) or exc}") from None
    host = lan_address() if args.host in ("0.0.0.0", "") else args.host
    public = (args.public_url or f"http://{host}:{server.server_port}").rstrip("/")
    app.config["PUBLIC_URL"] = public
    return server, public


def more_files() -> None:
    """Raise the limit of open files to the hard limit (POSIX): each phone holds a socket."""
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY else 65536, hard))
    except (ImportError, ValueError, OSError):
        pass


def run(args) -> int:
    from webapp import start_clock
    from webapp.pages import qr_text
    from webapp.serving import serve

    more_files()
    app = open_app(args)
    server, public = listen(app, args)
    url = f"{public}/"
    if args.game:
        url = open_table(app, args.game, public)
    print(f"icetable: join at {url}\n{qr_text(url)}", flush=True)
    print(f"store: {app.extensions['icetable'].store}  (Ctrl-C stops the server)", file=sys.stderr, flush=True)
    stop = start_clock(app)
    if hasattr(signal, "SIGTERM") and sys.platform != "win32":
        import gevent
        gevent.signal_handler(signal.SIGTERM, server.close)     # stop cleanly: a last backup
    try:
        serve(server)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        app.extensions["icetable"].store.close()
    return 0


def open_table(app, game: str, public: str) -> str:
    """Create a table without a host device (its first player becomes host); its join URL."""
    from webapp import store

    table, _ = app.extensions["icetable"].store.write(
        lambda w: store.create_table(w, game, {}, with_host=False))
    print(f"table page: {public}/t/{table['code']}/table", file=sys.stderr)
    return f"{public}/t/{table['code']}"
