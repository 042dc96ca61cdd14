"""Synthetic camera frames of a scene on the calibration mat, with their ground truth.

`render(scene, config)` draws the table (cloth, mat or corner cards, shadows), every piece through
the per-type registry `vision.render.pieces.DRAWERS`, optional hands, then the camera effects
(lens distortion, blur, white balance, noise). A `RenderConfig` holds one camera, one light and
the hands, so a sequence of frames of one camera is a sequence of configs that share the camera.
"""
from vision.render.config import HandConfig, LightConfig, RenderConfig, random_config
from vision.render.frame import Rendered, render

__all__ = ["HandConfig", "LightConfig", "RenderConfig", "Rendered", "random_config", "render"]
