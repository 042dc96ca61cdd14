"""The live referee: a camera watches the table, the referee judges, the phones hear.

frames (vision.feeds) -> settled scenes (vision.settle) -> events (vision.tracking) -> actions and
warnings (judges) -> the web app (link). `build.live_loop` wires one table; `recording` makes the
rendered games the demo plays.
"""
