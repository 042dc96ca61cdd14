"""Touching pieces of one colour explained all at once.

Fitting a blob one piece at a time places each piece by how much of it lies inside the blob, and
a piece lying across the seam of two lies inside as well as either of them; overlap also favours
a piece too big for a blob whose rim bleeds outward. A whole explanation
is judged instead: the blob pixels its pieces leave uncovered, the pixels they cover outside it
and the pixels two of them cover (`Cover`), over sets of candidate silhouettes searched together
(`choose`). Lying pieces' candidates come from the blob outline's sharp corners (`tips`): a
lying pyramid's tip is the sharpest corner its silhouette has.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

TIP_ARM = 4.0          # mm along the outline either side of a point to measure its corner
TIP_COS = -0.17        # corners sharper than about 100 degrees may be a lying piece's tip
TIP_TURNS = tuple(range(-30, 31, 5))   # degrees about the corner's bisector tried for the piece
SPILL = 2.0            # a pixel covered outside the blob costs this many uncovered blob pixels
TWICE = 0.5            # ... and one two silhouettes cover this many (pieces side by side overlap
                       # a little in the camera's view, but two cannot lie in one place)
PIECE_COST = 60.0      # mm^2: what one more piece in an explanation must save at least
BEAM = 10              # partial sets kept at each step of the search
MARGIN = 0.05          # share of the blob an explanation must save to replace the one-by-one one
RIVAL_SETS = 3         # the best sets found, each placed (its pieces moved to fit) before one is kept


def tips(blob: np.ndarray, arm_px: float) -> list[tuple[np.ndarray, float]]:
    """Sharp convex corners of the blob's outline: (col, row) and the direction they point in
    degrees (pixel axes, which the table's share), sharpest first, none within `arm_px` of a
    sharper one."""
    k = max(2, int(round(arm_px)))
    found = []
    for contour in cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0]:
        c = contour.reshape(-1, 2).astype(np.float64)
        if len(c) < 2 * k + 3:
            continue
        before, after = np.roll(c, k, axis=0), np.roll(c, -k, axis=0)
        v1, v2 = before - c, after - c
        cos = (v1 * v2).sum(1) / (np.linalg.norm(v1, axis=1) * np.linalg.norm(v2, axis=1) + 1e-9)
        mid = (before + after) / 2
        col, row = (np.clip(np.round(mid[:, i]).astype(int), 0, blob.shape[1 - i] - 1) for i in (0, 1))
        cos[blob[row, col] == 0] = -1.0            # a concave corner's chord runs outside the blob
        for i in np.argsort(-cos):
            if cos[i] < TIP_COS:
                break
            if all(np.hypot(*(c[i] - p)) >= k for p, _ in found):
                d = c[i] - mid[i]
                found.append((c[i], math.degrees(math.atan2(d[1], d[0]))))
    return found


class Cover:
    """How badly a set of silhouettes explains a blob, in pixels: those of the blob left
    uncovered, plus SPILL for each covered outside it (`neutral` ones excepted), TWICE for each
    covered twice, and PIECE_COST per piece."""

    def __init__(self, blob: np.ndarray, neutral: np.ndarray | None, piece_px: float):
        self.blob = blob.ravel() > 0
        self.outside = ~self.blob if neutral is None else ~self.blob & (neutral.ravel() == 0)
        self.piece = piece_px

    def error(self, masks: list[np.ndarray]) -> float:
        """The error of the silhouettes `masks` (uint8 crops of the blob's shape)."""
        count = np.sum([m.ravel() for m in masks], axis=0) if masks else np.zeros(self.blob.shape)
        covered = count > 0
        return float(np.count_nonzero(self.blob & ~covered) + SPILL * np.count_nonzero(covered & self.outside)
                     + TWICE * np.count_nonzero(count > 1) + self.piece * len(masks))

    def added(self, stack: np.ndarray, count: np.ndarray) -> np.ndarray:
        """Each candidate's change to the error when added to silhouettes covering `count`."""
        free = count == 0
        columns = np.stack([self.blob & free, self.outside & free, count == 1], axis=1).astype(np.float32)
        gained, spilled, doubled = (stack @ columns).T
        return -gained + SPILL * spilled + TWICE * doubled + self.piece


def choose(cover: Cover, masks: list[np.ndarray], budget: int,
           keep: int = 1) -> list[tuple[tuple[int, ...], float]]:
    """The `keep` sets of at most `budget` of `masks` (at least one each) with the least
    `cover.error`, best first, as (indices, error): a beam search that grows the BEAM best sets
    by one silhouette at a time while the best set grows better."""
    stack = np.stack([m.ravel() for m in masks]).astype(np.float32)
    empty = float(np.count_nonzero(cover.blob))
    beam = [((), empty, np.zeros(stack.shape[1], np.float32))]
    found, best_error = {}, math.inf
    for _ in range(budget):
        grown = {}
        for picked, error, count in beam:
            for k, change in enumerate(cover.added(stack, count)):
                key = tuple(sorted(picked + (k,)))
                if k not in picked and key not in grown:
                    grown[key] = (error + float(change), count, k)
        ranked = sorted(grown.items(), key=lambda item: item[1][0])[:BEAM]
        if not ranked or ranked[0][1][0] >= best_error:
            break
        best_error = ranked[0][1][0]
        found.update((key, error) for key, (error, _, _) in ranked)
        beam = [(key, error, count + stack[k]) for key, (error, count, k) in ranked]
    return sorted(found.items(), key=lambda item: item[1])[:keep]
