"""Draw one frame: table texture -> camera -> pieces -> hands -> lens and sensor."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from calibration.layout import Layout, draw
from referee.dimensions import DEFAULT, Dimensions
from referee.scene import Scene
from vision.camera import Camera
from vision.render.config import RenderConfig
from vision.render.art import paint
from vision.render.pieces import DRAWERS, SCENE_HOOKS, Look
from vision.solids import shadow_on_table

PAD = 0.18          # the undistorted canvas is this much larger on each side than the frame
SUB = 4             # fixed-point bits for anti-aliased polygons
FLAT_SAMPLES = 4    # samples per texture pixel and axis at the edges of flat looks (cards)


@dataclass
class Rendered:
    """A BGR uint8 frame and what is in it: `hidden` lists piece ids a hand covers."""

    image: np.ndarray
    hidden: list[str] = field(default_factory=list)


def render(scene: Scene, layout: Layout, config: RenderConfig, dims: Dimensions = DEFAULT) -> Rendered:
    """Render `scene` lying on the table marked by `layout`, as seen by `config.camera`."""
    cam = config.camera
    canvas_cam, offset = padded(cam)
    for hook in SCENE_HOOKS:
        scene = hook(scene, dims)
    looks = [look for piece in scene.pieces for look in DRAWERS[piece.type](piece, dims)]
    owners = [piece.id for piece in scene.pieces for _ in DRAWERS[piece.type](piece, dims)]
    image = _table_radiance(layout, config, looks, canvas_cam)
    _draw_pieces(image, looks, canvas_cam, config)
    hidden = _draw_hands(image, config, canvas_cam, looks, owners)
    image = distort(image, cam, offset)
    image = image * np.array(config.white_balance, np.float32) * config.exposure
    if config.blur > 0:
        image = cv2.GaussianBlur(image, (0, 0), config.blur)
    rng = np.random.default_rng(config.seed)
    image = _to_srgb(image) + rng.normal(0, config.noise, image.shape).astype(np.float32)
    bgr = np.clip(image, 0, 255).astype(np.uint8)[..., ::-1]
    return Rendered(np.ascontiguousarray(bgr), hidden)


def classes(scene: Scene, config: RenderConfig, dims: Dimensions = DEFAULT) -> np.ndarray:
    """Per-pixel truth of the frame `render` draws: 0 table (flat looks, cards, and print too), 1 a piece,
    2 an arm (uint8, `vision.segnet.CLASSES`)."""
    cam = config.camera
    canvas_cam, offset = padded(cam)
    out = np.zeros((canvas_cam.size[1], canvas_cam.size[0]), np.uint8)
    for hook in SCENE_HOOKS:
        scene = hook(scene, dims)
    for look in (look for piece in scene.pieces for look in DRAWERS[piece.type](piece, dims)):
        if not look.flat:
            hull = cv2.convexHull(canvas_cam.project(look.solid.vertices, distort=False).astype(np.float32))
            cv2.fillConvexPoly(out, hull.astype(np.int32), 1)
    for hand in config.hands:
        out[_arm_mask(hand, canvas_cam, canvas_cam.size) > 127] = 2
    return distort(out, cam, offset, cv2.INTER_NEAREST)


def padded(cam: Camera, offset: tuple[int, int] | None = None) -> tuple[Camera, tuple[int, int]]:
    """The same camera with a larger, undistorted canvas (so distortion never samples outside),
    `offset` (default PAD of the size) pixels wider on each side."""
    w, h = cam.size
    ox, oy = offset or (int(w * PAD), int(h * PAD))
    K = cam.K.copy()
    K[0, 2] += ox
    K[1, 2] += oy
    return Camera(K, np.zeros(5), cam.R, cam.C, (w + 2 * ox, h + 2 * oy)), (ox, oy)


def _to_srgb(linear: np.ndarray) -> np.ndarray:
    return 255.0 * np.power(np.clip(linear, 0, 1.2), 1 / 2.2)


def _table_radiance(layout: Layout, config: RenderConfig, looks: list[Look], cam: Camera) -> np.ndarray:
    """The lit table with shadows, warped into the (undistorted, padded) canvas. Linear RGB."""
    tp = config.texture_px_per_mm
    H_img = cam.table_homography()
    corners = cv2.perspectiveTransform(
        np.array([[[0, 0], [cam.size[0], 0], [cam.size[0], cam.size[1]], [0, cam.size[1]]]],
                 np.float64), np.linalg.inv(H_img))[0]
    w_area, h_area = layout.area
    x0 = max(float(corners[:, 0].min()), -400.0)
    y0 = max(float(corners[:, 1].min()), -400.0)
    x1 = min(float(corners[:, 0].max()), w_area + 400.0)
    y1 = min(float(corners[:, 1].max()), h_area + 400.0)
    size = (int((x1 - x0) * tp), int((y1 - y0) * tp))
    rng = np.random.default_rng(config.seed + 1)
    albedo = _cloth(size, config.cloth, rng)
    paper = draw(layout, tp, (x0, y0), size, image=np.zeros((size[1], size[0], 3), np.uint8))
    printed = np.zeros((size[1], size[0]), np.uint8)
    for _, sx, sy, sw, sh in layout.sheets:
        p0 = (int(round((sx - x0) * tp)), int(round((sy - y0) * tp)))
        p1 = (int(round((sx + sw - x0) * tp)), int(round((sy + sh - y0) * tp)))
        cv2.rectangle(printed, p0, p1, 255, -1)
    ink = (paper.astype(np.float32) / 255.0) ** 2.2 * 0.86 + 0.03
    albedo = np.where(printed[..., None] > 0, ink, albedo)
    for look in looks:
        if look.flat:
            _paint_flat(albedo, look, tp, (x0, y0), rng)
    light = config.light
    shade = np.zeros((size[1], size[0]), np.uint8)
    to_light = light.direction()
    for look in (look for look in looks if not look.flat):
        pts = shadow_on_table(look.solid.vertices, to_light, point_light=False)
        hull = cv2.convexHull(((pts - (x0, y0)) * tp * (1 << SUB)).astype(np.int32))
        cv2.fillConvexPoly(shade, hull, int(255 * look.material.opacity ** 0.5), cv2.LINE_AA, SUB)
    shade = cv2.GaussianBlur(shade, (0, 0), 1.5 * tp).astype(np.float32) / 255.0
    gx, gy = np.meshgrid(np.arange(size[0], dtype=np.float32) / tp + x0,
                         np.arange(size[1], dtype=np.float32) / tp + y0)
    g = np.deg2rad(light.gradient_dir)
    falloff = 1.0 - light.gradient * ((gx - w_area / 2) * np.cos(g) + (gy - h_area / 2) * np.sin(g)) / 1000
    irradiance = (light.ambient + light.key * (1 - light.shadow * 2 * shade)) * falloff
    radiance = albedo * irradiance[..., None] * np.array(light.colour, np.float32)
    T = np.array([[1 / tp, 0, x0 + 0.5 / tp], [0, 1 / tp, y0 + 0.5 / tp], [0, 0, 1]])
    return cv2.warpPerspective(radiance.astype(np.float32), H_img @ T, cam.size,
                               flags=cv2.INTER_AREA if tp > 2 else cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def _paint_flat(albedo: np.ndarray, look: Look, tp: float, origin, rng: np.random.Generator) -> None:
    """Paint a flat look (a card) into the table texture: its stock with a fine paper grain.
    Edge pixels get the share of them the card covers (4 x 4 samples; an anti-aliased fill
    would grow the card by most of a pixel)."""
    h, w = albedo.shape[:2]
    corners = (look.solid.vertices[:, :2] - origin) * tp     # texture px, pixel i spans [i, i + 1)
    x0, y0 = np.maximum(np.floor(corners.min(axis=0)).astype(int) - 1, 0)
    x1, y1 = np.minimum(np.ceil(corners.max(axis=0)).astype(int) + 1, (w, h))
    if x0 >= x1 or y0 >= y1:
        return
    fine = np.zeros(((y1 - y0) * FLAT_SAMPLES, (x1 - x0) * FLAT_SAMPLES), np.uint8)
    pts = ((corners - (x0, y0)) * FLAT_SAMPLES - 0.5) * (1 << SUB)
    cv2.fillConvexPoly(fine, pts.round().astype(np.int32), 255, cv2.LINE_8, SUB)
    m = cv2.resize(fine, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA).astype(np.float32)[..., None] / 255.0
    grain = 1 + 0.01 * rng.normal(0, 1, (y1 - y0, x1 - x0, 1))
    stock = np.array(look.material.albedo, np.float32) * grain.astype(np.float32)
    crop = albedo[y0:y1, x0:x1]
    albedo[y0:y1, x0:x1] = crop * (1 - m) + m * stock


def _cloth(size: tuple[int, int], colour: tuple, rng: np.random.Generator) -> np.ndarray:
    """A matte cloth: its colour with a slow mottle and a fine grain."""
    w, h = size
    slow = cv2.resize(rng.normal(0, 1, (max(2, h // 80), max(2, w // 80))).astype(np.float32), (w, h),
                      interpolation=cv2.INTER_CUBIC)
    grain = rng.normal(0, 1, (h, w)).astype(np.float32)
    factor = 1 + 0.03 * slow + 0.02 * grain
    return np.array(colour, np.float32) * factor[..., None]


def _faces(looks: list[Look], cam: Camera):
    """Every face of every look, with its number and outward normal: pieces resting higher
    (on a tile) after those below, each level far to near."""
    out = []
    for index, look in enumerate(looks):
        verts = look.solid.vertices
        centre = verts.mean(axis=0)
        rest = -float(verts[:, 2].max())
        for number, face in enumerate(look.solid.faces):
            pts = verts[list(face)]
            n = np.cross(pts[1] - pts[0], pts[2] - pts[0])
            n /= np.linalg.norm(n)
            if np.dot(n, pts.mean(axis=0) - centre) < 0:
                n = -n
            depth = float(cam.depth(pts).mean())
            out.append((round(rest, 1), depth, index, number, pts, n))
    out.sort(key=lambda f: (f[0], -f[1]))
    return [f[1:] for f in out]


def _draw_pieces(image: np.ndarray, looks: list[Look], cam: Camera, config: RenderConfig) -> None:
    """Paint the faces onto `image` in place, far to near, translucent faces blending."""
    light = config.light
    to_light = light.direction()
    colour = np.array(light.colour, np.float32)
    for depth, index, number, pts, n in _faces(looks, cam):
        if looks[index].flat:
            continue
        material = looks[index].material
        view = cam.C - pts.mean(axis=0)
        view /= np.linalg.norm(view)
        facing = float(np.dot(n, view)) > 0
        if not facing and material.opacity >= 1:
            continue
        diffuse = max(0.0, float(np.dot(n, to_light)))
        half = (to_light + view) / np.linalg.norm(to_light + view)
        spec = material.gloss * max(0.0, float(np.dot(n, half))) ** 40 if facing else 0.0
        albedo = np.array(material.albedo, np.float32)
        printed = looks[index].art(number) if looks[index].art is not None and facing else None
        if printed is not None:     # printed face art: a texture lit like the face
            gain = (light.ambient + light.key * 1.4 * diffuse) * colour
            paint(image, printed[0], cam.project(printed[1], distort=False), cam.project(pts, distort=False),
                  material.opacity * gain, spec * colour)
            continue
        lit = albedo * (light.ambient + light.key * 1.4 * diffuse) * colour
        reflect = material.opacity * lit
        transmit = (1 - material.opacity) * np.array(material.tint, np.float32)
        if not facing:
            reflect = reflect * 0.5
        poly = cam.project(pts, distort=False)
        _blend_polygon(image, poly, reflect, transmit, spec * colour)
        if material.edge and facing:
            _edges(image, poly, material.edge * colour)


def _box(poly: np.ndarray, shape, pad: int):
    """The pixel box (x0, y0, x1, y1) around a polygon plus `pad`, clipped to the image; None
    when nothing of it is inside."""
    h, w = shape[:2]
    x0, y0 = np.maximum(np.floor(poly.min(axis=0)).astype(int) - pad, 0)
    x1, y1 = np.minimum(np.ceil(poly.max(axis=0)).astype(int) + pad + 1, (w, h))
    return None if x0 >= x1 or y0 >= y1 else (int(x0), int(y0), int(x1), int(y1))


def _edges(image: np.ndarray, poly: np.ndarray, add: np.ndarray) -> None:
    """Brighten a face's outline (light refracted along the edges of clear plastic)."""
    box = _box(poly, image.shape, 2)
    if box is None:
        return
    x0, y0, x1, y1 = box
    pts = ((poly - (x0, y0)) * (1 << SUB)).round().astype(np.int32)
    crop = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.polylines(crop, [pts], True, 255, 1, cv2.LINE_AA, SUB)
    m = crop.astype(np.float32)[..., None] / 255.0
    image[y0:y1, x0:x1] += m * add


def _blend_polygon(image: np.ndarray, poly: np.ndarray, add: np.ndarray, keep: np.ndarray,
                   highlight: np.ndarray | None = None) -> None:
    """image = image * (1 - m) + m * (image * keep + add) inside the anti-aliased polygon, plus
    a `highlight`: the reflection of the lamp, a small soft spot near the face's middle (a flat
    face mirrors a small light over a small patch, not over all of it)."""
    box = _box(poly, image.shape, 1)
    if box is None:
        return
    x0, y0, x1, y1 = box
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    pts = ((poly - (x0, y0)) * (1 << SUB)).round().astype(np.int32)
    cv2.fillConvexPoly(mask, pts, 255, cv2.LINE_AA, SUB)
    m = mask.astype(np.float32)[..., None] / 255.0
    crop = image[y0:y1, x0:x1]
    if highlight is not None and float(highlight.max()) > 0.01:
        spot = np.zeros(mask.shape, np.float32)
        cx, cy = poly.mean(axis=0) - (x0, y0)
        sigma = 0.12 * np.sqrt(max(1.0, float(mask.sum()) / 255.0))
        cv2.circle(spot, (int(round(cx)), int(round(cy))), max(1, int(round(sigma))), 1.0, -1, cv2.LINE_AA)
        add = add + cv2.GaussianBlur(spot, (0, 0), max(0.5, sigma))[..., None] * highlight
    image[y0:y1, x0:x1] = crop * (1 - m) + m * (crop * keep + add)


def _draw_hands(image: np.ndarray, config: RenderConfig, cam: Camera, looks, owners) -> list[str]:
    """Arms over the table (with a soft shadow); returns ids of pieces they cover."""
    if not config.hands:
        return []
    h, w = image.shape[:2]
    covered = np.zeros((h, w), np.uint8)
    for hand in config.hands:
        arm = _arm_mask(hand, cam, (w, h))
        shadow_shift = (config.light.direction()[:2] * hand.height * 0.6)
        M = np.float32([[1, 0, shadow_shift[0]], [0, 1, shadow_shift[1]]])
        shadow = cv2.GaussianBlur(cv2.warpAffine(arm, M, (w, h)), (0, 0), 12).astype(np.float32) / 255
        image *= (1 - 0.45 * shadow)[..., None]
        m = cv2.GaussianBlur(arm, (0, 0), 1.2).astype(np.float32)[..., None] / 255
        ys = np.linspace(0.85, 1.1, h, dtype=np.float32)[:, None, None]
        skin = np.array(hand.skin, np.float32) * config.light.ambient * 1.6 * ys
        image[:] = image * (1 - m) + m * skin * np.array(config.light.colour, np.float32)
        covered |= arm
    hidden = []
    for look, owner in zip(looks, owners):
        poly = cam.project(look.solid.vertices, distort=False)
        hull = cv2.convexHull(poly.astype(np.float32)).astype(np.int32)
        mask = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(mask, hull, 255)
        area = max(1, int(np.count_nonzero(mask)))
        if np.count_nonzero(mask & covered) > 0.02 * area and owner not in hidden:
            hidden.append(owner)
    return hidden


def _arm_mask(hand, cam: Camera, size: tuple[int, int]) -> np.ndarray:
    """The arm as a thick segment ending in a palm, projected from its height above the table."""
    mask = np.zeros((size[1], size[0]), np.uint8)
    start = np.array([hand.start[0], hand.start[1], -hand.height - 150])
    end = np.array([hand.end[0], hand.end[1], -hand.height])
    a, b = cam.project(np.array([start, end]), distort=False)
    scale = cam.K[0, 0] / float(np.linalg.norm(end - cam.C))
    width = max(3, int(hand.width * scale))
    cv2.line(mask, tuple(int(v) for v in a), tuple(int(v) for v in b), 255, width, cv2.LINE_AA)
    direction = (b - a) / max(1e-6, np.linalg.norm(b - a))
    palm = b + direction * hand.width * scale * 0.5
    angle = float(np.degrees(np.arctan2(direction[1], direction[0])))
    axes = (int(hand.width * scale * 0.9), int(hand.width * scale * 0.6))
    cv2.ellipse(mask, (int(palm[0]), int(palm[1])), axes, angle, 0, 360, 255, -1, cv2.LINE_AA)
    return mask


@lru_cache(maxsize=4)
def _distortion_maps(K_bytes: bytes, dist_bytes: bytes, size: tuple[int, int], offset: tuple[int, int]):
    K = np.frombuffer(K_bytes).reshape(3, 3)
    dist = np.frombuffer(dist_bytes)
    w, h = size
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    pts = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
    und = cv2.undistortPoints(pts, K, dist, P=K).reshape(h, w, 2)
    return ((und[..., 0] + offset[0]).astype(np.float32), (und[..., 1] + offset[1]).astype(np.float32))


def distort(canvas: np.ndarray, cam: Camera, offset: tuple[int, int],
            interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    """The frame the real (distorting) lens sees, sampled from the undistorted canvas of
    `padded(cam)` (INTER_NEAREST for label images)."""
    mx, my = _distortion_maps(cam.K.tobytes(), cam.dist.astype(np.float64).tobytes(), cam.size, offset)
    return cv2.remap(canvas, mx, my, interpolation, borderMode=cv2.BORDER_REPLICATE)
