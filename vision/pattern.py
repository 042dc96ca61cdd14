"""The empty table under a repeating cloth (a gingham's checks, stripes).

A wide median of a checked cloth is neither of its colours, so against it every check looks like
a piece. But a woven pattern repeats and a piece does not: shifted by one period of the pattern,
the cloth lies on itself. The periods are the peaks of the view's normalised autocorrelation;
the empty table at a pixel is the median of the pixels a whole number of periods away (3 x 3
lattice points), where at most a few show a piece. The light changes over such distances (a
lamp's pool), so each is taken relative to a wide blur of the view, which averages the pattern
out, and put back under this pixel's.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

REACH = 80.0          # mm: periods are looked for up to this long
SHORTEST = 20.0       # mm: ... and at least this long; a period is taken several times over,
SPAN = 30.0           # ... until a step is at least this long (longer than a small piece)
PERIODIC = 0.5        # correlation of the view with itself shifted by a period, at least
PARALLEL = 0.5        # |sin| of the angle between the two periods, at least
LIGHT_BLUR = 25.0     # mm: sigma of the blur that stands for the light (wider than a check)
EVEN = 0.45           # share of the cloth's log grey spread over a period under which the pattern is hidden
SPREAD = 2.0          # a difference from the table this many times the lattice points' spread is the cloth's


def lattice(logs: np.ndarray, mm_per_px: float) -> np.ndarray | None:
    """The lattice steps (2, 2: rows are x, y vectors in pixels) of the repeating cloth in a
    top view (`logs`: log of BGR + 2): each the whole multiple of one of its two shortest
    periods that is at least SPAN long, placed on its own peak of the autocorrelation; None
    when the view does not repeat."""
    grey = cv2.cvtColor(logs, cv2.COLOR_BGR2GRAY)
    grey = grey - cv2.GaussianBlur(grey, (0, 0), LIGHT_BLUR / mm_per_px)
    r = min(int((SPAN + REACH) / mm_per_px), min(grey.shape) // 2)    # shifts the view holds twice over
    if r < 3:
        return None
    c = _autocorrelation(grey, r)
    yy, xx = np.mgrid[-r:r + 1, -r:r + 1]
    far = np.hypot(xx, yy) * mm_per_px
    peak = (c == cv2.dilate(c, np.ones((5, 5), np.uint8))) & (far >= SHORTEST) & (far <= REACH) & (c >= PERIODIC)
    ys, xs = np.nonzero(peak)
    periods = []
    for i in np.argsort(-c[ys, xs]):
        v = _subpixel(c, ys[i], xs[i]) - r
        if not periods or abs(np.cross(np.append(periods[0], 0), np.append(v, 0))[2]) \
                >= PARALLEL * np.linalg.norm(v) * np.linalg.norm(periods[0]):
            periods.append(v)
        if len(periods) == 2:
            steps = [n * v for v, n in ((v, math.ceil(SPAN / (np.linalg.norm(v) * mm_per_px))) for v in periods)]
            if max(np.abs(steps).max(axis=1)) > r - 3:      # a step beyond the shifts measured
                return None
            return np.array([_multiple(c, v) for v in steps])
    return None


def features(logs: np.ndarray, steps: np.ndarray, mm_per_px: float) -> np.ndarray:
    """Per-pixel log ratios to the empty table (`table`) under a cloth that repeats by `steps`,
    each moved toward 0 by SPREAD times the lattice points' own spread there (the median of
    their distances to their median): where they disagree (a check's edge, a little off where
    the lens model or the cloth bends the pattern), so much difference is the cloth's."""
    light, points = _points(logs, steps, mm_per_px)
    middle = _median9(points)
    spread = _median9([cv2.absdiff(p, middle) for p in points])
    ratio = logs - light - middle
    return np.sign(ratio) * cv2.max(cv2.absdiff(ratio, 0.0) - SPREAD * spread, 0.0)


def table(logs: np.ndarray, steps: np.ndarray, mm_per_px: float) -> np.ndarray:
    """The empty table's log colour (float32, like `logs`) under a cloth that repeats by
    `steps` (`lattice`): per pixel and channel, the median over the 3 x 3 lattice points
    around it of the pattern relative to the light."""
    light, points = _points(logs, steps, mm_per_px)
    return light + _median9(points)


def _points(logs: np.ndarray, steps: np.ndarray, mm_per_px: float) -> tuple[np.ndarray, list]:
    """The light (a blur wider than the checks) and the pattern relative to it at the 3 x 3
    lattice points around each pixel; where one lies beyond the view, the point opposite, or
    the pixel itself, stands in."""
    light = cv2.GaussianBlur(logs, (0, 0), LIGHT_BLUR / mm_per_px)
    pattern = logs - light
    points = [pattern]
    for i, j in ((1, 0), (0, 1), (1, 1), (1, -1)):
        shift = i * steps[0] + j * steps[1]
        ahead, behind = _shifted(pattern, shift), _shifted(pattern, -shift)
        points += [_or(ahead, behind, pattern), _or(behind, ahead, pattern)]
    return light, points


def even(grey: np.ndarray, period: int, share: float = EVEN) -> np.ndarray:
    """Bool mask of where something hides the pattern (`grey`: log grey level; `period` in its
    pixels): every window a period wide over the cloth holds both its colours, so the level's
    spread over it is under `share` of the view's median spread (the cloth's) only where a card
    or an arm (shaded: EVEN) covers the whole window. The
    mask reaches half a window less far than what covers it (`grown` makes up for it)."""
    k = max(3, period | 1)
    mean, square = cv2.blur(grey, (k, k)), cv2.blur(grey * grey, (k, k))
    spread = cv2.sqrt(cv2.max(square - mean * mean, 0.0))
    return spread < share * float(np.median(spread))


def grown(mask: np.ndarray, period: int) -> np.ndarray:
    """`even`'s mask (bool) grown by half its window: as far as what covers the pattern."""
    k = max(3, period | 1)
    return cv2.dilate(mask.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) > 0


def _autocorrelation(grey: np.ndarray, reach: int) -> np.ndarray:
    """Correlation of `grey` (zero mean) with itself shifted by up to `reach` pixels each way,
    over the overlap only, as a (2 reach + 1) square with no shift in the middle."""
    h, w = grey.shape
    size = cv2.getOptimalDFTSize(max(h + reach, 2 * reach + 2)), cv2.getOptimalDFTSize(max(w + reach, 2 * reach + 2))
    pad, ones = np.zeros(size, np.float32), np.zeros(size, np.float32)
    pad[:h, :w], ones[:h, :w] = grey, 1.0
    power = []
    for a in (pad, ones):
        f = cv2.dft(a, flags=cv2.DFT_COMPLEX_OUTPUT)
        power.append(cv2.idft(cv2.mulSpectrums(f, f, 0, conjB=True), flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE))
    c = np.fft.fftshift(power[0] / np.maximum(power[1], 1.0))
    cy, cx = size[0] // 2, size[1] // 2
    return c[cy - reach:cy + reach + 1, cx - reach:cx + reach + 1] / max(float(c[cy, cx]), 1e-12)


def _multiple(c: np.ndarray, step: np.ndarray) -> np.ndarray:
    """`step` (x, y pixels: a whole number of periods) moved to the autocorrelation's peak
    (`c`) nearest it."""
    r = (c.shape[0] - 1) // 2
    x, y = np.round(step).astype(int) + r
    box = c[y - 2:y + 3, x - 2:x + 3]
    dy, dx = np.unravel_index(int(np.argmax(box)), box.shape)
    return _subpixel(c, y - 2 + dy, x - 2 + dx) - r


def _subpixel(c: np.ndarray, y: int, x: int) -> np.ndarray:
    """(x, y) of the peak of `c` at pixel (y, x), interpolated by a parabola along each axis."""
    def offset(a, b, d):
        return 0.5 * (a - d) / (a - 2 * b + d) if a - 2 * b + d < 0 else 0.0
    return np.array([x + offset(c[y, x - 1], c[y, x], c[y, x + 1]), y + offset(c[y - 1, x], c[y, x], c[y + 1, x])])


def _shifted(image: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """`image` sampled `shift` (x, y) pixels away: out[p] = image[p + shift]; NaN beyond it."""
    m = np.float32([[1, 0, shift[0]], [0, 1, shift[1]]])
    return cv2.warpAffine(image, m, image.shape[1::-1], flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=(float("nan"),) * 3)


def _or(first: np.ndarray, second: np.ndarray, last: np.ndarray) -> np.ndarray:
    """`first`, where NaN (beyond the view) `second`, where that too is NaN `last`."""
    out = np.where(np.isnan(first), second, first)
    return np.where(np.isnan(out), last, out)


def _median9(images: list) -> np.ndarray:
    """The per-element median of nine float32 arrays, by a sorting network of min and max."""
    p = list(images)
    for a, b in ((1, 2), (4, 5), (7, 8), (0, 1), (3, 4), (6, 7), (1, 2), (4, 5), (7, 8), (0, 3), (5, 8),
                 (4, 7), (3, 6), (1, 4), (2, 5), (4, 7), (4, 2), (6, 4), (4, 2)):
        p[a], p[b] = cv2.min(p[a], p[b]), cv2.max(p[a], p[b])
    return p[4]
