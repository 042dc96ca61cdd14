"""A learned colour (and size) reading of each found pyramid, from a crop of the top view.

The crop is centred on the piece's footprint and turned so that a lying piece points along +x;
its channels are the log ratios to the empty table (`Segmentation.features`, which cancel the
light's level and colour) and the table's own chromaticity around the piece (translucent
plastic shows the cloth through it). A small convolutional network, trained on photoreal and
rendered images by `tools/learn` (docs/vision.md), gives a probability per colour and per size;
it runs on the CPU with OpenCV's DNN module. The weights ship in `vision/models/`.
"""
from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from referee.dimensions import DEFAULT
from referee.geometry import footprint
from referee.scene import Piece

CROP_MM = 56.0            # side of the square crop, mm
CROP_PX = 40              # its side in pixels
CHANNELS = 6
COLOURS = ("red", "yellow", "blue", "green", "black", "purple", "orange", "clear", "cyan", "white")
NONE = len(COLOURS)       # the last class: no piece there (a shadow, wood grain, a printed mark)
SIZES = (1, 2, 3)
MODEL = Path(__file__).with_name("models") / "colournet.onnx"
ALONE = 30.0              # mm between footprint centroids beyond which a crop shows one piece
CONFIDENT = 0.8           # a colour this probable replaces the one the fitted shading gave


def centre_and_turn(fields: dict) -> tuple[float, float, float]:
    """Table point the crop is centred on (the footprint's centroid) and its turn (degrees)."""
    piece = Piece(id="c", type="pyramid", x=float(fields["x"]), y=float(fields["y"]), color="red",
                  size=int(fields["size"]), pose=fields["pose"], heading=fields.get("heading"),
                  angle=fields.get("angle"))
    c = footprint(piece, DEFAULT).centroid
    return c.x, c.y, float(fields.get("heading") or 0.0) if fields["pose"] == "lying" else 0.0


def crop(view, features: np.ndarray, x: float, y: float, turn: float) -> np.ndarray:
    """The (CHANNELS, CROP_PX, CROP_PX) float32 input for the piece centred on table (x, y)."""
    step = CROP_MM / CROP_PX / view.mm_per_px        # view pixels per crop pixel
    a = math.radians(turn)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]) * step
    centre = view.to_pixels(np.array([[x, y]]))[0]
    half = (CROP_PX - 1) / 2
    M = np.column_stack([rot, centre - rot @ np.array([half, half])])
    size = (CROP_PX, CROP_PX)
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    ratios = cv2.warpAffine(features, M, size, flags=flags, borderMode=cv2.BORDER_REPLICATE)
    raw = cv2.warpAffine(view.image, M, size, flags=flags, borderMode=cv2.BORDER_REPLICATE)
    ring = _ring()
    table = np.log(np.median(raw[ring].astype(np.float32), axis=0) + 2.0)
    chroma = np.broadcast_to(table - table.mean(), (CROP_PX, CROP_PX, 3))
    return np.concatenate([ratios, chroma], axis=2).transpose(2, 0, 1).astype(np.float32)


@lru_cache(maxsize=1)
def _ring() -> np.ndarray:
    """Crop pixels 24 to 28 mm from the centre: mostly bare table around the piece."""
    r = np.hypot(*np.mgrid[0:CROP_PX, 0:CROP_PX] - (CROP_PX - 1) / 2) * CROP_MM / CROP_PX
    return (r >= 24.0) & (r <= 28.0)


@lru_cache(maxsize=2)
def _net(path: str):
    return cv2.dnn.readNetFromONNX(path)


def reread(view, features: np.ndarray, found: list, model: Path = MODEL, fixed: tuple = ()) -> list:
    """`found` (`vision.pyramids.Found`) without the pyramids that the network reads as no
    piece, with those it reads as another colour recoloured and those it reads as another size
    resized (`resized`), each with at least CONFIDENT probability. Pieces of the `fixed` colours
    keep their size (the game's rules set it: Ice Pirates islands and treasure), and so do pieces
    with another within ALONE (the crop shows both, and two touching pieces look like a larger one)."""
    pyramids = [f for f in found if f.fields.get("type") == "pyramid"]
    if not pyramids:
        return found
    centres = [centre_and_turn(f.fields) for f in pyramids]
    batch = np.stack([crop(view, features, *c) for c in centres])
    labels, sizes = read(batch, model)
    xy = np.array([c[:2] for c in centres])
    gaps = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1)) + np.eye(len(xy)) * CROP_MM
    dropped = set()
    for item, p, q, gap in zip(pyramids, labels, sizes, gaps.min(axis=1)):
        best = int(p.argmax())
        if p[best] >= CONFIDENT:
            if best == NONE:
                dropped.add(id(item))
                continue
            item.fields["color"] = COLOURS[best]
        size = int(q.argmax())
        if q[size] >= CONFIDENT and item.fields["color"] not in fixed and gap >= ALONE:
            item.fields.update(resized(item.fields, SIZES[size]))
    return [f for f in found if id(f) not in dropped]


def resized(fields: dict, size: int) -> dict:
    """The fields of a pyramid read as `size`, its footprint's centroid kept (the crop the
    network read was centred on it): a lying piece's tip moves along its heading."""
    out = {"size": size}
    if fields["pose"] == "lying" and size != fields["size"]:
        shift = 2 / 3 * (DEFAULT.looney_lying_length[size] - DEFAULT.looney_lying_length[fields["size"]])
        a = math.radians(fields["heading"])
        out["x"] = round(fields["x"] + shift * math.cos(a), 1)
        out["y"] = round(fields["y"] + shift * math.sin(a), 1)
    return out


def available(path: Path = MODEL) -> bool:
    return path.exists()


def read(batch: np.ndarray, path: Path = MODEL) -> tuple[np.ndarray, np.ndarray]:
    """Label (colours, then none) and size probabilities (N, 11) and (N, 3) of a batch of
    crops (N, 6, 40, 40)."""
    net = _net(str(path))
    net.setInput(np.ascontiguousarray(batch, np.float32))
    colour, size = net.forward(["colour", "size"])
    return _softmax(colour), _softmax(size)


def _softmax(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
