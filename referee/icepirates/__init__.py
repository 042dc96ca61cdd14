"""The Ice Pirates referee: ships, steps, cannons, docking, cargo, damage and treasure."""
from referee.icepirates.report import evaluate

__all__ = ["evaluate"]
