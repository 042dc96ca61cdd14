"""Photoreal training and test images rendered with Blender (development tooling, not shipped)."""
