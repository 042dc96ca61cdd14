"""Split a top view into empty table, pieces and hands.

The empty table is estimated by a wide median (wider than any piece), each pixel's colour is
taken as a log ratio to it (`calibration.colors`), and a pixel is foreground when its chroma
moves or it is much darker (not a shadow) or brighter (a white or clear piece) than the table,
or when it lies in a region a little brighter than the table with a sharp outline (a white
piece on a cloth nearly as pale).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.colors import REJECT, ColorProfile
from vision import pattern, segnet
from vision.shadows import cast_shadows

BACKGROUND_WINDOW = 130.0     # mm, the median window for the empty table
CHROMA = 0.13                 # log-ratio chroma deviation of a coloured piece
DARKER = np.log(0.65)         # darker than a shadow (a shadow halving the light: 0.73 in sRGB)
BRIGHTER = np.log(1.10)       # brighter than the table can be
FAINT = np.log(1.04)          # ... and this brighter within PALE_REACH px of such a pixel
PALE_REACH = 9
EDGE_LINE = 0.03              # log brightness over the 5 px local mean: an edge of clear plastic
HAND_AREA = 3500.0            # mm^2: a foreground region this large that is not
HAND_UNEXPLAINED = 0.35       # ... explained by piece colours (this share of its pixels) is a hand
ARM_CHROMA = 0.06             # log chroma (red-blue or red-green) off the table's: not table
ARM_OPEN = 15.0               # mm: such regions thinner than this are pieces, not arms
ARM_CORE = 30.0               # mm: wider than any piece, so such a core is arm whatever its colour
ARM_LOOKALIKES = ("white", "clear", "black")  # colours skin, a sleeve's shade or an arm's shadow match
PIECE_PATCH = 1500.0          # mm^2: a patch of another colour in an arm region this small is a
                              # piece the arm touches or shades, not part of the arm
FAINT_REGION = np.log(1.025)  # a pale piece on a pale cloth: its 7 px mean this much brighter,
FAINT_EDGE = 3.0              # ... its outline's gradient this many times the view's median (a
                              # blotch of the cloth's texture: about once),
FAINT_AREA = 100.0            # ... this large (mm^2),
FAINT_SHARE = 0.25            # ... and touching less foreground than this share of its area
FACE_CHROMA = 0.05            # log chroma off that of a piece beside it: not its face turned from the light
NET_PIECE = 0.3               # the network's piece probability above which foreground is kept
                              # (clear plastic shows the table through it: the network is less sure)
NET_REACH = 2.0               # mm: threshold foreground this close to such pixels is kept
PALE_NEAR = 8.0               # mm: and this close to a clearly bright, colourless pixel where
NET_WEAK = 0.05               # ... the network's piece probability is over this (wood grain: none)
ARM_SCALE = 4.0               # mm per pixel at which arms over a repeating cloth are looked for
SEEN_THROUGH = 0.5            # the network's piece probability over a region the thresholds miss
SEEN_AREA = (150.0, 2500.0)   # ... of pieces' size (mm^2): clear plastic under diffuse light,
SEEN_COVER = 0.2              # ... under this share of it threshold foreground,
SEEN_DIMMED = np.log(0.9)     # ... as dim as clear plastic dims the cloth seen through it (its median),
SEEN_APART = 1.5              # ... and this far (mm) from foreground beyond it: a shadow touches what casts it
SEEN_HANDS = 12.0             # mm: nor this close to a hand (an arm's shadow falls apart from it)
CARD_RIM = 6.0                # mm inside a card's mask that may be a blend of card and cloth
FACE_REACH = 20.0             # mm from the piece: a large's base is 25 mm, half its diagonal 17.7


@dataclass
class Segmentation:
    features: np.ndarray      # (h, w, 3) float32 log ratios to the empty table
    foreground: np.ndarray    # uint8 0/255, pieces only (hands removed)
    hands: np.ndarray         # uint8 0/255
    labels: np.ndarray        # int32 component labels of `foreground`
    stats: np.ndarray         # cv2 connectedComponentsWithStats rows
    colours: np.ndarray       # int16 (h, w): colour index per foreground pixel, -1 elsewhere
    colour_dist: np.ndarray   # float32 (h, w): Mahalanobis distance of that colour
    faces: np.ndarray         # uint8 0/255: faint regions beside found pieces (`faint_parts`)
    steps: np.ndarray | None = None     # the lattice of a repeating cloth (`vision.pattern`)


def background(image: np.ndarray, mm_per_px: float, hands: np.ndarray | None = None) -> np.ndarray:
    """The empty table under the pieces, float32 BGR. Where `hands` (uint8) cover the table
    the table's overall colour stands in, so that an arm does not darken the table beside it
    (which would make the bare table there look like a white piece)."""
    step = 4
    small = cv2.resize(image, (image.shape[1] // step, image.shape[0] // step), interpolation=cv2.INTER_AREA)
    if hands is not None and hands.any():
        covered = cv2.resize(hands, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_AREA) > 0
        if not covered.all():
            small[covered] = np.median(small[~covered], axis=0)
    k = int(BACKGROUND_WINDOW / (mm_per_px * step)) | 1
    med = cv2.medianBlur(small, min(k, 255))
    return cv2.resize(med, (image.shape[1], image.shape[0]), interpolation=cv2.INTER_LINEAR).astype(np.float32)


def _on_cards(features: np.ndarray, logs: np.ndarray, paper: np.ndarray, mm_per_px: float) -> np.ndarray:
    """`features` with each card's (`paper`: uint8 mask of flattened cards and a margin round
    them) the log ratio to the card's median colour: a card hides the repeating cloth under it.
    Within CARD_RIM of the mask's edge, a blend of card and cloth, the smaller of the two."""
    n, labels = cv2.connectedComponents(paper, connectivity=8)
    k = 2 * max(1, int(round(CARD_RIM / mm_per_px))) + 1
    inner = cv2.erode(paper, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) > 0
    out = features.copy()
    for i in range(1, n):
        card = labels == i
        ratio = logs[card] - np.median(logs[card & inner] if (card & inner).any() else logs[card], axis=0)
        smaller = np.abs(ratio).sum(axis=1) < np.abs(features[card]).sum(axis=1)
        out[card] = np.where((inner[card] | smaller)[:, None], ratio, features[card])
    return out


def log_ratio(image: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Per-channel log(image / table) in float32."""
    return cv2.log(image.astype(np.float32) + 2.0) - cv2.log(table + 2.0)


def level_of(features: np.ndarray) -> np.ndarray:
    """Mean log ratio over the channels: how much brighter than the table (0 = as bright)."""
    return cv2.transform(features, np.full((1, 3), 1 / 3, np.float32))


def chroma_of(features: np.ndarray, level: np.ndarray) -> np.ndarray:
    """How far the most coloured channel lies from the mean of the three (`level`)."""
    return cv2.max(cv2.max(cv2.absdiff(features[..., 0], level), cv2.absdiff(features[..., 1], level)),
                   cv2.absdiff(features[..., 2], level))


def unlike_table(features: np.ndarray) -> np.ndarray:
    """Pixels that are each clearly not the table: brighter than it can be, coloured, or darker
    than a shadow (no holes filled, no neighbours joined). bool."""
    bright, coloured, dark = _unlike_table(features, level_of(features))
    return (bright | coloured | dark) > 0


def _unlike_table(features: np.ndarray, level: np.ndarray) -> tuple:
    """(bright, coloured, dark) uint8 0/255 masks of `unlike_table`."""
    return (cv2.compare(level, float(BRIGHTER), cv2.CMP_GT),
            cv2.compare(chroma_of(features, level), CHROMA, cv2.CMP_GT),
            cv2.compare(level, float(DARKER), cv2.CMP_LT))


def foreground_mask(features: np.ndarray) -> np.ndarray:
    """Pixels that are not the table (nor a shadow on it), holes filled. uint8 0/255."""
    level = level_of(features)
    bright, coloured, dark = _unlike_table(features, level)
    # dark pieces: a lamp's reflection on black plastic is about as bright as the table
    dark = cv2.morphologyEx(dark, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    mask = coloured | dark | bright
    # pale pieces (white, clear): faces turned from the light are barely brighter than the
    # table; take them where they are close to a clearly bright, colourless part
    near = cv2.dilate(bright & ~coloured, np.ones((PALE_REACH, PALE_REACH), np.uint8))
    mask |= near & cv2.compare(cv2.blur(level, (3, 3)), float(FAINT), cv2.CMP_GT)
    kernel = np.ones((3, 3), np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    # clear pieces: thin bright lines along their edges (kept out of the opening above)
    lines = cv2.compare(cv2.subtract(level, cv2.blur(level, (5, 5))), EDGE_LINE, cv2.CMP_GT)
    lines &= cv2.compare(level, float(FAINT), cv2.CMP_GT)
    mask |= cv2.morphologyEx(lines, cv2.MORPH_CLOSE, kernel)
    return fill_holes(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel))


def faint_parts(features: np.ndarray, mask: np.ndarray, off: np.ndarray,
                mm_per_px: float) -> tuple[np.ndarray, np.ndarray]:
    """Pale pieces barely brighter than a pale cloth (a white island on a cloth at three
    quarters of the paper's level): regions brighter than the table by FAINT_REGION, by FAINT
    on average, whose outline is a sharp edge (a blotch of the cloth is as bright but soft),
    away from `off` (hands, print): (pieces, faces), uint8 0/255. A region touching foreground
    (`mask`) of FAINT_SHARE of its area or more is the faint faces of a piece already found;
    one touching less is a piece of which only a fragment was found."""
    level = level_of(features)
    candidate = cv2.compare(cv2.blur(level, (7, 7)), float(FAINT_REGION), cv2.CMP_GT) & ~(mask | off)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(candidate, connectivity=8)
    pieces, faces = np.zeros_like(mask), np.zeros_like(mask)
    large = np.nonzero(stats[1:, cv2.CC_STAT_AREA] * mm_per_px ** 2 >= FAINT_AREA)[0] + 1
    if not len(large):
        return pieces, faces
    grad = cv2.magnitude(cv2.Sobel(level, cv2.CV_32F, 1, 0), cv2.Sobel(level, cv2.CV_32F, 0, 1))
    sharp = FAINT_EDGE * float(np.median(grad[::4, ::4]))
    found = None
    for i in large:
        x, y, w, h, area = stats[i]
        box = (slice(max(y - 3, 0), y + h + 3), slice(max(x - 3, 0), x + w + 3))
        region = (labels[box] == i).astype(np.uint8)
        near = cv2.dilate(region, np.ones((5, 5), np.uint8)) > 0
        ring = near & (cv2.erode(region, np.ones((3, 3), np.uint8)) == 0)
        if level[box][region > 0].mean() <= FAINT or grad[box][ring].mean() <= sharp \
                or (cv2.dilate(off[box], np.ones((7, 7), np.uint8)) & region).any():
            continue
        if found is None:
            _, found, found_stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        touched = np.unique(found[box][near])
        share = found_stats[touched[touched > 0], cv2.CC_STAT_AREA].sum() / area
        (faces if share >= FAINT_SHARE else pieces)[box][region > 0] = 255
    return pieces, faces


def with_network(mask: np.ndarray, p: np.ndarray, features: np.ndarray, faint: np.ndarray,
                 mm_per_px: float) -> np.ndarray:
    """The thresholds' foreground `mask` where it lies within NET_REACH of a pixel the network
    reads as a piece more probably than NET_PIECE (`p`: `vision.segnet.probabilities`). The
    thresholds draw a piece's outline finely (a white or clear piece's faint faces); the network
    says whether it is a piece at all (a shadow or wood grain is table). The network is least
    sure of white and clear plastic on pale cloth, so foreground within PALE_NEAR of a clearly
    bright, colourless pixel (no shadow is brighter than the table) is kept where the network
    gives a piece any chance (NET_WEAK), and `faint_parts`' pieces (`faint`: sharp-edged pale
    regions) are kept. A region of pieces' size (under HAND_AREA) that runs out of the view, and
    that the network reads as piece over at least half of it, is kept whole: what it holds may lie
    beyond, and it is reported uncertain (wood grain runs out of the view in long stripes, but the
    network reads them as table)."""
    r = max(1, int(round(NET_REACH / mm_per_px)))
    reach = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    piece = segnet.channel(p, "piece")
    sure = cv2.compare(piece, NET_PIECE, cv2.CMP_GT)
    kept = mask & cv2.dilate(sure, reach)
    level = level_of(features)
    pale = cv2.compare(level, float(BRIGHTER), cv2.CMP_GT) & cv2.compare(chroma_of(features, level), CHROMA, cv2.CMP_LT)
    k = 2 * max(1, int(round(PALE_NEAR / mm_per_px))) + 1
    weak = cv2.dilate(cv2.compare(piece, NET_WEAK, cv2.CMP_GT), reach)
    kept |= (mask & weak & cv2.dilate(pale, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))) | faint
    _, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    area = stats[:, cv2.CC_STAT_AREA]
    read = np.bincount(labels[sure > 0], minlength=len(stats))
    edge = reaches_edge(stats, mask.shape) & (area * mm_per_px ** 2 <= HAND_AREA) & (2 * read >= area)
    edge[0] = False
    kept[edge[labels]] = 255
    return kept


def seen_through(mask: np.ndarray, p: np.ndarray, features: np.ndarray, hands: np.ndarray,
                 mm_per_px: float) -> np.ndarray:
    """Regions the network reads as a piece where the thresholds' foreground `mask` holds
    little: clear plastic under diffuse light dims the cloth seen through it evenly, to about
    0.7-0.85 of it, colourless and without bright edges, under every threshold. Kept when dimmed
    and colourless (median), of a piece's size, inside the view, away from hands, and apart from
    the foreground beyond them: a shadow, which the network trained under other lights may read
    as a piece, lies against the piece that casts it."""
    sure = cv2.compare(segnet.channel(p, "piece"), SEEN_THROUGH, cv2.CMP_GT)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(sure, connectivity=8)
    area = stats[:, cv2.CC_STAT_AREA] * mm_per_px ** 2
    covered = np.bincount(labels[mask > 0], minlength=n)
    pick = (area >= SEEN_AREA[0]) & (area <= SEEN_AREA[1]) & (covered < SEEN_COVER * stats[:, cv2.CC_STAT_AREA]) \
        & ~reaches_edge(stats, mask.shape)
    pick[0] = False
    out = np.zeros_like(mask)
    if not pick.any():
        return out
    level = level_of(features)
    chroma = chroma_of(features, level)
    hand_gap = cv2.distanceTransform(cv2.bitwise_not(hands), cv2.DIST_L2, 5) * mm_per_px
    m = int(np.ceil(max(SEEN_APART, SEEN_HANDS) / mm_per_px)) + 2
    for i in np.nonzero(pick)[0]:
        x, y, w, h = stats[i, :4]
        y0, y1, x0, x1 = max(0, y - m), min(mask.shape[0], y + h + m), max(0, x - m), min(mask.shape[1], x + w + m)
        region = (labels[y0:y1, x0:x1] == i).astype(np.uint8)
        inside = region > 0
        if np.median(level[y0:y1, x0:x1][inside]) > SEEN_DIMMED or np.median(chroma[y0:y1, x0:x1][inside]) > CHROMA \
                or hand_gap[y0:y1, x0:x1][inside].min() < SEEN_HANDS:
            continue
        beyond = (mask[y0:y1, x0:x1] > 0) & (cv2.dilate(region, np.ones((3, 3), np.uint8)) == 0)
        if beyond.any() and (cv2.distanceTransform((~beyond).astype(np.uint8), cv2.DIST_L2, 5)[inside].min()
                             * mm_per_px < SEEN_APART):
            continue
        out[y0:y1, x0:x1][inside] = 255
    return out


def fill_holes(mask: np.ndarray) -> np.ndarray:
    """The mask with every region enclosed by foreground filled (faces of clear or white pieces
    that look like the table inside their visible outline)."""
    h, w = mask.shape
    flood = np.zeros((h + 2, w + 2), np.uint8)
    flood[1:-1, 1:-1] = mask
    cv2.floodFill(flood, None, (0, 0), 255)
    return mask | (255 - flood[1:-1, 1:-1])


def arm_regions(logs: np.ndarray, mm_per_px: float, no_arm: np.ndarray | None = None) -> np.ndarray:
    """Hands and arms in a top view (`logs`: log of BGR + 2): large regions whose colour differs
    from the table's overall colour (skin is warmer, sleeves anything) and that reach the edge of
    the view, as an arm does. A hand is wider than the background window, so it is judged
    against the whole table, not the local median. `no_arm` (bool) marks pixels that are no
    arm whatever their colour (a card a hand touches), so they are not joined to one."""
    b, g, r = cv2.split(logs)
    rb, rg = cv2.subtract(r, b), cv2.subtract(r, g)
    # the table's overall colour: the median of every 4th pixel each way is as good and 16x cheaper
    odd = cv2.compare(cv2.absdiff(rb, float(np.median(rb[::4, ::4]))), ARM_CHROMA, cv2.CMP_GT) \
        | cv2.compare(cv2.absdiff(rg, float(np.median(rg[::4, ::4]))), ARM_CHROMA, cv2.CMP_GT)
    if no_arm is not None:
        odd[no_arm] = 0
    k = max(3, int(ARM_OPEN / mm_per_px) | 1)
    odd = cv2.morphologyEx(odd, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(odd, connectivity=8)
    keep = np.zeros(n, np.uint8)
    keep[1:][(stats[1:, cv2.CC_STAT_AREA] * mm_per_px ** 2 > HAND_AREA) & reaches_edge(stats, odd.shape)[1:]] = 255
    return keep[labels]


def _faces_in_shade(features: np.ndarray, piece: np.ndarray, doubtful: np.ndarray,
                    mm_per_px: float) -> np.ndarray:
    """Of the `doubtful` pixels (foreground an arm region took whose colour matches no piece),
    those joined to a `piece` pixel within FACE_REACH and of its chroma: a face of that piece
    turned from the light is darker but keeps its colour's chroma (log ratios shift alike),
    where skin beside it does not."""
    if not doubtful.any() or not piece.any():
        return np.zeros(piece.shape, bool)
    level = level_of(features)
    chroma = features - level[..., None]
    weight = cv2.blur(piece.astype(np.float32), (5, 5))
    own = cv2.blur(chroma * piece[..., None], (5, 5)) / np.maximum(weight, 1e-6)[..., None]
    dist, nearest = cv2.distanceTransformWithLabels((~piece).astype(np.uint8), cv2.DIST_L2, 5,
                                                    labelType=cv2.DIST_LABEL_PIXEL)
    ys, xs = np.nonzero(piece)
    source = np.zeros((nearest.max() + 1, 3), np.float32)
    source[nearest[ys, xs]] = own[ys, xs]
    near = doubtful & (dist * mm_per_px <= FACE_REACH)
    close = np.abs(chroma - source[nearest]).max(axis=2) < FACE_CHROMA
    grown = (piece | (near & close)).astype(np.uint8)
    n, labels = cv2.connectedComponents(grown, connectivity=8)
    joined = np.zeros(n, bool)
    joined[np.unique(labels[piece])] = True     # piece pixels are never label 0
    return near & close & joined[labels]


def _arm_core(hands: np.ndarray, features: np.ndarray, profile: ColorProfile,
              mm_per_px: float) -> np.ndarray:
    """The arm regions opened to ARM_CORE: wider than any piece, so arm whatever their colour.
    A piece-sized patch of a piece colour no arm matches (a red or yellow piece the arm touches
    or its shadow darkens) is taken out first, so the core does not swallow it."""
    if not hands.any():
        return hands
    ys, xs = np.nonzero(hands[::2, ::2])       # every other pixel each way: a piece is 100s of pixels
    best, dist = profile.classify(features[2 * ys, 2 * xs].astype(np.float64))
    plain = [profile.names.index(name) for name in ARM_LOOKALIKES if name in profile.names]
    coloured = (dist <= REJECT) & ~np.isin(best, plain)
    patches = np.zeros(((hands.shape[0] + 1) // 2, (hands.shape[1] + 1) // 2), np.uint8)
    patches[ys[coloured], xs[coloured]] = 255
    n, labels, stats, _ = cv2.connectedComponentsWithStats(patches, connectivity=8)
    small = np.zeros(n, np.uint8)
    small[1:] = stats[1:, cv2.CC_STAT_AREA] * (2 * mm_per_px) ** 2 <= PIECE_PATCH
    pieces = cv2.resize(small[labels], (hands.shape[1], hands.shape[0]), interpolation=cv2.INTER_NEAREST)
    arm = hands.copy()
    arm[pieces > 0] = 0
    k = int(ARM_CORE / mm_per_px) | 1
    return cv2.morphologyEx(arm, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))


def arms_over_pattern(logs: np.ndarray, steps: np.ndarray, mm_per_px: float) -> np.ndarray:
    """Hands and arms over a repeating cloth (uint8 0/255; `steps`: its lattice): regions where
    something hides the pattern (`vision.pattern.even`), of HAND_AREA or more, that run out of
    the view. The colour test of `arm_regions` compares with one table colour, and the empty
    table taken from the lattice takes in an arm longer than a lattice step."""
    step = max(1, int(round(ARM_SCALE / mm_per_px)))
    h, w = logs.shape[:2]
    grey = cv2.resize(cv2.cvtColor(logs, cv2.COLOR_BGR2GRAY), (w // step, h // step), interpolation=cv2.INTER_AREA)
    period = int(float(np.linalg.norm(steps, axis=1).min()) / step)
    region = pattern.grown(pattern.even(grey, period), period).astype(np.uint8)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(region, connectivity=8)
    keep = reaches_edge(stats, region.shape) & (stats[:, cv2.CC_STAT_AREA] * (step * mm_per_px) ** 2 >= HAND_AREA)
    keep[0] = False
    return cv2.resize(keep[labels].astype(np.uint8) * 255, (w, h), interpolation=cv2.INTER_NEAREST)


def running_out(mask: np.ndarray) -> np.ndarray:
    """Bool mask of the regions of `mask` (bool or uint8) that touch the image's border."""
    _, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    edge = reaches_edge(stats, mask.shape)
    edge[0] = False
    return edge[labels]


def reaches_edge(stats: np.ndarray, shape: tuple) -> np.ndarray:
    """Per row of `cv2.connectedComponentsWithStats` stats over an image of `shape`, whether
    that component touches the image's border."""
    h, w = shape[:2]
    x, y, bw, bh = (stats[:, i] for i in range(4))
    return (x == 0) | (y == 0) | (x + bw == w) | (y + bh == h)


def segment(image: np.ndarray, mm_per_px: float, profile: ColorProfile,
            ignore: np.ndarray | None = None, model: Path | None = None,
            paper: np.ndarray | None = None, steps: np.ndarray | None = None) -> Segmentation:
    """Segment a top view (BGR uint8) into pieces, hands and table; `ignore` masks printed
    parts of the mat (markers, patches, cards). With `model` (`vision.segnet`), only foreground
    the network reads as pieces is kept (`with_network`), except on `paper` (uint8 mask: home
    cards), which it was not trained to read. `steps` is the lattice of a cloth that repeats
    (`vision.pattern.lattice`): the empty table is then the pattern, and an arm is a region
    running out of the view that hides it (`arms_over_pattern`)."""
    logs = cv2.log(image.astype(np.float32) + 2.0)
    if steps is None:
        hands = arm_regions(logs, mm_per_px)
        features = logs - cv2.log(background(image, mm_per_px, hands) + 2.0)
    else:
        features = pattern.features(logs, steps, mm_per_px)
        if paper is not None:
            features = _on_cards(features, logs, paper, mm_per_px)
        hands = arms_over_pattern(logs, steps, mm_per_px)
    mask = foreground_mask(features)
    if ignore is not None:
        mask[ignore > 0] = 0
    faint, faces = faint_parts(features, mask, hands if ignore is None else hands | ignore, mm_per_px)
    mask |= faint
    seen = np.zeros_like(mask)
    if model is not None:
        p = segnet.probabilities(features, mm_per_px, model)
        learned = with_network(mask, p, features, faint, mm_per_px)
        if paper is None and steps is None and "clear" in profile.names:
            seen = seen_through(learned, p, features, hands, mm_per_px)
        mask = (learned | seen) if paper is None else np.where(paper > 0, mask, learned)
    shadow = cast_shadows(mask, features, mm_per_px)
    if paper is not None:
        shadow[paper > 0] = False
    mask[shadow] = 0
    seen[shadow] = 0
    core = _arm_core(hands, features, profile, mm_per_px)
    colours = np.full(mask.shape, -1, np.int16)
    dist = np.zeros(mask.shape, np.float32)
    ys, xs = np.nonzero(mask & ~core)
    if len(ys):
        best, d = profile.classify(features[ys, xs].astype(np.float64))
        colours[ys, xs] = best
        dist[ys, xs] = d
    clear = seen > 0      # colourless and dimmed, under the coloured threshold: no colour but clear
    colours[clear] = profile.names.index("clear")
    dist[clear] = 0.0
    # pieces touching an arm stay pieces; pale skin looks like white plastic, but no piece is
    # as wide as the arm's core
    free = (mask > 0) & (core == 0)
    piece = free & (dist <= REJECT)
    hands[piece] = 0
    hands[_faces_in_shade(features, piece, free & (hands > 0), mm_per_px)] = 0
    hands = cv2.morphologyEx(hands, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    mask[hands > 0] = 0
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    # a large region the piece colours do not explain is a hand the arm test missed
    unexplained = [i for i in np.nonzero(stats[1:, cv2.CC_STAT_AREA] > HAND_AREA / mm_per_px ** 2)[0] + 1
                   if np.mean(dist[labels == i] > REJECT) > HAND_UNEXPLAINED]
    if unexplained:
        hands[np.isin(labels, unexplained)] = 255
        mask[hands > 0] = 0
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    return Segmentation(features, mask, hands, labels, stats, colours, dist, faces, steps)
