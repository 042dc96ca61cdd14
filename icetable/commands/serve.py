"""`icetable serve`: the web app for phones and the table page, under waitress."""
from __future__ import annotations

import socket
import sys
from pathlib import Path

from icetable.cli import UserError


def register(sub) -> None:
    p = sub.add_parser("serve", help="run the phone app and table page (join by QR code)")
    p.add_argument("--host", "--bind", dest="host", default="0.0.0.0",
                   help="address to listen on (default 0.0.0.0: every network of this machine)")
    p.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    p.add_argument("--data-dir", default="icetable-data",
                   help="folder of the SQLite store, created on first start (default ./icetable-data)")
    p.add_argument("--threads", type=int, default=100,
                   help="worker threads; each open phone or table page holds one (default 100)")
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
    """The app on the store in --data-dir, which is created if needed (UserError naming it
    otherwise)."""
    from webapp import create_app

    data = Path(args.data_dir)
    try:
        data.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"--data-dir {data}: {exc.strerror}") from None
    return create_app({"DATA_DIR": str(data.resolve())})


def listen(app, args, threads: int):
    """(waitress server for `app` on --host/--port, base URL phones use): --public-url, or this
    machine's LAN address and the port the server got (--port 0 picks a free one). The URL
    becomes the app's PUBLIC_URL."""
    from webapp.serving import make_server

    if not 0 <= args.port <= 65535:
        raise UserError(f"--port {args.port}: must be between 0 and 65535")
    try:
        server = make_server(app, args.host, args.port, threads)
    except OSError as exc:
        raise UserError(f"cannot listen on {args.host}:{args.port}: {exc.strerror}") from None
    host = lan_address() if args.host in ("0.0.0.0", "") else args.host
    public = (args.public_url or f"http://{host}:{server.effective_port}").rstrip("/")
    app.config["PUBLIC_URL"] = public
    return server, public


def run(args) -> int:
    if args.threads < 4:
        raise UserError(f"--threads {args.threads}: at least 4")
    from webapp import start_clock
    from webapp.pages import qr_text

    app = open_app(args)
    server, public = listen(app, args, args.threads)
    url = f"{public}/"
    if args.game:
        url = open_table(app, args.game, public)
    print(f"icetable: join at {url}\n{qr_text(url)}", flush=True)
    print(f"store: {app.config['DATA_DIR']}  (Ctrl-C stops the server)", file=sys.stderr, flush=True)
    stop = start_clock(app)
    try:
        server.run()
    finally:
        stop.set()
        server.close()
    return 0


def open_table(app, game: str, public: str) -> str:
    """Create a table without a host device (its first player becomes host); its join URL."""
    from webapp import db, store

    conn = db.connect(app.config["DATABASE"])
    try:
        with db.write(conn):
            table, _ = store.create_table(conn, game, {}, with_host=False)
    finally:
        conn.close()
    print(f"table page: {public}/t/{table['code']}/table", file=sys.stderr)
    return f"{public}/t/{table['code']}"
