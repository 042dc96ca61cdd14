"""Cast shadows in the foreground, found as what every piece in the frame has on one side.

Under a hard light (a lamp, a low sun, a spot) each piece casts a shadow on the cloth, and the
shadow joins the piece's blob: the thresholds take it for foreground (it is darker than the
table, and coloured when the light that still reaches it, the sky's or the room's, differs in
colour from the key light), and so does the segmentation network beside the piece. A shadow is
the cloth under the remaining light alone, so its log ratio to the empty table is one vector for
the whole frame, whatever cloth or piece; and it lies on the side of its piece away from the
light, the same side for every piece, drawn out along that side.

So the darker-than-table foreground pixels are clustered by their log ratios, and a cluster is
the frame's shadow when, in the blobs it shares with other pixels, it lies off them in one
direction (`AGREE`) in several blobs (`BLOBS`) beside pieces of several colours (`PARTNERS`), and
is drawn out along that direction (`DRAWN_OUT`): a piece colour's cluster may lie off its shadow
just as consistently, the other way, but is no longer along it than across, and beside its own
colour only. Under diffuse light no cluster qualifies and nothing is removed.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

CLUSTERS = 8             # k-means clusters of the darker pixels' log ratios
DIMMER = -0.12           # mean log ratio under which a foreground pixel may be shadow
SAMPLE = 20000           # pixels the clusters are fitted to (every n-th)
SHARE_AREA = 30.0        # mm^2 of a cluster, and of the rest, for a blob to say where it lies
BLOBS = 5                # blobs in which a shadow cluster lies off the rest
AGREE = 0.75             # resultant length of those directions (1: all alike)
PARTNERS = 3             # distinct clusters (or bright pixels) it lies beside
DRAWN_OUT = 1.15         # its extent along the direction over across (median over blobs)
SAME_SIDE = 35.0         # degrees: other clusters of the shadow lie off the rest this close to it
SAME_COLOUR = 0.97       # ... and their log ratios point this nearly alike (cosine)


def cast_shadows(mask: np.ndarray, features: np.ndarray, mm_per_px: float) -> np.ndarray:
    """Boolean mask of the foreground pixels (`mask`, uint8) that are cast shadows."""
    level = features.mean(axis=2)
    ys, xs = np.nonzero((mask > 0) & (level < DIMMER))
    out = np.zeros(mask.shape, bool)
    if len(ys) < CLUSTERS * 50:
        return out
    ratios = features[ys, xs].astype(np.float32)
    centres = _centres(ratios[::max(1, len(ratios) // SAMPLE)])
    members = np.argmin(((ratios[:, None, :] - centres[None]) ** 2).sum(axis=2), axis=1)
    clusters = np.full(mask.shape, -1, np.int16)
    clusters[ys, xs] = members
    sides = _sides(mask, clusters, SHARE_AREA / mm_per_px ** 2)
    shadow = _shadow_clusters(sides, centres)
    out[ys, xs] = np.isin(members, shadow)
    return out


def _centres(sample: np.ndarray) -> np.ndarray:
    cv2.setRNGSeed(1)      # the same frame always gives the same clusters
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 1e-3)
    return cv2.kmeans(sample, CLUSTERS, None, criteria, 2, cv2.KMEANS_PP_CENTERS)[2]


def _sides(mask: np.ndarray, clusters: np.ndarray, min_px: float) -> dict:
    """{cluster: [(angle of its centroid off the rest of the blob, the rest's commonest
    cluster (-1: brighter pixels), extent along that angle over across)]} over the blobs."""
    n, blobs, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    sides: dict = {k: [] for k in range(CLUSTERS)}
    for b in range(1, n):
        x, y, w, h = stats[b, :4]
        inside = blobs[y:y + h, x:x + w] == b
        points = np.argwhere(inside).astype(np.float64)
        labels = clusters[y:y + h, x:x + w][inside]
        for k in np.unique(labels[labels >= 0]):
            mine = labels == k
            if mine.sum() < min_px or (~mine).sum() < min_px:
                continue
            off = points[mine].mean(axis=0) - points[~mine].mean(axis=0)
            unit = off / (np.linalg.norm(off) + 1e-9)
            spread = points[mine] - points[mine].mean(axis=0)
            drawn = (np.std(spread @ unit) + 0.5) / (np.std(spread @ np.array([-unit[1], unit[0]])) + 0.5)
            partner = int(np.bincount(labels[~mine] + 1).argmax()) - 1
            sides[int(k)].append((math.atan2(off[0], off[1]), partner, drawn))
    return sides


def _shadow_clusters(sides: dict, centres: np.ndarray) -> list[int]:
    """The clusters that are the frame's shadow (see the module's docstring), or none."""
    found = {}
    for k, seen in sides.items():
        if len(seen) < BLOBS:
            continue
        angles = np.array([s[0] for s in seen])
        agree = math.hypot(np.cos(angles).mean(), np.sin(angles).mean())
        if agree >= AGREE and len({s[1] for s in seen}) >= PARTNERS \
                and np.median([s[2] for s in seen]) >= DRAWN_OUT:
            found[k] = (len(seen) * agree, math.atan2(np.sin(angles).mean(), np.cos(angles).mean()))
    if not found:
        return []
    best = max(found, key=lambda k: found[k][0])
    unit = centres[best] / np.linalg.norm(centres[best])
    return [k for k, (_, angle) in found.items()
            if abs((angle - found[best][1] + math.pi) % (2 * math.pi) - math.pi) <= math.radians(SAME_SIDE)
            and centres[k] @ unit / np.linalg.norm(centres[k]) >= SAME_COLOUR]
