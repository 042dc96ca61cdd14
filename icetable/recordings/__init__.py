"""Recorded games bundled for `icetable demo` (video, calibration, ground truth)."""
