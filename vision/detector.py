"""Frames in, scenes out: the detection pipeline.

check the frame -> find the mat (every frame) -> rectify to a top view of the play area ->
segment (table, pieces, hands) -> each registered classifier explains the blobs of its piece type
-> ids, confidence, `uncertain` near hands -> a SCENE.md scene.

A new piece type plugs in as a classifier with `type` and
`detect(view, segmentation, colour_profile, game, on_card=False, treasure=()) -> list[Found]`
(see `vision.pyramids`; `on_card`: the blobs lie on a home card, where pieces of the
`treasure` colours are treasure).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from calibration.calibfile import Calibration
from calibration.homography import MatNotFound, PlaneFit, find_markers, fit_plane
from referee.dimensions import DEFAULT, Dimensions
from referee.scene import Scene, scene_from_dict
from vision import colournet, segnet
from vision.cards import Card, card_under, find_cards, flatten, on_cards, owners, paper_white
from vision.faint_cargo import faint_on_cards, lying_instead
from vision.piecepack.view import BORDER as CLOTH_BORDER, patterned
from vision.pyramids import ISLAND_COLOURS, MIN_AREA, Found, PyramidClassifier, game_rules, pale_as_one, pasted
from vision.pattern import lattice
from vision.segment import Segmentation, reaches_edge, segment
from vision.topview import TopView, rectify

AREA_MARGIN = 15.0      # mm of table around the play area that is still looked at
HAND_REACH = 12.0       # mm: a piece this close to a hand may be partly under it
CARD_MARGIN = 3.0       # mm around a home card still segmented as card (its edge, a piece's foot)
CARD_SIDE = 4.0         # mm: a blob's side of a card's edge narrower than this everywhere is a rim
MIN_BRIGHTNESS = 35.0   # mean grey level below which a frame is too dark
MIN_SHARPNESS = 12.0    # variance of the Laplacian below which a frame is too blurred
MIN_CONTRAST = 4.0      # standard deviation of the grey levels below which a frame shows nothing
MAX_FOREGROUND = 0.35   # share of the cloth read as pieces beyond which the table is unreadable
                        # (on a sheet mat the play area is the paper, brighter than the cloth)
MAX_REGION = 20000.0    # mm^2: one region of pieces larger than this (a 140 mm square of them)
                        # is the cloth's pattern; fitting pyramids to it takes gigabytes
CARD_GAMES = ("icepirates",)    # games with home cards (postcards) on the table
# Games whose pieces need a pipeline of their own: game -> function(detector, frame, game) -> Scene.
GAME_PIPELINES: dict = {}


class FrameError(ValueError):
    """A frame the detector refuses (too dark, too blurred, no mat): one line for people."""


def check_frame(frame: np.ndarray) -> np.ndarray:
    """The frame's grey image, or FrameError if it is blank, too dark or too blurred to read."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    small = cv2.resize(gray, (max(1, gray.shape[1] // 2), max(1, gray.shape[0] // 2)), interpolation=cv2.INTER_AREA)
    brightness, contrast = (float(v[0, 0]) for v in cv2.meanStdDev(small))
    if brightness < MIN_BRIGHTNESS:
        raise FrameError(f"frame too dark (mean level {brightness:.0f} of 255, need {MIN_BRIGHTNESS:.0f})")
    if contrast < MIN_CONTRAST:
        raise FrameError(f"no calibration mat in the frame: the picture is blank (one even level, {brightness:.0f} of 255)")
    sharpness = float(cv2.Laplacian(small, cv2.CV_32F).var())
    if sharpness < MIN_SHARPNESS:
        raise FrameError(f"frame too blurred (sharpness {sharpness:.1f}, need {MIN_SHARPNESS:.0f})")
    return gray


@dataclass
class Detector:
    """Detection for one calibration; `classifiers` is the per-type registry."""

    calibration: Calibration
    dims: Dimensions = DEFAULT
    classifiers: list = field(default_factory=list)
    reread: Path | None = field(default_factory=lambda: colournet.MODEL if colournet.available() else None)
    segment_model: Path | None = field(default_factory=lambda: segnet.MODEL if segnet.available() else None)

    def __post_init__(self):
        if not self.classifiers:
            self.classifiers = [PyramidClassifier(self.dims)]

    @property
    def region(self) -> tuple[float, float, float, float]:
        """The table region (x0, y0, x1, y1 mm) the top view shows: the play area and a margin."""
        w, h = self.calibration.layout.area
        return (-AREA_MARGIN, -AREA_MARGIN, w + AREA_MARGIN, h + AREA_MARGIN)

    def plane(self, frame: np.ndarray) -> PlaneFit:
        """Check the frame and fit the table plane to the mat's markers in it."""
        gray = check_frame(frame)
        cal = self.calibration
        try:
            return fit_plane(cal.layout, find_markers(gray), cal.K, cal.dist)
        except MatNotFound as exc:
            raise FrameError(f"no calibration mat in the frame: {exc}") from None

    def top_view(self, frame: np.ndarray):
        """Check the frame, find the mat and rectify the play area."""
        return self._fitted_view(frame)[1]

    def _fitted_view(self, frame: np.ndarray) -> tuple[PlaneFit, TopView]:
        """The table plane's fit (`plane`) and the top view rectified with it."""
        cal = self.calibration
        fit = self.plane(frame)
        return fit, rectify(frame, fit, self.region, cal.mm_per_px, cal.K, cal.dist)

    def detect(self, frame: np.ndarray, game: str = "icehouse") -> Scene:
        """The scene in a BGR frame; FrameError when the frame cannot be read."""
        if game in GAME_PIPELINES:
            return GAME_PIPELINES[game](self, frame, game)
        view, cards, seg = self.look(frame, game)
        if not self.calibration.layout.on_paper:
            _plain_cloth(view, seg)
        found, cargo = self._classify(view, seg, game, cards)
        if self.reread:
            found = self._reread(view, seg, found, cargo, game)
        found += self._cards(view, cards, found, cargo)
        near_hand = self._near_hands(seg.hands, view.mm_per_px)
        at_edge = _at_edge(seg)
        counts: Counter = Counter()
        pieces = []
        for item in sorted(found, key=lambda f: (f.fields["y"], f.fields["x"])):
            piece = dict(item.fields)
            key = piece.get("color", piece["type"])
            counts[key] += 1
            piece["id"] = f"{key}{counts[key]}"
            x0, y0 = item.box
            hh, ww = item.mask.shape
            if (near_hand is not None and np.any(near_hand[y0:y0 + hh, x0:x0 + ww] & item.mask)) \
                    or np.any(at_edge[seg.labels[y0:y0 + hh, x0:x0 + ww][item.mask > 0]]):
                piece["uncertain"] = True
                piece["confidence"] = min(piece.get("confidence", 1.0), 0.3)
            if game == "icepirates" and id(item) not in cargo:
                _as_island(piece)
            pieces.append(piece)
        w, h = self.calibration.layout.area
        return scene_from_dict({"format": "icetable-scene/1", "game": game,
                                "area": {"width": round(w, 1), "height": round(h, 1)},
                                "pieces": pieces}, "<detected>")

    def _reread(self, view, seg: Segmentation, found: list[Found], cargo: set, game: str) -> list[Found]:
        """`found` read again by the colour network; a piece off the cards that it reads as a
        colour the rules treat otherwise (an Ice Pirates island read as a ship's colour) is
        fitted again as that colour."""
        rules = game_rules(game, ())
        before = {id(f): f.fields.get("color") for f in found}
        found = colournet.reread(view, seg.features, found, self.reread, tuple(rules))
        out = []
        for item in found:
            colour = item.fields.get("color")
            if id(item) in cargo or rules.get(colour) == rules.get(before[id(item)]):
                out.append(item)
            else:
                out += [f for c in self.classifiers if c.type == item.fields["type"]
                        for f in c.again_as(view, seg, item, colour, game)] or [item]
        return out

    def home_cards(self, frame: np.ndarray) -> list[Card]:
        """The home cards (postcards) lying in a frame, found as `look` finds them, without
        segmenting what lies on the table."""
        fit, view = self._fitted_view(frame)
        return self._cards_in(frame, fit, view, self._printed(view), self._lattice(view))

    def _cards_in(self, frame: np.ndarray, fit: PlaneFit, view: TopView, printed: np.ndarray,
                  steps: np.ndarray | None) -> list[Card]:
        """The home cards in the top view, found against the cloth (`steps`: its lattice when
        it repeats) and the mat's white paper."""
        cal = self.calibration
        return find_cards(view, printed, white=paper_white(frame, fit, cal.layout, cal.K, cal.dist), steps=steps)

    def look(self, frame: np.ndarray, game: str) -> tuple[TopView, list[Card], Segmentation]:
        """The top view (cards flattened), the home cards of a game that has them, and the
        segmentation of what lies on the table: by the segmentation network on cloth, by the
        thresholds alone on paper (a sheet mat's play area, home cards), which the network was
        not trained to read."""
        fit, view = self._fitted_view(frame)
        printed, steps, cards = self._printed(view), self._lattice(view), []
        if game in CARD_GAMES:      # found first: pieces on a card are seen against the card
            cards = self._cards_in(frame, fit, view, printed, steps)
            if cards:
                view = replace(view, image=flatten(view, cards))
        model = None if self.calibration.layout.on_paper else self.segment_model
        paper = np.zeros(view.image.shape[:2], np.uint8) if cards else None
        for card in cards:
            paper |= card.mask(view, CARD_MARGIN)
        return view, cards, segment(view.image, view.mm_per_px, self.calibration.colors, printed, model, paper, steps)

    def _lattice(self, view: TopView) -> np.ndarray | None:
        """The lattice of the cloth when its pattern repeats (`vision.pattern`), else None."""
        if self.calibration.layout.on_paper or not patterned(view.image, max(2, int(CLOTH_BORDER / view.mm_per_px))):
            return None
        return lattice(cv2.log(view.image.astype(np.float32) + 2.0), view.mm_per_px)

    def _classify(self, view, seg: Segmentation, game: str, cards: list[Card]) -> tuple[list[Found], set]:
        """What the classifiers find, and the ids (`id()`) of the pieces lying on a card: those
        are classified without the game's priors (a treasure pyramid on a home is no island),
        but the colour of the islands in the sea is treasure there."""
        colours = self.calibration.colors
        if not cards:
            return [f for c in self.classifiers for f in c.detect(view, seg, colours, game)], set()
        labels, deck = on_cards(seg.labels, len(seg.stats), pale_as_one(seg.colours, colours.names), cards, view,
                                MIN_AREA / view.mm_per_px ** 2, int(round(CARD_SIDE / view.mm_per_px)) | 1)
        seg = _relabelled(seg, labels)
        sea = [f for c in self.classifiers for f in c.detect(view, _only(seg, ~deck), colours, game)]
        treasure = tuple(sorted({f.fields["color"] for f in sea} & set(ISLAND_COLOURS)))
        cargo = [f for c in self.classifiers
                 for f in c.detect(view, _only(seg, deck), colours, "", on_card=True, treasure=treasure)]
        sizes = game_rules("", treasure).get("white", ((1, 2, 3),))[0]
        taken = pasted(seg.hands, sea, 255)
        cargo = lying_instead(view, seg.features, cards, cargo, taken, self.dims, sizes)
        cargo += faint_on_cards(view, seg.features, cards, pasted(taken, cargo, 255), self.dims, sizes)
        return sea + cargo, {id(f) for f in cargo}

    def _cards(self, view, cards: list[Card], pieces: list[Found], cargo: set) -> list[Found]:
        """The cards as found pieces, each owned by the colour of the pyramids touching it.
        Cargo read as clear does not vote (white treasure on white card stock looks alike), and
        on a card not owned by clear it is white: a home holds its owner's pieces and treasure."""
        pale = [f for f in pieces if id(f) in cargo and f.fields.get("color") == "clear"]
        silent = {id(f) for f in pale}
        voters = [f.fields for f in pieces if id(f) not in silent]
        owned = owners(cards, voters, ISLAND_COLOURS, self.calibration.colors.names, self.dims)
        for item in pale:
            k = card_under(cards, item.fields["x"], item.fields["y"])
            if k is not None and owned[k][0] != "clear":
                item.fields["color"] = "white"
        found = []
        for card, (owner, guessed) in zip(cards, owned):
            mask = card.mask(view)
            x, y, w, h = cv2.boundingRect(mask)
            fields = {"type": "card", "owner": owner, "x": round(card.x, 1), "y": round(card.y, 1),
                      "width": round(card.width, 1), "height": round(card.height, 1),
                      "angle": round(card.angle, 1) % 180, "confidence": round(card.support, 2)}
            if guessed:
                fields["owner_guessed"] = True
            found.append(Found(fields, mask[y:y + h, x:x + w], (x, y), card.support))
        return found

    def _printed(self, view) -> np.ndarray:
        """Top-view mask of what the mat prints: markers and patches, and paper outside the area."""
        layout = self.calibration.layout
        mask = np.zeros(view.image.shape[:2], np.uint8)
        w, h = layout.area
        boxes = [(m.x, m.y, m.side, m.side) for m in layout.markers]
        boxes += [(p.x, p.y, p.w, p.h) for p in layout.patches]
        for _, x, y, sw, sh in layout.sheets:
            inside = x >= 0 and y >= 0 and x + sw <= w and y + sh <= h
            if not inside and not (x <= 0 and y <= 0 and x + sw >= w and y + sh >= h):
                boxes.append((x, y, sw, sh))
        for x, y, sw, sh in boxes:
            p0 = view.to_pixels(np.array([[x - 3, y - 3]]))[0]
            p1 = view.to_pixels(np.array([[x + sw + 3, y + sh + 3]]))[0]
            cv2.rectangle(mask, tuple(int(v) for v in p0), tuple(int(v) for v in p1), 255, -1)
        return mask

    @staticmethod
    def _near_hands(hands: np.ndarray, mm_per_px: float):
        if not hands.any():
            return None
        r = max(1, int(HAND_REACH / mm_per_px))
        return (cv2.dilate(hands, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))) > 0
                ).astype(np.uint8)


def _plain_cloth(view: TopView, seg: Segmentation) -> None:
    """FrameError when the table is no plain cloth: two colours alternate along the view's edge
    and do not repeat (a gingham's checks and stripes do: `vision.pattern`), or it reads as
    pieces over MAX_FOREGROUND of the view or in one region over MAX_REGION."""
    if seg.steps is None and patterned(view.image, max(2, int(CLOTH_BORDER / view.mm_per_px))):
        raise FrameError("the cloth has two colours along the view's edge that do not repeat (a print, not checks "
                         "or stripes): play on a plain cloth")
    busy = float(np.count_nonzero(seg.foreground)) / seg.foreground.size
    region = float(seg.stats[1:, cv2.CC_STAT_AREA].max(initial=0)) * view.mm_per_px ** 2
    if busy > MAX_FOREGROUND or region > MAX_REGION:
        raise FrameError(f"{100 * busy:.0f} % of the table looks like pieces (a patterned cloth?): "
                         "play on a plain cloth")


def _at_edge(seg: Segmentation) -> np.ndarray:
    """Per label of `seg`, whether its blob reaches the top view's edge: part of what it holds
    may lie beyond, unseen, as part may under a hand."""
    edge = reaches_edge(seg.stats, seg.labels.shape)
    edge[0] = False
    return edge


def _relabelled(seg: Segmentation, labels: np.ndarray) -> Segmentation:
    """The segmentation with blobs cut into new labels (`on_cards`): their stats rows anew."""
    changed = np.unique(seg.labels[labels != seg.labels])
    if not len(changed):
        return seg
    stats = np.zeros((int(labels.max()) + 1, seg.stats.shape[1]), seg.stats.dtype)
    stats[:len(seg.stats)] = seg.stats
    for label in [*changed, *range(len(seg.stats), len(stats))]:
        mask = (labels == label).astype(np.uint8)
        stats[label, :4] = cv2.boundingRect(mask)
        stats[label, cv2.CC_STAT_AREA] = np.count_nonzero(mask)
    return replace(seg, labels=labels, stats=stats)


def _only(seg: Segmentation, keep: np.ndarray) -> Segmentation:
    """The segmentation with only the blobs whose label `keep` marks (per label)."""
    keep = keep.copy()
    keep[0] = False
    stats = seg.stats.copy()
    stats[~keep, cv2.CC_STAT_AREA] = 0
    return replace(seg, labels=np.where(keep[seg.labels], seg.labels, 0), stats=stats)


def _as_island(piece: dict) -> None:
    """Ice Pirates: a standing opaque (black or white) large is a treasure island, built as a
    complete nest of a large, a medium and a small (the classifier fits it as a large); the
    camera cannot see inside, so `nested` is the setup's [2, 1]."""
    if piece["type"] == "pyramid" and piece["pose"] == "standing" and piece.get("color") in ISLAND_COLOURS \
            and piece["size"] == 3:
        piece["nested"] = [2, 1]


# Other packages register their games' pipelines when imported.
import vision.piecepack.pipeline  # noqa: E402,F401  icefloe, iceberg
