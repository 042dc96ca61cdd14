"""Build one Blender scene from a `Session`: table, printed sheets, pieces, lights, arms, camera.

Blender's world is metres, z up; the project's world (`vision.camera`) is millimetres, x right,
y down, z into the table. `to_blender` turns one into the other (a rotation of 180 degrees about
x, then a scale). Every piece's solid comes from the fast renderer's registry
(`vision.render.pieces.DRAWERS`), so both renderers draw the same geometry; each piece's object
index is its position in the scene plus one, so the index pass is the per-pixel ground truth.
"""
from __future__ import annotations

import math
import random
from pathlib import Path

import bpy  # noqa: I001 (bpy first: it makes bmesh and mathutils importable)
import bmesh
import cv2
import numpy as np
from mathutils import Matrix, Vector

from referee.dimensions import DEFAULT
from referee.scene import Scene
from tools.photoreal.conditions import Light, Plastic, Session, Table, kelvin_rgb
from tools.photoreal.develop import srgb
from vision.camera import Camera
from vision.render.pieces import DRAWERS, SCENE_HOOKS

MM = 0.001
ARM_INDEX = 1000           # object index of arms and hands
TARGET_IRRADIANCE = 3.0    # key light on the table centre, W/m^2 (auto exposure sets the level)
FLIP = np.diag([1.0, -1.0, -1.0])


def to_blender(points) -> np.ndarray:
    return (np.asarray(points, np.float64) @ FLIP) * MM


def reset(size: tuple[int, int], samples: int, threads: int) -> None:
    """An empty scene set up for Cycles on the CPU, rendering linear light to EXR."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    sc = bpy.context.scene
    sc.render.engine = "CYCLES"
    sc.cycles.device = "CPU"
    sc.cycles.samples = samples
    sc.cycles.use_adaptive_sampling = True
    sc.cycles.use_denoising = True
    sc.cycles.denoiser = "OPENIMAGEDENOISE"
    sc.cycles.denoising_prefilter = "FAST"
    sc.cycles.max_bounces = 8
    sc.cycles.transmission_bounces = 8
    sc.cycles.transparent_max_bounces = 8
    sc.render.threads_mode = "FIXED"
    sc.render.threads = threads
    sc.render.resolution_x, sc.render.resolution_y = size
    sc.render.resolution_percentage = 100
    sc.render.film_transparent = False
    sc.view_settings.view_transform = "Standard"
    sc.render.image_settings.file_format = "OPEN_EXR"
    sc.render.image_settings.color_depth = "32"
    sc.view_layers[0].use_pass_object_index = True
    sc.world = bpy.data.worlds.new("world")
    sc.world.use_nodes = True


def _material(name: str) -> tuple[bpy.types.Material, bpy.types.Node, bpy.types.NodeTree]:
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    tree = mat.node_tree
    return mat, tree.nodes["Principled BSDF"], tree


def _colour(rgb) -> tuple:
    return (*[float(c) for c in rgb], 1.0)


def table_material(table: Table) -> bpy.types.Material:
    """Cloth, felt and linen (a fine weave), wood (grain), laminate, a striped or a checked cloth."""
    mat, bsdf, tree = _material("table")
    nodes, links = tree.nodes, tree.links
    coords = nodes.new("ShaderNodeTexCoord")
    mapping = nodes.new("ShaderNodeMapping")
    mapping.inputs["Rotation"].default_value[2] = math.radians(table.rotation)
    links.new(coords.outputs["Object"], mapping.inputs["Vector"])
    freq = 1.0 / (table.scale * MM)
    ramp = nodes.new("ShaderNodeValToRGB")
    ramp.color_ramp.elements[0].color = _colour(table.colour2)
    ramp.color_ramp.elements[1].color = _colour(table.colour)
    if table.kind in ("oak", "pine", "walnut"):
        tex = nodes.new("ShaderNodeTexWave")
        tex.wave_type, tex.bands_direction = "BANDS", "X"
        tex.inputs["Scale"].default_value = freq / 6
        tex.inputs["Distortion"].default_value = 6.0
        tex.inputs["Detail"].default_value = 3.0
        ramp.color_ramp.elements[0].position = 0.2
        ramp.color_ramp.elements[1].position = 0.9
        links.new(tex.outputs["Fac"], ramp.inputs["Fac"])
    elif table.kind == "striped":
        tex = nodes.new("ShaderNodeTexWave")
        tex.wave_type, tex.bands_direction, tex.wave_profile = "BANDS", "X", "SAW"
        tex.inputs["Scale"].default_value = freq * math.pi / 20      # a band `scale` wide
        ramp.color_ramp.interpolation = "CONSTANT"
        ramp.color_ramp.elements[1].position = 0.5
        links.new(tex.outputs["Fac"], ramp.inputs["Fac"])
    elif table.kind == "gingham":
        tex = nodes.new("ShaderNodeTexChecker")
        tex.inputs["Color1"].default_value = _colour(table.colour)
        tex.inputs["Color2"].default_value = _colour(table.colour2)
        tex.inputs["Scale"].default_value = freq / 2
        links.new(mapping.outputs["Vector"], tex.inputs["Vector"])
        links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
        bsdf.inputs["Roughness"].default_value = table.roughness
        return mat
    else:
        tex = nodes.new("ShaderNodeTexNoise")
        tex.inputs["Scale"].default_value = freq
        tex.inputs["Detail"].default_value = 4.0
        ramp.color_ramp.elements[0].position = 0.35
        ramp.color_ramp.elements[1].position = 0.65
        links.new(tex.outputs["Fac"], ramp.inputs["Fac"])
        bump = nodes.new("ShaderNodeBump")
        bump.inputs["Strength"].default_value = 0.15 if table.kind != "laminate" else 0.02
        links.new(tex.outputs["Fac"], bump.inputs["Height"])
        links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    links.new(mapping.outputs["Vector"], tex.inputs["Vector"])
    links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    bsdf.inputs["Roughness"].default_value = table.roughness
    return mat


def add_table(table: Table) -> None:
    bpy.ops.mesh.primitive_plane_add(size=4.0, location=(0.3, -0.25, 0.0))
    plane = bpy.context.active_object
    plane.data.materials.append(table_material(table))
    plane.pass_index = 0


def _printed(name: str, corners_mm: np.ndarray, uv: np.ndarray, image_path: Path, roughness: float,
             index: int = 0) -> None:
    """A flat polygon (world mm corners, in order) showing an image by its UV coordinates."""
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([tuple(v) for v in to_blender(corners_mm)], [], [tuple(range(len(corners_mm)))])
    layer = mesh.uv_layers.new()
    for loop in mesh.loops:
        layer.data[loop.index].uv = tuple(uv[loop.vertex_index])
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.collection.objects.link(obj)
    obj.pass_index = index
    mat, bsdf, tree = _material(name)
    tex = tree.nodes.new("ShaderNodeTexImage")
    tex.image = bpy.data.images.get(image_path.name) or bpy.data.images.load(str(image_path))
    tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    bsdf.inputs["Roughness"].default_value = roughness
    obj.data.materials.append(mat)


def add_sheet(name: str, image_rgb: np.ndarray, rect_mm: tuple, lift_mm: float, roughness: float,
              transform=None, folder: Path | None = None) -> None:
    """A printed sheet of paper: `image_rgb` mapped onto the rectangle (x, y, w, h) in table mm
    (or in the frame that `transform` maps to the table), `lift_mm` above the table."""
    x, y, w, h = rect_mm
    corners = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])
    if transform is not None:
        corners = transform(corners)
    path = (folder or Path(bpy.app.tempdir)) / f"{name}.png"
    cv2.imwrite(str(path), image_rgb[..., ::-1])
    # the image's top-left at the rectangle's first corner; wound (3, 2, 1, 0) to face up
    order = [3, 2, 1, 0]
    _printed(name, np.column_stack([corners, np.full(4, -lift_mm)])[order],
             np.array([(0, 1), (1, 1), (1, 0), (0, 0)], np.float64)[order], path, roughness)


ART_LIFT = 0.05            # mm: printed art floats this far off its face


def _texture_file(texture: np.ndarray, folder: Path, files: dict) -> Path:
    """A linear-light albedo texture written once as an sRGB PNG (Blender reads PNGs as sRGB)."""
    key = id(texture)
    if key not in files:
        files[key] = (texture, folder / f"art{len(files)}.png")      # keep the array alive: ids stay unique
        cv2.imwrite(str(files[key][1]), np.rint(255 * srgb(texture)).astype(np.uint8)[..., ::-1])
    return files[key][1]


def _art_uv(points: np.ndarray, anchors: np.ndarray) -> np.ndarray:
    """UV of face points in a texture whose world corners are `anchors` (top-left first):
    u along the top edge, v up from the bottom edge (Blender's images start at the bottom)."""
    origin = anchors[0]
    basis = np.column_stack([anchors[1] - origin, anchors[3] - origin])
    st, *_ = np.linalg.lstsq(basis, (points - origin).T, rcond=None)
    return np.column_stack([st[0], 1.0 - st[1]])


def add_art(name: str, look, index: int, folder: Path, files: dict, roughness: float) -> None:
    """The printed art of each face of a look, as textured polygons just off its faces."""
    centre = look.solid.vertices.mean(axis=0)
    for f, face in enumerate(look.solid.faces):
        printed = look.art(f)
        if printed is None:
            continue
        texture, anchors = printed
        pts = look.solid.vertices[list(face)]
        normal = np.cross(pts[1] - pts[0], pts[2] - pts[0])
        normal /= np.linalg.norm(normal)
        if normal @ (pts.mean(axis=0) - centre) < 0:       # wound inward: turn it to face out
            normal, pts = -normal, pts[::-1]
        lifted = pts + ART_LIFT * normal
        _printed(f"{name}-art{f}", lifted, _art_uv(pts, np.asarray(anchors, np.float64)),
                 _texture_file(texture, folder, files), roughness, index)


def plastic_material(colour: str, plastic: Plastic) -> bpy.types.Material:
    """Looney plastic: black opaque, white opaque with a little subsurface light, the rest
    tinted transmissive (clear untinted)."""
    mat, bsdf, tree = _material(f"plastic-{colour}")
    rgb = plastic.colours[colour]
    bsdf.inputs["Base Color"].default_value = _colour(rgb)
    bsdf.inputs["IOR"].default_value = 1.49
    bsdf.inputs["Roughness"].default_value = plastic.roughness
    if colour == "black":
        bsdf.inputs["Roughness"].default_value = max(0.2, plastic.roughness)
    elif colour == "white":
        bsdf.inputs["Subsurface Weight"].default_value = plastic.white_subsurface
        bsdf.inputs["Subsurface Radius"].default_value = (3 * MM, 3 * MM, 3 * MM)
        bsdf.inputs["Roughness"].default_value = max(0.25, plastic.roughness)
    else:
        bsdf.inputs["Transmission Weight"].default_value = 1.0 if colour == "clear" else plastic.transmission
        _tinted_shadow(tree, bsdf, rgb)
        if colour != "clear" and plastic.scatter > 0:
            volume = tree.nodes.new("ShaderNodeVolumeScatter")
            volume.inputs["Color"].default_value = _colour(rgb)
            volume.inputs["Density"].default_value = plastic.scatter
            tree.links.new(volume.outputs["Volume"], tree.nodes["Material Output"].inputs["Volume"])
    return mat


def _tinted_shadow(tree, bsdf, rgb) -> None:
    """Shadow rays pass through translucent plastic filtered by its colour: the table under a
    piece is lit through it (coloured shadows), which the path tracer's light sampling cannot
    find through a refracting surface on its own."""
    nodes, links = tree.nodes, tree.links
    path = nodes.new("ShaderNodeLightPath")
    clear = nodes.new("ShaderNodeBsdfTransparent")
    clear.inputs["Color"].default_value = _colour([min(1.0, 0.1 + 0.9 * c) for c in rgb])
    mix = nodes.new("ShaderNodeMixShader")
    links.new(path.outputs["Is Shadow Ray"], mix.inputs["Fac"])
    links.new(bsdf.outputs["BSDF"], mix.inputs[1])
    links.new(clear.outputs["BSDF"], mix.inputs[2])
    links.new(mix.outputs["Shader"], nodes["Material Output"].inputs["Surface"])


def _solid_object(name: str, vertices_mm: np.ndarray, material, index: int, bevel_mm: float,
                  closed_flat: float = 0.0) -> None:
    """A convex solid from its vertices (a flat face given `closed_flat` mm of thickness)."""
    verts = np.asarray(vertices_mm, np.float64)
    if closed_flat:
        verts = np.vstack([verts, verts + np.array([0, 0, closed_flat])])
    bm = bmesh.new()
    for v in to_blender(verts):
        bm.verts.new(v)
    bmesh.ops.convex_hull(bm, input=bm.verts)
    bmesh.ops.recalc_face_normals(bm, faces=bm.faces)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.collection.objects.link(obj)
    obj.data.materials.append(material)
    obj.pass_index = index
    if bevel_mm > 0:
        mod = obj.modifiers.new("bevel", "BEVEL")
        mod.width = bevel_mm * MM
        mod.segments = 2
        mod.limit_method = "ANGLE"


def add_pieces(scene: Scene, plastic: Plastic, rng: random.Random, folder: Path | None = None,
               paper: float = 0.7) -> None:
    """Every piece's solids; pyramids in plastic (each within the manufacturing tolerance,
    scaled about its anchor so the truth stays exact), other pieces in their look's colour with
    their printed art (card and paint of roughness `paper`)."""
    for hook in SCENE_HOOKS:
        scene = hook(scene, DEFAULT)
    materials, files = {}, {}
    for i, piece in enumerate(scene.pieces, start=1):
        scale = 1.0 + rng.uniform(-plastic.tolerance, plastic.tolerance)
        anchor = np.array([piece.x, piece.y, 0.0])
        for j, look in enumerate(DRAWERS[piece.type](piece, DEFAULT)):
            verts = anchor + (look.solid.vertices - anchor) * scale
            name = f"{piece.id}-{j}"
            if piece.type == "pyramid":
                mat = materials.get(piece.color) or materials.setdefault(
                    piece.color, plastic_material(piece.color, plastic))
                _solid_object(name, verts, mat, i, plastic.bevel * DEFAULT.looney_base[piece.size] / 25.4)
                continue
            mat, bsdf, _ = _material(name)
            bsdf.inputs["Base Color"].default_value = _colour(look.material.albedo)
            bsdf.inputs["Roughness"].default_value = paper
            _solid_object(name, look.solid.vertices, mat, i, 0.0,
                          closed_flat=-look.solid.vertices[:, 2].min() if look.flat else 0.0)
            if look.art is not None:
                add_art(name, look, i, folder or Path(bpy.app.tempdir), files, paper)


def _aim(obj, location_mm, target_mm) -> None:
    obj.location = tuple(to_blender([location_mm])[0])
    direction = to_blender([target_mm])[0] - np.array(obj.location)
    obj.rotation_euler = _look_rotation(direction)


def _look_rotation(direction):
    return Vector(tuple(direction)).to_track_quat("-Z", "Y").to_euler()


def _from_angles(centre_mm, azimuth: float, elevation: float, distance: float) -> np.ndarray:
    az, el = math.radians(azimuth), math.radians(elevation)
    return np.array([centre_mm[0] + distance * math.cos(el) * math.cos(az),
                     centre_mm[1] + distance * math.cos(el) * math.sin(az),
                     -distance * math.sin(el)])


def _lamp(kind: str, name: str, kelvin: float, irradiance: float, where, centre, size: float):
    d = float(np.linalg.norm(np.asarray(where) - np.asarray(centre))) * MM
    if kind == "SUN":
        data = bpy.data.lights.new(name, "SUN")
        data.energy = irradiance
        data.angle = math.atan2(size, 10000.0)
    elif kind == "AREA":
        data = bpy.data.lights.new(name, "AREA")
        data.shape, data.size = "SQUARE", max(size, 1.0) * MM
        data.energy = irradiance * math.pi * d * d
    else:
        data = bpy.data.lights.new(name, "SPOT")
        data.spot_size, data.spot_blend = math.radians(150), 1.0
        data.shadow_soft_size = size / 2 * MM
        data.energy = irradiance * 4 * math.pi * d * d
    data.color = kelvin_rgb(kelvin)
    obj = bpy.data.objects.new(name, data)
    bpy.context.collection.objects.link(obj)
    _aim(obj, where, centre)


def add_lights(light: Light, area: tuple) -> None:
    """The key light of the session's kind, a second light for `mixed`, and the room (world)."""
    centre = np.array([area[0] / 2, area[1] / 2, 0.0])
    kind = {"panel": "AREA", "window": "AREA", "overcast": "AREA", "lamp": "SPOT", "spot": "SPOT",
            "low-sun": "SUN", "mixed": "SPOT"}[light.kind]
    where = _from_angles(centre, light.azimuth, light.elevation, light.distance)
    _lamp(kind, "key", light.kelvin, TARGET_IRRADIANCE * light.power, where, centre, light.size)
    if light.kind == "mixed":
        window = _from_angles(centre, light.azimuth + 150, 35.0, 1800.0)
        _lamp("AREA", "window", light.fill_kelvin, TARGET_IRRADIANCE * light.fill, window, centre, 1200.0)
    world = bpy.context.scene.world.node_tree.nodes["Background"]
    fill = light.fill if light.kind != "mixed" else 0.15
    world.inputs["Color"].default_value = _colour(kelvin_rgb(light.fill_kelvin))
    world.inputs["Strength"].default_value = TARGET_IRRADIANCE * fill / math.pi


def add_arms(arms: list) -> None:
    """Each arm a tapered cylinder from outside the table down to a fist above it."""
    for k, (start, end, width, skin, height) in enumerate(arms):
        mat, bsdf, _ = _material(f"skin{k}")
        bsdf.inputs["Base Color"].default_value = _colour([c ** 2.2 for c in skin])
        bsdf.inputs["Subsurface Weight"].default_value = 0.3
        bsdf.inputs["Roughness"].default_value = 0.5
        a = np.array([start[0], start[1], -(height + 150.0)])
        b = np.array([end[0], end[1], -height])
        length = float(np.linalg.norm(b - a))
        bpy.ops.mesh.primitive_cone_add(vertices=24, radius1=width / 2 * MM, radius2=width * 0.38 * MM,
                                        depth=length * MM, location=tuple(to_blender([(a + b) / 2])[0]))
        arm = bpy.context.active_object
        arm.rotation_euler = _look_rotation(to_blender([a])[0] - to_blender([b])[0])
        bpy.ops.mesh.primitive_uv_sphere_add(radius=width * 0.5 * MM, location=tuple(to_blender([b])[0]))
        fist = bpy.context.active_object
        for obj in (arm, fist):
            obj.data.materials.append(mat)
            obj.pass_index = ARM_INDEX
            bpy.ops.object.shade_smooth()


def add_camera(cam: Camera) -> None:
    """A pinhole camera with `cam`'s pose and focal length (its principal point centred)."""
    data = bpy.data.cameras.new("camera")
    data.sensor_fit = "HORIZONTAL"
    data.sensor_width = 36.0
    data.lens = cam.K[0, 0] * 36.0 / cam.size[0]
    data.clip_start, data.clip_end = 0.05, 20.0
    obj = bpy.data.objects.new("camera", data)
    bpy.context.collection.objects.link(obj)
    axes = np.column_stack([FLIP @ cam.R[0], FLIP @ -cam.R[1], FLIP @ -cam.R[2]])
    obj.matrix_world = Matrix.Translation(tuple(to_blender([cam.C])[0])) @ Matrix(axes.tolist()).to_4x4()
    bpy.context.scene.camera = obj


def index_output(folder: Path, stem: str) -> None:
    """Route the object index pass to `folder/stem0001.exr` through the compositor."""
    sc = bpy.context.scene
    sc.use_nodes = True
    tree = sc.node_tree
    layers = tree.nodes.get("Render Layers") or tree.nodes.new("CompositorNodeRLayers")
    out = tree.nodes.new("CompositorNodeOutputFile")
    out.base_path = str(folder)
    out.format.file_format = "OPEN_EXR"
    out.format.color_depth = "32"
    out.file_slots[0].path = stem
    tree.links.new(layers.outputs["IndexOB"], out.inputs[0])
    composite = tree.nodes.get("Composite") or tree.nodes.new("CompositorNodeComposite")
    tree.links.new(layers.outputs["Image"], composite.inputs["Image"])


def render(path: Path) -> None:
    bpy.context.scene.render.filepath = str(path)
    bpy.ops.render.render(write_still=True)


def session_rng(session: Session, frame: int) -> random.Random:
    return random.Random(f"{session.split}-{session.seed}-{frame}")
