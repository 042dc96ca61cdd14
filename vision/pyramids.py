"""Looney pyramids in a segmented top view: colour, size, pose, heading, base position.

Each foreground blob is explained by fitting the silhouette a hypothesis casts on the table seen
from the camera centre (a standing pyramid's apex leans away from the nadir; a lying one's raised
base corners do). Fitting matches the silhouette's centroid and axis to the blob's (closed-form
moments of polygons, no per-pixel loops); hypotheses are ranked by overlap (IoU) with the blob.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from referee.dimensions import DEFAULT, Dimensions
from referee.scene import tenth_degree
from calibration.colors import ColorProfile
from vision import clusters
from vision.segment import DARKER, Segmentation, fill_holes, foreground_mask, level_of
from vision.shading import Shading
from vision.solids import lying_pyramid, standing_pyramid
from vision.topview import TopView

SUB = 3                    # fixed-point bits when rasterising silhouettes
MARGIN = 14                # px around a blob's box for silhouettes that overhang it
MIN_AREA = 90.0            # mm^2: smaller blobs are noise (a small lying pyramid is ~190)
FRAGMENT_MARGIN = 28       # px around such a blob beside faint faces: a white piece's fragment
FRAGMENT_IOU = 0.7         # ... explained with those faces by one white piece this well
RIVALS, RIVAL_GAP = 3, 0.1  # hypotheses this close to the best are refined before choosing
TURN_GAP, TURN_SHARE = 0.05, 0.05   # a piece's other pose: how close it must score, how much
                                    # more of the brightness variance its faces must explain
STEP_MM, STEP_DEG, REFINE_ROUNDS = 1.0, 3.0, 4
HALF = 0.5                 # a white piece's pixel counts for it at half its bright faces' level
EDGE_CUT = 0.3             # a coloured piece's edge: where its contrast falls to this share of its
                           # inside's (a translucent piece's faces turned from the light keep a third)
WHOLE_IOU = 0.8            # a blob one piece fits this well is not split by colour
COLOURED_SHARE = 0.08       # share of coloured pixels that makes a piece coloured, not pale
OVERLAP_SHARE = 0.3        # pieces of a split may share this much of the smaller silhouette
NECK = 7.0                 # mm: a blob thinner than this somewhere may be pieces touching there
SPLIT_IOU = 0.82           # a fit worse than this may be two touching pieces
SPLIT_AREA = 140.0         # mm^2 of one colour inside a blob of another to count as a piece
RIM_PX, RIM_SHARE = 5, 0.25  # ... of which this share is left after an erosion of this many px
MAX_PIECES_PER_BLOB = 4    # touching pieces of one colour explained one after another
REFIT_GAIN = 30.0          # mm^2 of cover error a piece fitted again must save to replace its fit
REFIT_ROUNDS = 2           # ... in this many passes over the pieces at most
PALE = ("white", "clear")
ISLAND_COLOURS = ("black", "white")   # Ice Pirates: the opaque stashes the islands are nests of
ISLAND = ((3,), ("standing",))         # ... standing under a large: (sizes, poses)
HYPOTHESES = tuple((pose, size) for size in (1, 2, 3) for pose in ("standing", "lying"))
# A white pyramid's faces turned from the light look like the table (or darker, on light card):
# only the lit faces may show. Standing: one face (base corners 0, 1 and the apex) or two
# (corners 0, 1, 2). Lying (corners 0, 1 on the table, 2, 3 raised, 4 the tip): the upper face
# and the side face over corner 0 or 1, or the base face alone (on a light card the rest looks
# like the card), or on a light card the upper face alone (its sides as dark as the card or
# darker). Tried for white blobs no whole pyramid fits well (on a light card, for all).
LIT_FACES = {"lit1": ("standing", (0, 1, 4)), "lit2": ("standing", (0, 1, 2, 4)),
             "side0": ("lying", (0, 2, 3, 4)), "side1": ("lying", (1, 2, 3, 4)),
             "base": ("lying", (0, 1, 2, 3)), "upper": ("lying", (2, 3, 4))}
CARD_ONLY_FACES = ("upper",)
LIT_POSES = {whole: tuple(pose for pose, (of, _) in LIT_FACES.items() if of == whole)
             for whole in ("standing", "lying")}
PARTLY_LIT = {card: tuple(tuple((pose, size) for size in (1, 2, 3) for pose in poses
                                if card or pose not in CARD_ONLY_FACES)
                          for poses in LIT_POSES.values())    # each group refines its own best few
              for card in (False, True)}
WHITE_FLOOR = 0.03           # log brightness over the table below which a pixel may be table
SHADE = 0.04                # ... and under the table beyond which it is a shadow or an unlit face
PARTLY_LIT_IOU = 0.75       # ... when nothing tried before overlaps a white blob this well
LIT_GAP = 0.35              # ... and kept, beating a whole one, unless the whole one's faces explain
                            # this much more of the brightness (`_lit_or_whole`)
BASE_GAP = 0.4              # a base face's body side by its faces' shading when they differ this much
AREA_RATIO = (0.5, 2.0)     # a hypothesis is tried when its area over the blob's is within this
BASE_AREA_LOW = 0.35        # ... or from this up for a base face alone: a thin strip, which the
                            # blurred rim widens more than a whole piece
CLIPPED = 250               # a channel this bright may be clipped (the face is brighter than shown)
CLIPPED_SHARE = 0.2         # a white part with this share of its bright pixels clipped has its
CLIPPED_EDGE = 0.7          # ... edge this far up to its faces' median level, not half way
YAWS = (0.0, 15.0, 30.0, 45.0, 60.0, 75.0)    # a standing piece's turns (its square repeats every 90)
_STARTS = {"standing": YAWS, **{pose: tuple(range(0, 360, 30)) for pose in LIT_POSES["standing"]}}
RIDGE = 0.04               # log brightness above the 5 px local mean: a bright edge line
EDGE_WEIGHT = 2.0          # a clear hypothesis' score: IoU plus this times its edges' mean ridge
                           # height, each edge weighted by the faces toward the camera it bounds
EDGES = ((0, 1), (1, 2), (2, 3), (3, 0), (0, 4), (1, 4), (2, 4), (3, 4))   # base square, apex (tip)
FACES = {"standing": ((0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)),     # all wound one way seen
         "lying": ((1, 2, 4), (2, 3, 4), (3, 0, 4), (3, 2, 1, 0))}     # from outside
GAP = 9.0                  # mm: a clear outline's gaps this wide are closed to find the holes in it
HOLE = 10.0                # mm^2: smaller holes in a clear outline are noise, not a face seen through
SOLID = 0.9                # share of its convex hull a clear part filled in must cover (one piece)
OPEN_HULL = 1.3            # a clear part whose convex hull is this many times its area is an open outline
TABLE_LEVEL = 0.06         # log brightness over the table below which a pixel shows the table
CLEAR_SCORE = 0.46         # ridge share + table-level share + brightness spread: above, clear
PALE_MARGIN = 0.1          # ... and this far from it for one of several touching pale pieces
LIT_DOUBT = 0.16           # ... within this under it, a white part read as lit faces alone may be clear,
CLEAR_WHOLE_IOU = 0.85     # ... as it is when one clear piece fits all of it this well, or
CLEAR_NEAR_IOU = 0.75      # ... less the nearer the bar its score is (this well at the bar)
CLEAR_POOR_IOU = 0.7       # a part read clear that no one clear piece fits this well may be white:
WHITE_FIT_IOU = 0.45       # ... it is when one white piece fits it this well
WHITE_BEHIND = 0.1         # ... and at most this much worse than the clear piece
OPAQUE_SHARE = {"standing": 0.6, "lying": 0.7}   # a part read as one clear piece whose faces
                           # explain this share of its brightness (`Shading`; standing, at the
                           # best yaw) is white
OPAQUE_YAW_STEP = 3.0      # degrees between the yaws tried
UNLINED = 0.025            # in Ice Pirates' sea, one clear piece standing whose seen edges are
                           # lines this faint (mean `_ridges`, at the best yaw) is a white island
# On a light card a white piece's faces differ less from what is around them, so it looks
# clearer (white treasure scored up to 0.57 on the rendered homes, clear pieces 0.64 and more).
CARD_CLEAR_SCORE = 0.62
REFIT_GROWTH = 3          # px beyond a piece's silhouette whose blob pixels its fit again may take
REFIT_BUDGET = 2          # pieces a piece read as another colour may be fitted again as (two touching ships)
CARD_MIN_IOU = 0.55        # a piece on a card fitting its part worse is the card's print or shading


@dataclass(frozen=True)
class Known:
    """What is known of a blob's pieces before fitting: `level` (brightness over the table, for
    white pieces: faint faces count as evidence), `shaded` (pixels a clear piece may cover that
    count neither for nor against it) and `ridges` (for clear pieces, whose edges show as bright
    lines: `_ridges`), the sizes and poses they can have, whether they lie on a light card
    (`card`), and for white and coloured pieces `brightness` (over the table: the faces of the
    pose they are in explain it, `_turned_over`)."""

    level: np.ndarray | None = None
    shaded: np.ndarray | None = None
    ridges: np.ndarray | None = None
    sizes: tuple = (1, 2, 3)
    poses: tuple = ("standing", "lying")
    card: bool = False
    brightness: np.ndarray | None = None

    def allows(self, hypothesis: tuple) -> bool:
        pose, size = hypothesis
        return size in self.sizes and whole_pose(pose) in self.poses


@dataclass
class Found:
    """A detected piece: its scene fields and the top-view pixels it explains."""

    fields: dict
    mask: np.ndarray          # uint8 crop
    box: tuple[int, int]      # crop offset (col, row) in the top view
    iou: float
    lit: bool = False         # only its lit faces were fitted (a white piece's others unseen)


def pasted(mask: np.ndarray, found: list[Found], value: int) -> np.ndarray:
    """A copy of `mask` (uint8, the top view's) set to `value` on the pixels of the pieces `found`."""
    out = mask.copy()
    for item in found:
        x0, y0 = item.box
        h, w = item.mask.shape
        out[y0:y0 + h, x0:x0 + w][item.mask > 0] = value
    return out


def _moments(poly: np.ndarray) -> tuple[float, np.ndarray, float]:
    """Area, centroid and axis angle (degrees, mod 180) of a polygon or point set."""
    m = cv2.moments(poly.astype(np.float32))
    area = abs(m["m00"]) or 1e-9
    c = np.array([m["m10"] / m["m00"], m["m01"] / m["m00"]]) if m["m00"] else poly.mean(axis=0)
    return area, c, 0.5 * math.degrees(math.atan2(2 * m["mu11"], m["mu20"] - m["mu02"]))


def _placed(projection: tuple, a: float, b: float, angle: float) -> np.ndarray:
    """A pyramid's vertices turned by `angle`, moved to (a, b) and projected from the camera
    onto the table: (xy rotated + (a, b)) * scale - shift, in the units of `projection` (whose
    xy carry a third coordinate 1, so that one product turns and moves them)."""
    xy1, scale, shift = projection
    r = math.radians(angle)
    c, s = math.cos(r), math.sin(r)
    return (xy1 @ np.array(((c, s), (-s, c), (a, b)))) * scale - shift


def whole_pose(pose: str) -> str:
    """'standing' or 'lying': the pose of a hypothesis of which only some faces show."""
    return LIT_FACES[pose][0] if pose in LIT_FACES else pose


def _wrap90(a: float) -> float:
    return (a + 90.0) % 180.0 - 90.0


class PyramidFitter:
    """Silhouette fitting for one top view."""

    def __init__(self, view: TopView, dims: Dimensions = DEFAULT):
        self.view, self.dims = view, dims
        self.local = {}   # (pose, size) -> vertices at the origin, angle 0
        for size in (1, 2, 3):
            base, height = dims.looney_base[size], dims.looney_height[size]
            standing = standing_pyramid(0.0, 0.0, base, height).vertices
            self.local["standing", size] = standing
            self.local["lying", size] = lying_pyramid(0.0, 0.0, 0.0, base, height).vertices
            for pose, (whole, corners) in LIT_FACES.items():     # only the faces toward the light show
                self.local[pose, size] = self.local[whole, size][list(corners)]
        # a vertex at height z lands on the table at p * (1 + t) - t * camera, t = z / (cz - z)
        cx, cy, cz = view.camera
        self._projection, self._in_pixels = {}, {}
        px = (1 << SUB) / view.mm_per_px     # fixed-point top-view pixels per mm
        for key, v in self.local.items():
            t = (v[:, 2] / (cz - v[:, 2]))[:, None]
            xy1, scale, shift = np.column_stack((v[:, :2], np.ones(len(v)))), 1 + t, t * np.array([cx, cy])
            self._projection[key] = (xy1, scale, shift)
            # to_pixels folded in: ((p - origin) / mm_per_px - 0.5) * 2 ** SUB
            self._in_pixels[key] = (xy1, scale * px, (shift + view.origin) * px + (1 << SUB) / 2)

    def silhouette(self, pose: str, size: int, a: float, b: float, angle: float) -> np.ndarray:
        """The table-plane outline (mm) of a pyramid seen from the camera: standing at base
        centre (a, b) with yaw `angle`, or lying with its tip at (a, b) pointing along `angle`.
        Each vertex is projected from the camera centre onto the table."""
        pts = _placed(self._projection[pose, size], a, b, angle)
        return cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)

    def outline(self, pose: str, size: int, a: float, b: float, angle: float, box) -> np.ndarray:
        """The silhouette in fixed-point (SUB bits) pixels of the top-view crop at `box`, as
        `cv2.fillConvexPoly` takes it."""
        return cv2.convexHull(self.in_crop(pose, size, (a, b, angle), box))

    def edges(self, pose: str, size: int, params: tuple, box, shape: tuple) -> np.ndarray:
        """The lines a whole pyramid's eight edges cast on a top-view crop of `shape` at `box`,
        one pixel wide, uint8 0/1."""
        pts = self.in_crop(pose, size, params, box)
        lines = np.zeros(shape, np.uint8)
        for i, j in EDGES:
            cv2.line(lines, tuple(pts[i]), tuple(pts[j]), 1, 1, cv2.LINE_8, SUB)
        return lines

    def seen_edges(self, pose: str, size: int, params: tuple, box, shape: tuple) -> np.ndarray:
        """Like `edges`, each line valued by how many faces turned toward the camera it bounds
        (0 to 2, uint8): clear plastic lights an edge where light leaves a face toward the
        camera, so an edge between two faces turned away hardly shows."""
        pts = self.in_crop(pose, size, params, box)
        seen = dict.fromkeys(EDGES, 0)
        for face in FACES[pose]:
            if _toward(pts[list(face)]):
                for k, i in enumerate(face):
                    j = face[(k + 1) % len(face)]
                    seen[(i, j) if (i, j) in seen else (j, i)] += 1
        lines = np.zeros(shape, np.uint8)
        for (i, j), count in seen.items():
            if count:
                cv2.line(lines, tuple(pts[i]), tuple(pts[j]), count, 1, cv2.LINE_8, SUB)
        return lines

    def faces(self, pose: str, size: int, params: tuple, box, shape: tuple) -> np.ndarray:
        """A whole pyramid's faces turned toward the camera on a top-view crop of `shape` at
        `box`, numbered 1.. (0 elsewhere), uint8."""
        pts = self.in_crop(pose, size, params, box)
        regions = np.zeros(shape, np.uint8)
        for k, face in enumerate(FACES[pose]):
            corners = pts[list(face)]
            if _toward(corners):
                cv2.fillConvexPoly(regions, corners, k + 1, cv2.LINE_8, SUB)
        return regions

    def in_crop(self, pose: str, size: int, params: tuple, box) -> np.ndarray:
        """A hypothesis' projected vertices in fixed-point pixels of the crop at `box`, int32."""
        pts = _placed(self._in_pixels[pose, size], *params) - np.multiply(box, 1 << SUB)
        return np.round(pts).astype(np.int32)

    def fit(self, pose: str, size: int, blob_c: np.ndarray, blob_axis: float, start: float,
            iterations: int = 3) -> tuple[float, float, float]:
        """Position and angle that align the silhouette's centroid (and axis, lying) with the blob's."""
        lying = whole_pose(pose) == "lying"
        if not lying:
            a, b, angle = blob_c[0], blob_c[1], start
        else:
            u = np.array([math.cos(math.radians(start)), math.sin(math.radians(start))])
            a, b = blob_c + u * self.dims.looney_lying_length[size] * 2 / 3
            angle = start
        for _ in range(iterations):
            _, c, axis = _moments(self.silhouette(pose, size, a, b, angle))
            if lying:
                turn = _wrap90(blob_axis - axis)
                angle += turn
                rad = math.radians(turn)
                d = np.array([a, b]) - c
                d = np.array([d[0] * math.cos(rad) - d[1] * math.sin(rad),
                              d[0] * math.sin(rad) + d[1] * math.cos(rad)])
                a, b = c + d
            a, b = a + blob_c[0] - c[0], b + blob_c[1] - c[1]
        return float(a), float(b), float(angle % 360)


class PyramidClassifier:
    """The `pyramid` detector of the pipeline (Looney pyramids)."""

    type = "pyramid"

    def __init__(self, dims: Dimensions = DEFAULT):
        self.dims = dims

    def detect(self, view: TopView, seg: Segmentation, profile: ColorProfile, game: str = "",
               on_card: bool = False, treasure: tuple = ()) -> list[Found]:
        """The Looney pyramids in a segmented top view; `game` brings its priors (`game_rules`).
        `on_card`: the blobs lie on a light card (`CARD_CLEAR_SCORE`, `CARD_MIN_IOU`);
        `treasure`: colours whose pieces on the card are treasure, small or medium."""
        colour_names = profile.names
        priors = Priors(game_rules(game, treasure), on_card)
        fitter = PyramidFitter(view, self.dims)
        s2 = view.mm_per_px ** 2
        pale = [colour_names.index(c) for c in PALE if c in colour_names]
        out: list[Found] = []
        h, w = seg.labels.shape
        for index in range(1, len(seg.stats)):
            small = seg.stats[index, cv2.CC_STAT_AREA] * s2 < MIN_AREA
            if small and (priors.card or not priors.white_free):   # a card has its own faint search
                continue
            y0, y1, x0, x1 = _crop(seg.stats[index], FRAGMENT_MARGIN if small else MARGIN, (h, w))
            blob = (seg.labels[y0:y1, x0:x1] == index).astype(np.uint8)
            colours = pale_as_one(seg.colours[y0:y1, x0:x1], colour_names)
            features = seg.features[y0:y1, x0:x1]
            faces = seg.faces[y0:y1, x0:x1]
            if small:
                out += self._fragment(fitter, blob, (x0, y0), colours, features, priors, faces, pale,
                                      len(colour_names))
                continue
            for part, colour, share in self._parts(fitter, blob, (x0, y0), colours, len(colour_names),
                                                   SPLIT_AREA / s2, pale):
                name = colour_names[colour]
                if name not in PALE or len(pale) < 2:
                    out += self._explain_as(fitter, part, (x0, y0), name, share, features, priors)
                else:
                    out += self._explain_pale(fitter, part, (x0, y0), share, features, priors, faces)
        return [f for f in out if f.iou >= CARD_MIN_IOU] if on_card else out

    def again_as(self, view: TopView, seg: Segmentation, item: Found, colour: str, game: str) -> list[Found]:
        """A piece another reader (the colour network) reads as `colour`, fitted again as that
        colour to the blob pixels near its silhouette, of the sizes and poses the rules allow it:
        fitted as another colour, it had that colour's rules (an Ice Pirates island is a standing
        large), not its own."""
        x0, y0 = item.box
        hh, ww = item.mask.shape
        labels = seg.labels[y0:y0 + hh, x0:x0 + ww]
        under = np.unique(labels[item.mask > 0])
        near = cv2.dilate(item.mask, np.ones((2 * REFIT_GROWTH + 1,) * 2, np.uint8)) > 0
        part = (np.isin(labels, under[under > 0]) & near).astype(np.uint8)
        fitter = PyramidFitter(view, self.dims)
        return self._explain_as(fitter, part, item.box, colour, 1.0, seg.features[y0:y0 + hh, x0:x0 + ww],
                                Priors(game_rules(game, ())), REFIT_BUDGET)

    def _fragment(self, fitter: PyramidFitter, blob: np.ndarray, box, colours: np.ndarray,
                  features: np.ndarray, priors: "Priors", faces: np.ndarray, pale: list,
                  n_colours: int) -> list[Found]:
        """A blob too small for a piece (MIN_AREA), off the cards: when pale and beside faint
        faces, it may be the one face of a white piece on a cloth of nearly its shade that stood
        out, the rest of it the faces (`_with_faces`, at FRAGMENT_IOU: a fragment's outline is
        rougher). Faces beside it are looked for first: most such blobs are noise, and the
        test is far cheaper than `_with_faces`' labelling."""
        if not faces[cv2.dilate(blob, np.ones((5, 5), np.uint8)) > 0].any():
            return []
        _, colour, share = _dominant(blob, colours, n_colours, pale)
        if colour not in pale:
            return []
        return self._with_faces(fitter, blob, box, share, features, priors, faces, FRAGMENT_IOU)

    def _explain_pale(self, fitter: PyramidFitter, part: np.ndarray, box, share: float,
                      features: np.ndarray, priors: "Priors", faces: np.ndarray) -> list[Found]:
        """Pale pieces (white or clear, which pixel colours do not tell apart) explaining a part,
        named from the part's look:
        - a part with faint faces beside it may be one white piece's lit face or fragment
          (`_with_faces`; in Ice Pirates' sea, only a clear-looking part, an island's);
        - a part read as one clear piece whose faces explain most of its brightness (`_opaque`)
          is white where the rules allow: evenly lit faces are opaque ones; so is, in Ice
          Pirates' sea, one clear piece standing whose edges cast no bright lines (`_unlined`)
          when one white piece (an island) fits the part;
        - a part read as one white piece's lit faces alone, and not far from looking clear
          (`LIT_DOUBT`), is clear if one clear piece fits all of it well enough
          (`_clear_fit_needed`; a small clear one lying looks like a large white one's lit face);
        - a part read clear that no clear piece fits well (`_fits_poorly`) is white when one
          white piece fits it (`WHITE_FIT_IOU`, not `WHITE_BEHIND` worse): a white piece on a
          cloth of nearly its shade, seen from above, shows its lit face and its other faces at
          the cloth's level, as a clear one does. Not where the rules bind white (islands,
          treasure): there a clear ship would be taken for an island;
        - when several pieces touch, each is named from the pixels it covers where they clearly
          say so (a clear piece touching a white one) and, named otherwise than the part,
          fitted again as its own colour."""
        footprint = self.dims.looney_base[2] ** 2 / fitter.view.mm_per_px ** 2   # px
        clear_above = priors.clear_above

        def footprints(mask):
            return np.count_nonzero(mask) / footprint

        score = _clear_score(features, part, footprints(part))
        name = _pale_name(score, clear_above)
        joined = self._with_faces(fitter, part, box, share, features, priors, faces) \
            if (name == "clear" and priors.islands) or priors.white_free else []
        if joined:
            return joined
        found = self._explain_as(fitter, part, box, name, share, features, priors)
        clear_off_card = name == "clear" and not priors.card
        opaque = clear_off_card and _opaque(fitter, part, box, features, found, priors)
        if opaque or (clear_off_card and _unlined(fitter, part, box, features, found, priors)):
            white = self._explain_as(fitter, part, box, "white", share, features, priors)
            if len(white) == 1:
                return white
            if opaque:
                return [replace(found[0], fields={**found[0].fields, "color": "white"})]
        if name == "clear" and priors.white_free and _fits_poorly(found):
            white = self._explain_as(fitter, part, box, "white", share, features, priors)
            best = found[0].iou if found else 0.0
            if len(white) == 1 and white[0].iou >= max(WHITE_FIT_IOU, best - WHITE_BEHIND):
                return white
        if len(found) == 1 and found[0].lit and score > clear_above - LIT_DOUBT:
            clear = self._explain_as(fitter, part, box, "clear", share, features, priors)
            if len(clear) == 1 and clear[0].iou >= _clear_fit_needed(score, clear_above):
                return clear
        if len(found) < 2:
            return found
        own = [part & piece.mask for piece in found]
        names = [_pale_name(_clear_score(features, pixels, footprints(piece.mask)), clear_above, name)
                 if np.count_nonzero(pixels) else name for piece, pixels in zip(found, own)]
        if all(n == name for n in names):
            return found
        out = []
        for piece, pixels, each in zip(found, own, names):
            again = self._explain_as(fitter, pixels, box, each, share, features, priors, budget=1) \
                if each != name else []
            out += again or [piece]
        return out

    def _with_faces(self, fitter: PyramidFitter, part: np.ndarray, box, share: float,
                    features: np.ndarray, priors: "Priors", faces: np.ndarray,
                    enough: float = WHOLE_IOU) -> list[Found]:
        """A white piece of which only a lit face or a fragment stood out, and the rest of it is
        the faint `faces` beside the part: the piece when one white piece fits the part and
        those faces together at `enough` or better, else []. An island's lit face looks clear
        (the cloth shows beside its bright edges); a white piece on a cloth of nearly its
        shade shows a fragment of one face, named either way."""
        _, labels = cv2.connectedComponents(faces, connectivity=8)
        beside = np.unique(labels[cv2.dilate(part, np.ones((5, 5), np.uint8)) > 0])
        beside = beside[beside > 0]
        if not len(beside):
            return []
        whole = part | np.isin(labels, beside).astype(np.uint8)
        island = self._explain_as(fitter, whole, box, "white", share, features, priors, budget=1)
        return island if len(island) == 1 and island[0].iou >= enough else []

    def _explain_as(self, fitter: PyramidFitter, part: np.ndarray, box, name: str, share: float,
                    features: np.ndarray, priors: "Priors",
                    budget: int = MAX_PIECES_PER_BLOB) -> list[Found]:
        """Pieces of colour `name` explaining a part, its outline trimmed as that colour's edges
        need (a clear one's holes filled first), of the sizes and poses `priors` allow."""
        if name == "clear":   # its bright edge lines bleed outward by about a pixel
            part = cv2.erode(_see_through(part, features, fitter.view.mm_per_px), np.ones((3, 3), np.uint8))
        elif name != "white":
            part = _cut_rim(part, features)
        level = level_of(features)
        shaded, ridges = (_shaded(level), _ridges(level)) if name == "clear" else (None, None)
        known = priors.known(name, level if name == "white" else None, shaded, ridges)
        if name != "clear":
            known = replace(known, brightness=level)
        whole = self._open_outline(fitter, part, box, share, known) if name == "clear" else []
        return whole or self._explain(fitter, part, box, name, share, known, budget)

    def _open_outline(self, fitter: PyramidFitter, part: np.ndarray, box, share: float,
                      known: "Known") -> list[Found]:
        """A clear piece seen as an open outline: bright edges, one too faint to show, round
        faces that look like the table (`_see_through` closes narrow gaps only), so the part
        fits a smaller piece. When the part's convex hull is over OPEN_HULL times its area, the
        one clear piece fitting the hull at WHOLE_IOU or better, else []."""
        if not part.any():
            return []
        hull = _filled_hull(part)
        if np.count_nonzero(hull) <= OPEN_HULL * np.count_nonzero(part):
            return []
        one = self._explain(fitter, hull, box, "clear", share, replace(known, ridges=None), 1)  # an edge missing
        return one if len(one) == 1 and one[0].iou >= WHOLE_IOU else []

    def _parts(self, fitter: PyramidFitter, blob: np.ndarray, box, colours: np.ndarray, n_colours: int,
               min_px: float, pale: list) -> list:
        """The blob's pieces by colour, (mask, colour index, share): the blob whole in its
        dominant colour when one piece fits it well (`WHOLE_IOU`), else split by pixel colour.
        The fit is skipped when both ways give the same."""
        whole = _dominant(blob, colours, n_colours, pale)
        parts = list(_colour_parts(blob, colours, n_colours, min_px, pale))
        if len(parts) == 1 and parts[0][1] == whole[1]:
            return parts
        fit = self._best(fitter, blob, box)
        return [whole] if fit is not None and fit[2] >= WHOLE_IOU else parts

    def _explain(self, fitter: PyramidFitter, blob: np.ndarray, box, colour: str, share: float,
                 known: "Known", budget: int = MAX_PIECES_PER_BLOB) -> list[Found]:
        """Pieces of one colour explaining a blob (touching pieces included, up to `budget`):
        fitted one by one, and when that finds several or one that fits poorly (and they may
        lie, and are not white, whose unlit faces the blob lacks), chosen again all together,
        no more of them than before (two for one that fits poorly: two pieces side by side may
        fit no split by position, and one piece across both then fits best alone), and then
        improved piece by piece (`_refit`). One clear piece has its size and pose chosen again
        by where its edges lie too (`_best` with `edges`): a blurred outline bleeds outward, and
        a small standing and a small lying, or a medium lying and a large, cover it about as
        well, but their edges differ."""
        found = []
        pieces = self._pieces(fitter, blob, box, budget, known)
        if pieces and (len(pieces) > 1 or pieces[0][2] < SPLIT_IOU) and "lying" in known.poses \
                and known.level is None:
            pieces = self._together(fitter, blob, box, known, pieces, budget)
        if len(pieces) == 1 and known.ridges is not None:    # one clear piece: its edges tell what it is
            edged = self._best(fitter, blob, box, known, edges=True)
            if edged is not None and _kind(edged) != _kind(pieces[0]):
                pieces = [edged]
        for fields, mask, iou, lit in pieces:
            fields["color"] = colour
            fields["confidence"] = round(float(np.clip((iou - 0.45) / 0.4, 0.05, 1.0) * min(1.0, share + 0.2)), 2)
            found.append(Found(fields, mask, box, iou, lit))
        return found

    def _pieces(self, fitter: PyramidFitter, blob: np.ndarray, box, budget: int, known: "Known") -> list:
        """Fit the best piece; if it explains the blob poorly, try the blob as several pieces
        (cut at its thin necks, where a lying piece's tip touches another piece, or in two by
        k-means on pixel positions); then fit what is left, up to `budget` pieces."""
        min_px = MIN_AREA / fitter.view.mm_per_px ** 2
        if budget < 1 or np.count_nonzero(blob) < min_px:
            return []
        best = self._best(fitter, blob, box, known)
        poor = best is None or best[2] < SPLIT_IOU
        if poor and budget > 1 and np.count_nonzero(blob) > 2.5 * min_px:
            split, worst = None, -1.0 if best is None else best[2]
            for parts in (_neck_parts(blob, NECK / fitter.view.mm_per_px, min_px), _halves(blob),
                          self._end_split(fitter, blob, box) if "lying" in known.poses else []):
                fits = [self._best(fitter, part, box, known) for part in parts]
                if len(parts) > 1 and all(fits) and min(f[2] for f in fits) > worst \
                        and not _overlapping([f[1] for f in fits]):
                    split, worst = parts, min(f[2] for f in fits)
            if split is not None:
                out = []
                for part in split:
                    out += self._pieces(fitter, part, box, budget - 1 - len(out), known)
                return out
        if best is None:
            return []
        left = cv2.morphologyEx(blob & (1 - cv2.dilate(best[1], np.ones((5, 5), np.uint8))),
                                cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        return [best] + self._pieces(fitter, left, box, budget - 1, known)

    def _together(self, fitter: PyramidFitter, blob: np.ndarray, box, known: "Known", pieces: list,
                  budget: int) -> list:
        """The blob's pieces chosen all together (`clusters`) from the pieces found one by one
        and lying pieces with their tips at the outline's sharp corners, each then moved to fit
        beside the others; kept when they explain the blob clearly better than `pieces`. Either way
        they are then improved piece by piece (`_refit`)."""
        view = fitter.view
        neutral = known.shaded
        if neutral is not None:      # a clear piece's base face may be a hole in its blob
            neutral = neutral | (_filled_hull(blob) & (1 - blob))
        cover = clusters.Cover(blob, neutral, clusters.PIECE_COST / view.mm_per_px ** 2)

        def lying(size, params):
            return silhouette_mask(fitter, blob, box, "lying", size, params)

        candidates = [(piece[1], None, piece) for piece in pieces]
        for (col, row), heading in clusters.tips(blob, clusters.TIP_ARM / view.mm_per_px):
            x, y = view.to_table(col + box[0], row + box[1])
            for size in known.sizes:
                for turn in clusters.TIP_TURNS:
                    params = (float(x), float(y), (heading + turn) % 360)
                    candidates.append((lying(size, params), (size, params), None))
        enough = cover.error([piece[1] for piece in pieces]) - clusters.MARGIN * np.count_nonzero(blob)
        sets = [picked for picked, error in clusters.choose(cover, [c[0] for c in candidates],
                                                            min(budget, max(len(pieces), 2)), clusters.RIVAL_SETS)
                if error < enough]
        if not sets:
            return self._refit(fitter, blob, box, known, cover, pieces, budget)
        chosen = min((_moved_to_fit(cover, [candidates[k] for k in picked], lying) for picked in sets),
                     key=lambda placed: cover.error([c[0] for c in placed]))
        union = np.any([c[0] for c in chosen], axis=0)
        iou = np.count_nonzero(union & (blob > 0)) / np.count_nonzero(union | (blob > 0))
        return self._refit(fitter, blob, box, known, cover,
                           [piece if piece is not None else (piece_fields("lying", *placed), mask, iou, False)
                            for mask, placed, piece in chosen], budget)

    def _refit(self, fitter: PyramidFitter, blob: np.ndarray, box, known: "Known",
               cover: clusters.Cover, pieces: list, budget: int) -> list:
        """The pieces improved by moves that each explain the blob clearly better (`REFIT_GAIN`):
        each piece fitted again, alone, to what the others leave (a piece fitted while another's
        pixels were in its way may have the wrong size or pose); one piece dropped and the rest
        fitted again (two pieces read as three); one more fitted to what they all leave, up to
        `budget` pieces."""
        gain = REFIT_GAIN / fitter.view.mm_per_px ** 2

        def error(trial):
            return cover.error([piece[1] for piece in trial])

        pieces = list(pieces)
        for _ in range(REFIT_ROUNDS):
            before = error(pieces)
            pieces = self._fit_each_again(fitter, blob, box, known, cover, pieces, gain)
            fewer = (self._fit_each_again(fitter, blob, box, known, cover, pieces[:i] + pieces[i + 1:], gain)
                     for i in range(len(pieces)) if len(pieces) > 1)
            pieces = next((trial for trial in fewer if error(trial) < error(pieces) - gain), pieces)
            more = self._one_more(fitter, blob, box, known, pieces, budget)
            if error(more) < error(pieces) - gain:
                pieces = more
            if error(pieces) >= before:
                break
        return pieces

    def _fit_each_again(self, fitter: PyramidFitter, blob: np.ndarray, box, known: "Known",
                        cover: clusters.Cover, pieces: list, gain: float) -> list:
        """Each piece in turn replaced by its fit to what the others leave, where that lowers
        the cover error by more than `gain` px."""
        pieces = list(pieces)
        for i, piece in enumerate(pieces):
            others = pieces[:i] + pieces[i + 1:]
            fit = self._fit_rest(fitter, blob, box, known, others)
            masks = [other[1] for other in others]
            if fit is not None and cover.error(masks + [fit[1]]) < cover.error(masks + [piece[1]]) - gain:
                pieces[i] = fit
        return pieces

    def _one_more(self, fitter: PyramidFitter, blob: np.ndarray, box, known: "Known", pieces: list,
                  budget: int) -> list:
        """The pieces and one more fitted to what they leave (the pieces alone when `budget`
        allows no more or none fits)."""
        more = self._fit_rest(fitter, blob, box, known, pieces) if len(pieces) < budget else None
        return pieces if more is None else pieces + [more]

    def _fit_rest(self, fitter: PyramidFitter, blob: np.ndarray, box, known: "Known", others: list):
        """The best piece for the blob's pixels that `others` do not cover, or None when too
        few are left."""
        if others:
            blob = blob & (1 - np.any([other[1] for other in others], axis=0)).astype(np.uint8)
        rest = cv2.morphologyEx(blob, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        if np.count_nonzero(rest) < MIN_AREA / fitter.view.mm_per_px ** 2:
            return None
        return self._best(fitter, rest, box, known)

    def _end_split(self, fitter: PyramidFitter, blob: np.ndarray, box) -> list[np.ndarray]:
        """The blob as a lying piece at the blob's farthest point in some direction (8 directions
        from its long axis), its tip there pointing out or its base there pointing in, and the
        rest: two lying pieces side by side, or a lying piece's tip touching another piece, make
        one blob whose seam no cut by position follows. The piece is placed to lie inside the
        blob."""
        view = fitter.view
        rows, cols = np.nonzero(blob)
        pts = np.stack(view.to_table(cols + box[0], rows + box[1]), axis=1)
        axis = _moments_of_points(pts)[2]

        def inside(pose, size, params):
            mask = silhouette_mask(fitter, blob, box, pose, size, params)
            return float(np.count_nonzero(mask & blob) - 2 * np.count_nonzero(mask & (1 - blob)))

        starts = []
        for heading in axis + np.arange(0.0, 360.0, 45.0):
            u = np.array([math.cos(math.radians(heading)), math.sin(math.radians(heading))])
            end = pts[int(np.argmax(pts @ u))]
            for size in (1, 2, 3):
                back = end - u * self.dims.looney_lying_length[size]
                for params in ((end[0], end[1], heading % 360), (back[0], back[1], (heading + 180) % 360)):
                    starts.append((inside("lying", size, params), "lying", size, params))
        starts.sort(key=lambda c: -c[0])
        best = max((refine(inside, *c) for c in starts[:RIVALS]), key=lambda c: c[0])
        mask = silhouette_mask(fitter, blob, box, "lying", best[2], best[3])
        rest = blob & (1 - cv2.dilate(mask, np.ones((3, 3), np.uint8)))
        return [blob & mask, cv2.morphologyEx(rest, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))]

    def _best(self, fitter: PyramidFitter, blob: np.ndarray, box, known: "Known" = None, edges: bool = False):
        """The best hypothesis for the biggest component of `blob`, or None; (fields, mask, iou,
        lit: whether only its lit faces were fitted).
        Hypotheses (of the sizes `known` allows) are ranked by overlap with the blob, with
        `edges` (a clear piece, `known.ridges` given) plus how bright the lines its edges cast
        are (by the faces turned toward the camera they bound: `seen_edges`), or for a white
        piece (`known.level` given) by the brightness over the table they cover (`_votes`),
        and pyramids of which only the lit faces show are tried too: off a card
        each group (standing, lying) only while nothing tried before fits well, on a card
        always (a lying piece's upper face passes for a whole smaller one, or for a standing
        one's lit faces), and kept unless the whole one's faces explain far more of the
        brightness (`_lit_or_whole`). A base face alone looks the same with the body on either
        side of it: the side whose pixels say more for a whole piece wins, unless the faces of
        one side explain far more of the brightness (`_base_side`)."""
        known = known or Known()
        level = known.level
        n, labels, stats, _ = cv2.connectedComponentsWithStats(blob, connectivity=8)
        if n < 2:
            return None
        biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        part = (labels == biggest).astype(np.uint8)
        view = fitter.view
        rows, cols = np.nonzero(part)
        tx, ty = view.to_table(cols + box[0], rows + box[1])
        pts = np.stack([tx, ty], axis=1)
        blob_area = len(pts) * view.mm_per_px ** 2
        _, blob_c, blob_axis = _moments_of_points(pts)

        def overlap(pose, size, params):
            return self._iou(fitter, part, box, pose, size, params, known.shaded)[0]

        pixels = view.image[box[1]:box[1] + part.shape[0], box[0]:box[0] + part.shape[1]]
        votes = None if level is None else _votes(level, part, pixels)

        def evidence(pose, size, params):
            return float((silhouette_mask(fitter, part, box, pose, size, params) * votes).sum())

        def outlined(pose, size, params):
            return overlap(pose, size, params) + EDGE_WEIGHT * _lines(fitter, known.ridges, pose, size, params, box)

        score = outlined if edges else overlap if level is None else evidence
        args = (fitter, blob_area, blob_c, blob_axis, score)
        ranked = _ranked([h for h in HYPOTHESES if known.allows(h)], *args)
        found = _settled(ranked, score)
        if known.brightness is not None and found is not None:
            found = _turned_over(found, ranked, score, fitter, box, known.brightness, part)
        whole = found
        for group in PARTLY_LIT[known.card] if level is not None else ():
            if not known.card and found is not None and overlap(*found[1:]) >= PARTLY_LIT_IOU:
                break
            lit = _settled(_ranked([h for h in group if known.allows(h)], *args), score)
            if lit is not None and (found is None or lit[0] > found[0]):
                found = lit
        if whole is not None and found is not whole:
            found = _lit_or_whole(found, whole, fitter, box, level, part)
        if found is None:
            return None
        _, hypothesis, size, params = found
        if hypothesis == "base":
            params = _base_side(params, _flipped(fitter, size, params), size, evidence, fitter, box, level, part)
        iou, mask = self._iou(fitter, part, box, hypothesis, size, params, known.shaded)
        pose = whole_pose(hypothesis)
        if hypothesis != pose:       # the piece covers its unlit faces too
            mask = silhouette_mask(fitter, part, box, pose, size, params)
        return piece_fields(pose, size, params), mask, iou, hypothesis != pose

    @staticmethod
    def _iou(fitter: PyramidFitter, blob: np.ndarray, box, pose, size, params,
             neutral: np.ndarray | None = None) -> tuple[float, np.ndarray]:
        """A hypothesis' silhouette and its intersection over union with the blob; `neutral`
        pixels outside the blob are left out of the union."""
        mask = silhouette_mask(fitter, blob, box, pose, size, params)
        inter = np.count_nonzero(mask & blob)
        union = np.count_nonzero(mask | blob)
        if neutral is not None:
            union -= np.count_nonzero(mask & neutral & (1 - blob))
        return (inter / union if union else 0.0), mask


@dataclass(frozen=True)
class Priors:
    """What is known of the pieces in a view before looking: `rules`, {colour: (sizes, poses)}
    the game allows (`game_rules`), and `card`: they lie on a light card."""

    rules: dict
    card: bool = False

    @property
    def islands(self) -> bool:
        """Whether a white pyramid here is an island (Ice Pirates' sea)."""
        return self.rules.get("white") == ISLAND

    @property
    def white_free(self) -> bool:
        """Whether a white pyramid here may be any piece (the rules make it no island, no treasure)."""
        return "white" not in self.rules

    @property
    def clear_above(self) -> float:
        """The `_clear_score` above which a pale part is clear."""
        return CARD_CLEAR_SCORE if self.card else CLEAR_SCORE

    def known(self, name: str, level: np.ndarray | None, shaded: np.ndarray | None,
              ridges: np.ndarray | None = None) -> Known:
        """The `Known` of a part of colour `name`."""
        return Known(level, shaded, ridges, *self.rules.get(name, ()), card=self.card)


def game_rules(game: str, treasure: tuple) -> dict:
    """{colour: (sizes, poses)} the rules allow. Ice Pirates: black and white pyramids in the
    sea are islands, nests standing under a large; on a home, a pyramid of the treasure's colour
    is treasure, a small or a medium ("The Large pieces of that color do not count as
    treasure")."""
    islands = {c: ISLAND for c in ISLAND_COLOURS} if game == "icepirates" else {}
    return {**islands, **{c: ((1, 2),) for c in treasure}}


def pale_as_one(colours: np.ndarray, names) -> np.ndarray:
    """Per-pixel colour indices (into `names`) with clear counted as white: pixel colours do
    not tell them apart."""
    if not all(name in names for name in PALE):
        return colours
    white, clear = (names.index(name) for name in PALE)
    return np.where(colours == clear, white, colours)


def _ranked(hypotheses, fitter, blob_area, blob_c, blob_axis, score) -> list:
    """[(score, pose, size, params)] of `hypotheses` of about the blob's area (`AREA_RATIO`),
    aligned by moments, best first (a standing one at its best yaw only)."""
    scored = []
    for pose, size in hypotheses:
        starts = _starts(pose, blob_axis)
        low = BASE_AREA_LOW if pose == "base" else AREA_RATIO[0]
        roughs = (fitter.fit(pose, size, blob_c, blob_axis, start, iterations=0)
                  for start in (starts if pose == "base" else (blob_axis,)))
        if not any(low < _moments(fitter.silhouette(pose, size, *rough))[0] / blob_area < AREA_RATIO[1]
                   for rough in roughs):
            continue
        tries = [(score(pose, size, params), pose, size, params)
                 for params in (fitter.fit(pose, size, blob_c, blob_axis, start) for start in starts)]
        scored += [max(tries, key=lambda c: c[0])] if pose == "standing" else tries
    return sorted(scored, key=lambda c: -c[0])


def _moved_to_fit(cover: clusters.Cover, chosen: list, lying) -> list:
    """A chosen set's new pieces (`placed` given) each moved, in turn, to fit beside the others."""
    chosen = list(chosen)
    for i, (_, placed, _) in enumerate(chosen):
        if placed is None:
            continue
        others = [c[0] for j, c in enumerate(chosen) if j != i]

        def score(_pose, size, params):
            return -cover.error(others + [lying(size, params)])   # noqa: B023 (used at once)

        _, _, size, params = refine(score, score("lying", *placed), "lying", *placed)
        chosen[i] = (lying(size, params), (size, params), None)
    return chosen


def _starts(pose: str, blob_axis: float) -> tuple:
    """The angles a hypothesis' fits start from. A lying piece's axis runs along the blob's,
    either way; a base face alone lies across it and, leaning back, casts a wide quad when
    turned toward the camera and a thin strip when turned away, so both sides are tried (and
    either may pass the area check)."""
    if pose == "base":
        return blob_axis + 90, blob_axis + 270
    return _STARTS.get(pose, (blob_axis, blob_axis + 180))


def _settled(ranked: list, score):
    """The best of `ranked` once the few close to its head are refined, or None."""
    if not ranked:
        return None
    close = [c for c in ranked[:RIVALS] if c[0] >= ranked[0][0] - RIVAL_GAP * abs(ranked[0][0])]
    return max((refine(score, *c) for c in close), key=lambda c: c[0])


def _turned_over(found: tuple, ranked: list, score, fitter: PyramidFitter, box, level: np.ndarray,
                 part: np.ndarray) -> tuple:
    """A white or coloured piece's best whole hypothesis `found` (score, pose, size, params), or
    the best of its size in the other pose among `ranked` when that scores within TURN_GAP of it
    and its faces explain TURN_SHARE more of the part's brightness `level` (`Shading`): a
    standing piece whose tip leans far from the camera casts the outline of a lying one, and a
    lying one whose tip is lost that of a standing one, but not their faces."""
    other = ("lying" if found[1] == "standing" else "standing", found[2])
    rival = _settled([c for c in ranked if c[1:3] == other], score)
    if rival is None or rival[0] < found[0] - TURN_GAP * abs(found[0]):
        return found
    shading = Shading(level, part > 0)
    seen = [shading.explained(fitter.faces(pose, size, params, box, part.shape))
            for _, pose, size, params in (found, rival)]
    return rival if seen[1] > seen[0] + TURN_SHARE else found


def _lit_or_whole(lit: tuple, whole: tuple, fitter: PyramidFitter, box, level: np.ndarray,
                  part: np.ndarray) -> tuple:
    """Of a white part's best lit-faces hypothesis `lit`, which scored higher, and its best
    whole one (each (score, pose, size, params)), the whole one when its faces explain
    LIT_GAP more of the brightness (`_explained`): the lit face of a small lying piece passes
    for a large standing one's, but the large one's faces then cut across the bright face
    where the small one's follow it."""
    seen = _explained(fitter, box, level, part,
                      [(whole_pose(pose), size, params) for _, pose, size, params in (lit, whole)])
    return whole if seen[1] > seen[0] + LIT_GAP else lit


def _base_side(params: tuple, flipped: tuple, size: int, evidence, fitter: PyramidFitter, box,
               level: np.ndarray, part: np.ndarray) -> tuple:
    """Which way a lying piece seen by its base face alone lies: `params` or `flipped`, the
    body on the side whose pixels say more for a whole piece (`evidence`), unless one side's
    faces explain BASE_GAP more of the brightness (`_explained`): a body darker than a card
    but not than its shadow votes as the card does."""
    both = (params, flipped)
    seen = _explained(fitter, box, level, part, [("lying", size, p) for p in both])
    if abs(seen[0] - seen[1]) > BASE_GAP:
        return both[int(seen[1] > seen[0])]
    return max(both, key=lambda p: evidence("lying", size, p))


def _explained(fitter: PyramidFitter, box, level: np.ndarray, part: np.ndarray, pieces: list) -> list[float]:
    """For whole pieces (pose, size, params), the share of the brightness variance each one's
    faces explain over the part and all their silhouettes together (`Shading`)."""
    valid = part.copy()
    for piece in pieces:
        valid |= silhouette_mask(fitter, part, box, *piece)
    shading = Shading(level, valid > 0)
    return [shading.explained(fitter.faces(*piece, box, part.shape)) for piece in pieces]


def refine(score, best, pose, size, params):
    """Improve a hypothesis' score by small steps of position and angle (coordinate descent)."""
    steps = np.array([STEP_MM, STEP_MM, STEP_DEG])
    for _ in range(REFINE_ROUNDS):
        moved = False
        for axis in range(3):
            for sign in (1, -1):
                trial = np.array(params, float)
                trial[axis] += sign * steps[axis]
                value = score(pose, size, tuple(trial))
                if value > best + 1e-4 * max(1.0, abs(best)):
                    best, params, moved = value, tuple(trial), True
                    break
        if not moved:
            steps = steps / 2
    return best, pose, size, params


def silhouette_mask(fitter: PyramidFitter, like: np.ndarray, box, pose, size, params) -> np.ndarray:
    """A hypothesis' silhouette rasterised in a crop the shape of `like` at `box`, uint8 0/1."""
    mask = np.zeros_like(like)
    cv2.fillConvexPoly(mask, fitter.outline(pose, size, *params, box), 1, cv2.LINE_8, SUB)
    return mask


def piece_fields(pose: str, size: int, params: tuple) -> dict:
    """The scene fields of a whole pyramid hypothesis: position, and a lying one's heading."""
    fields = {"type": "pyramid", "size": size, "pose": pose,
              "x": round(params[0], 1), "y": round(params[1], 1)}
    if pose == "lying":
        fields["heading"] = tenth_degree(params[2])
    return fields


def _kind(piece: tuple) -> tuple:
    """(pose, size) of a fitted piece (fields, mask, iou, lit)."""
    return piece[0]["pose"], piece[0]["size"]


def _toward(corners: np.ndarray) -> bool:
    """Whether a face (its projected corners, wound one way seen from outside: `FACES`) is
    turned toward the camera: seen from it, such a face keeps its winding on the table, one
    turned away is mirrored."""
    x, y = corners[:, 0].astype(np.float64), corners[:, 1].astype(np.float64)
    return bool(x @ np.roll(y, -1) > y @ np.roll(x, -1))


def _flipped(fitter: PyramidFitter, size: int, params: tuple) -> tuple:
    """A lying piece turned end for end about its base face: the same base face, the body on
    the other side of it."""
    _, c, _ = _moments(fitter.silhouette("base", size, *params))
    return 2 * c[0] - params[0], 2 * c[1] - params[1], (params[2] + 180.0) % 360


def _clear_score(features: np.ndarray, part: np.ndarray, footprints: float) -> float:
    """How clear, not white, a pale part looks (pixel by pixel the two overlap; above
    CLEAR_SCORE, clear, on a card above CARD_CLEAR_SCORE). Clear plastic shows the table
    through its faces and light along its edges: many thin bright ridges and table-level pixels
    inside its outline, so its brightest tenth is far above its median; white plastic shows
    smooth, evenly bright faces.
    `footprints` is the piece's area over a medium pyramid's footprint: edge lines are lines,
    so their share of a piece larger than that falls with its side, and the score is scaled
    back up by the square root."""
    level = level_of(features)
    ridge = _ridges(level) > RIDGE
    for k in (5, 3, 1):            # away from the outline, as far as the blob allows
        inside = cv2.erode(part, np.ones((k, k), np.uint8)) > 0
        if inside.sum() >= 10:
            break
    inner = level[inside]
    spread = float(np.percentile(inner, 90) - np.median(inner))
    return (float(ridge[inside].mean() + (inner < TABLE_LEVEL).mean()) + spread) * max(1.0, footprints) ** 0.5


def _ridges(level: np.ndarray) -> np.ndarray:
    """Brightness over the 5 px local mean: high along thin bright lines (a clear piece's edges)."""
    return level - cv2.blur(level, (5, 5))


def _clear_fit_needed(score: float, clear_above: float) -> float:
    """The IoU one clear piece must reach for a doubted white part to be clear: from
    CLEAR_WHOLE_IOU where the doubt starts down to CLEAR_NEAR_IOU at the clear bar."""
    nearness = (score - (clear_above - LIT_DOUBT)) / LIT_DOUBT
    return CLEAR_WHOLE_IOU - (CLEAR_WHOLE_IOU - CLEAR_NEAR_IOU) * nearness


def _opaque(fitter: PyramidFitter, part: np.ndarray, box, features: np.ndarray, clear: list,
            priors: Priors) -> bool:
    """Whether the clear pieces `_explain_as` found for a part are one piece whose faces (a
    standing one's at its best yaw) explain OPAQUE_SHARE of the part's brightness, as evenly lit
    opaque faces do (clear plastic shows the table and bright edges), where the rules allow it
    white."""
    if len(clear) != 1:
        return False
    f = clear[0].fields
    pose, size = f["pose"], f["size"]
    if not priors.known("white", None, None).allows((pose, size)):
        return False
    shading = Shading(level_of(features), part > 0)
    return any(shading.explained(fitter.faces(pose, size, (f["x"], f["y"], turn), box, part.shape))
               >= OPAQUE_SHARE[pose] for turn in _turns(f))


def _unlined(fitter: PyramidFitter, part: np.ndarray, box, features: np.ndarray, clear: list,
             priors: Priors) -> bool:
    """Whether, in Ice Pirates' sea, the clear pieces `_explain_as` found for a part are one
    piece standing whose edges toward the camera, at their best yaw, cast lines no brighter
    than UNLINED: clear plastic lights its edges, and a white island on cloth of nearly its
    shade, its faces at the cloth's level, looks clear but for them."""
    if not priors.islands or len(clear) != 1 or clear[0].fields["pose"] != "standing":
        return False
    f = clear[0].fields
    ridges = _ridges(level_of(features))
    return max(_lines(fitter, ridges, "standing", f["size"], (f["x"], f["y"], turn), box)
               for turn in _turns(f)) < UNLINED


def _turns(fields: dict):
    """The headings a found piece is judged at: a lying one's own, a standing one's yaws
    (its square repeats every 90 degrees) every OPAQUE_YAW_STEP."""
    return [fields["heading"]] if fields["pose"] == "lying" else np.arange(0.0, 90.0, OPAQUE_YAW_STEP)


def _lines(fitter: PyramidFitter, ridges: np.ndarray, pose: str, size: int, params: tuple, box) -> float:
    """How bright the lines a hypothesis' edges cast are on a crop's `ridges`: their mean,
    each edge weighted by the faces toward the camera it bounds (`seen_edges`; 0 for none)."""
    seen = fitter.seen_edges(pose, size, params, box, ridges.shape)
    return float((ridges * seen).sum() / seen.sum()) if seen.any() else 0.0


def _fits_poorly(clear: list) -> bool:
    """Whether the clear pieces `_explain_as` found for a part explain it poorly: none, or one
    fitting under CLEAR_POOR_IOU."""
    return not clear or (len(clear) == 1 and clear[0].iou < CLEAR_POOR_IOU)


def _pale_name(score: float, clear_above: float, unsure: str | None = None) -> str:
    """White or clear for a `_clear_score` (clear above `clear_above`); with `unsure` given, a
    score within PALE_MARGIN of the threshold gives `unsure` (a single piece's few pixels say
    less than a whole blob's)."""
    if unsure is not None and abs(score - clear_above) < PALE_MARGIN:
        return unsure
    return "clear" if score > clear_above else "white"


def _see_through(part: np.ndarray, features: np.ndarray, mm_per_px: float) -> np.ndarray:
    """A clear piece's part with the holes in its outline filled. A lying piece's raised base
    face, seen through, looks like the cloth and is left out of the foreground; its bright edges
    enclose it but for a gap of a few pixels. Gaps up to GAP are closed, holes from HOLE up are
    kept, and only if the whole stays convex (SOLID): a notch between touching pieces is no hole."""
    if not part.any():
        return part
    k = int(GAP / mm_per_px) | 1
    closed = cv2.morphologyEx(part, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    holes = (fill_holes(closed) > 0) & (part == 0) & (foreground_mask(features) == 0)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(holes.astype(np.uint8), connectivity=4)
    kept = np.nonzero(stats[1:, cv2.CC_STAT_AREA] * mm_per_px ** 2 >= HOLE)[0] + 1
    filled = part | np.isin(labels, kept).astype(np.uint8)
    hull = cv2.contourArea(cv2.convexHull(cv2.findNonZero(filled)))
    return filled if np.count_nonzero(filled) >= SOLID * hull else part


def _filled_hull(mask: np.ndarray) -> np.ndarray:
    """The convex hull of a mask's pixels (it must have some), filled: uint8 0/1."""
    hull = np.zeros_like(mask)
    cv2.fillConvexPoly(hull, cv2.convexHull(cv2.findNonZero(mask)), 1)
    return hull


def _overlapping(masks: list[np.ndarray]) -> bool:
    """True when two of the pieces' silhouettes share much of the smaller one: two solid pieces
    cannot stand in one place, so such a split is wrong."""
    for i, a in enumerate(masks):
        for b in masks[i + 1:]:
            if np.count_nonzero(a & b) > OVERLAP_SHARE * min(np.count_nonzero(a), np.count_nonzero(b)):
                return True
    return False


def _neck_parts(blob: np.ndarray, width: float, min_px: float) -> list[np.ndarray]:
    """The blob cut where it is thinner than `width` px: an opening removes the necks, and every
    pixel goes to the nearest remaining core (cores smaller than a piece are dropped)."""
    k = max(3, int(width) | 1)
    cores = cv2.morphologyEx(blob, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(cores, connectivity=8)
    keep = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= min_px / 2]
    if len(keep) < 2:
        return [blob]
    dists = [cv2.distanceTransform(np.where(labels == i, 0, 255).astype(np.uint8), cv2.DIST_L2, 3)
             for i in keep]
    owner = np.argmin(np.stack(dists), axis=0)
    return [(blob & (owner == k)).astype(np.uint8) for k in range(len(keep))]


def _halves(blob: np.ndarray) -> list[np.ndarray]:
    """The blob cut in two by k-means on its pixel positions, started from a cut across its
    long axis: no random start, so a frame gives the same scene whatever came before it."""
    rows, cols = np.nonzero(blob)
    pts = np.stack([cols, rows], axis=1).astype(np.float32)
    _, centre, angle = _moments_of_points(pts)
    along = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))], np.float32)
    start = ((pts - centre) @ along > 0).astype(np.int32).reshape(-1, 1)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    _, labels, _ = cv2.kmeans(pts, 2, start, criteria, 1, cv2.KMEANS_USE_INITIAL_LABELS)
    halves = []
    for k in (0, 1):
        half = np.zeros_like(blob)
        sel = labels.ravel() == k
        half[rows[sel], cols[sel]] = 1
        halves.append(half)
    return halves


def _moments_of_points(pts: np.ndarray) -> tuple[float, np.ndarray, float]:
    c = pts.mean(axis=0)
    d = pts - c
    mu20, mu02, mu11 = (d[:, 0] ** 2).mean(), (d[:, 1] ** 2).mean(), (d[:, 0] * d[:, 1]).mean()
    return len(pts), c, 0.5 * math.degrees(math.atan2(2 * mu11, mu20 - mu02))


def _votes(level: np.ndarray, part: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    """Per pixel, how a white piece's silhouette covering it is judged: +1 where it is at least
    half as bright as the piece's bright faces, -1 where it looks like the table, 0 in between
    (a face turned from the light, or the blurred rim: either may be) and where it is darker
    than the table (a shadow, or on a light card the face turned from the light). When
    CLIPPED_SHARE of the bright pixels are clipped in `pixels` (the part's BGR crop; by the
    camera, or on a card by the flattening's lift), +1 needs CLIPPED_EDGE of their level, not
    half: a face brighter than the image shows has a blurred rim that stays bright further out,
    and half its clipped level would take the rim for the piece (a small read a medium)."""
    bright = (part > 0) & (level > WHITE_FLOOR)
    cut = WHITE_FLOOR
    if bright.any():
        clipped = float((pixels[bright].max(axis=1) >= CLIPPED).mean()) >= CLIPPED_SHARE
        cut = (CLIPPED_EDGE if clipped else HALF) * float(np.median(level[bright]))
    table = (level < WHITE_FLOOR) & (level > -SHADE)
    return (level >= max(cut, WHITE_FLOOR)).astype(np.float32) - table


def _shaded(level: np.ndarray) -> np.ndarray:
    """Pixels whose `level` is darker than the table but lighter than a dark piece, uint8 0/1: a
    shadow, or a lying clear piece's raised base face, which shows the table behind it dimmed.
    A clear piece's outline may cover them or not."""
    return ((level < -SHADE) & (level > DARKER)).astype(np.uint8)


def _cut_rim(part: np.ndarray, features: np.ndarray) -> np.ndarray:
    """The part cut where the piece's contrast with the table falls to EDGE_CUT of its inside's
    (the low foreground threshold takes the blurred rim too, which makes small pieces look bigger)."""
    strength = np.sqrt((features * features).sum(axis=2))
    core = cv2.erode(part, np.ones((5, 5), np.uint8))
    if np.count_nonzero(core) < 10:
        return part
    cut = part & (strength >= EDGE_CUT * float(np.median(strength[core > 0]))).astype(np.uint8)
    return fill_holes(cut * 255) // 255


def _crop(stats: np.ndarray, margin: int, shape: tuple) -> tuple:
    """(y0, y1, x0, x1): a component's box (a `cv2.connectedComponentsWithStats` row) grown by
    `margin` px, within an image of `shape`."""
    x, y, bw, bh = stats[:4]
    return max(0, y - margin), min(shape[0], y + bh + margin), max(0, x - margin), min(shape[1], x + bw + margin)


def _dominant(blob: np.ndarray, colours: np.ndarray, n_colours: int, pale: list):
    """(blob, colour index, share) for a blob that is one piece: its most frequent colour, but a
    coloured piece's highlights (pale pixels) do not outvote its colour."""
    counts = np.bincount(colours[blob > 0].clip(0), minlength=n_colours)
    total = max(1, counts.sum())
    coloured = counts.copy()
    coloured[pale] = 0
    best = int(np.argmax(coloured))
    if coloured[best] < COLOURED_SHARE * total:
        best = int(np.argmax(counts))
    return blob, best, counts[best] / total


def _solid(mask: np.ndarray, min_px: float) -> bool:
    """Whether pixels of one colour hold a piece's body, not just a rim: the blurred edge of a
    piece of another colour takes in-between colours (cyan's rim reads blue) along a thin band."""
    core = cv2.erode(mask.astype(np.uint8), np.ones((RIM_PX, RIM_PX), np.uint8))
    return np.count_nonzero(core) >= RIM_SHARE * min_px


def _colour_parts(blob: np.ndarray, colours: np.ndarray, n_colours: int, min_px: float, pale: list):
    """Split a blob by pixel colour: each colour holding a piece's area becomes a part (pale
    pixels, which a coloured piece's highlights also give, need a fifth of the blob too; pixels
    of minor colours join the nearest part). Yields (mask, colour index, share of the blob)."""
    inside = blob > 0
    counts = np.bincount(colours[inside].clip(0), minlength=n_colours)
    total = counts.sum()
    major = [c for c in np.argsort(-counts)
             if counts[c] >= min_px and (c not in pale or counts[c] >= 0.2 * total)
             and _solid(inside & (colours == c), min_px)]
    if not major:
        major = [int(np.argmax(counts))]
    if len(major) == 1:
        yield blob, int(major[0]), counts[major[0]] / max(1, total)
        return
    # assign every blob pixel to the major colour whose pixels are nearest
    dists = []
    for c in major:
        seed = np.where(inside & (colours == c), 0, 255).astype(np.uint8)
        dists.append(cv2.distanceTransform(seed, cv2.DIST_L2, 3))
    owner = np.argmin(np.stack(dists), axis=0)
    for k, c in enumerate(major):
        part = (inside & (owner == k)).astype(np.uint8)
        yield part, int(c), counts[c] / max(1, total)
