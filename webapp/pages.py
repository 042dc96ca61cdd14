"""HTML pages: home (new table / join by code), the phone page, the table page and its QR code.

Pages carry no game state: their scripts fetch the recipient's snapshot and open the event
stream, so nothing secret can sit in a page's source.
"""
from __future__ import annotations

import io

import qrcode
import qrcode.image.svg
from flask import Blueprint, Response, current_app, redirect, render_template, request, url_for

from webapp import games as game_rules
from webapp import store
from webapp.api import table_or_404
from webapp.db import get_db

bp = Blueprint("pages", __name__)


def join_url(code: str) -> str:
    """The URL a phone opens to join, from PUBLIC_URL (never trusted from the Host header in
    production: `icetable serve` sets it to the laptop's address)."""
    base = current_app.config["PUBLIC_URL"] or request.host_url
    return f"{base.rstrip('/')}/t/{code}"


def qr_svg(text: str) -> str:
    qr = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=2)
    qr.add_data(text)
    buf = io.BytesIO()
    qr.make_image(image_factory=qrcode.image.svg.SvgPathImage).save(buf)
    svg = buf.getvalue().decode()
    return svg[svg.index("<svg"):]


def qr_text(text: str) -> str:
    """The QR code as text for a terminal."""
    qr = qrcode.QRCode(border=1)
    qr.add_data(text)
    out = io.StringIO()
    qr.print_ascii(out=out, invert=True)
    return out.getvalue()


@bp.get("/")
def home():
    code = request.args.get("join", "").strip().upper()
    if code.isalpha() and len(code) <= 8:
        return redirect(url_for("pages.phone", code=code))
    return render_template("home.html", games=list(game_rules.SIDES))


def page_of(code: str, template: str, context):
    """A page of the table `code`, or a page in words (404) when no table has that code."""
    table = store.table_by_code(get_db(), code)
    if table is None:
        return render_template("unknown.html", code=code.upper()[:12]), 404
    return render_template(template, table=table, game_name=game_rules.NAMES[table["game"]],
                           **context(table))


@bp.get("/t/<code>")
def phone(code: str):
    return page_of(code, "phone.html", lambda table: {
        "sides": game_rules.SIDES[table["game"]], "counts": game_rules.counts_text(table["game"]),
        "max_players": game_rules.PLAYER_COUNTS[table["game"]][-1]})


@bp.get("/t/<code>/table")
def table_page(code: str):
    def context(table):
        url = join_url(table["code"])
        return {"join_url": url, "qr": qr_svg(url)}
    return page_of(code, "table.html", context)


@bp.get("/t/<code>/qr.svg")
def qr_image(code: str):
    table = table_or_404(code)
    return Response(qr_svg(join_url(table["code"])), mimetype="image/svg+xml")
