"""Training of the learned parts of the detector (development tooling, not shipped)."""
