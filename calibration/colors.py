"""Colour profiles of the pieces, learned from a photo of them on the palette sheet.

A pixel's colour feature is its log ratio to the local empty-table colour, per channel (B, G, R).
The ratio cancels the light's colour and level and the table's own tint, so one profile serves
under different lights. Each colour is a Gaussian in that 3D space.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

REJECT = 4.5     # Mahalanobis distance beyond which a pixel matches no known colour
GAMMA = 2.2      # an 8-bit camera level is about linear light ** (1 / GAMMA)


def linear_levels(scale: float = 1.0) -> np.ndarray:
    """Lookup table from an 8-bit gamma-encoded level to linear light, 0..`scale` (float32)."""
    return (scale * (np.arange(256) / 255.0) ** GAMMA).astype(np.float32)


@dataclass(frozen=True)
class ColorProfile:
    names: tuple[str, ...]
    means: np.ndarray        # (K, 3)
    inv_covs: np.ndarray     # (K, 3, 3)
    log_dets: np.ndarray     # (K,)

    @classmethod
    def fit(cls, samples: dict[str, np.ndarray], floor: float = 0.03) -> "ColorProfile":
        """One Gaussian per colour from its feature samples (N, 3); `floor` is the smallest
        standard deviation allowed on any axis (noise of a real camera)."""
        names = tuple(samples)
        means, invs, dets = [], [], []
        for name in names:
            x = np.asarray(samples[name], np.float64)
            cov = np.cov(x.T) + np.eye(3) * floor ** 2
            means.append(x.mean(axis=0))
            invs.append(np.linalg.inv(cov))
            dets.append(np.linalg.slogdet(cov)[1])
        return cls(names, np.array(means), np.array(invs), np.array(dets))

    @cached_property
    def _roots(self) -> np.ndarray:
        """Per colour, L with L @ L.T its inverse covariance: a row's distance is |(x - mean) @ L|."""
        return np.linalg.cholesky(self.inv_covs)

    def distances(self, features: np.ndarray) -> np.ndarray:
        """Mahalanobis distance of each feature row (N, 3) to each colour: (N, K)."""
        out = np.empty((len(features), len(self.names)))
        for k, root in enumerate(self._roots):
            y = (features - self.means[k]) @ root
            out[:, k] = np.sqrt((y * y).sum(axis=1))
        return out

    def classify(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Best colour index per row and its distance (N,), by Gaussian likelihood."""
        dist = self.distances(features)
        score = dist ** 2 + self.log_dets[None, :]
        best = np.argmin(score, axis=1)
        return best, dist[np.arange(len(best)), best]

    def completed(self, fallback: "ColorProfile") -> "ColorProfile":
        """This profile plus `fallback`'s colours that it lacks."""
        extra = [i for i, name in enumerate(fallback.names) if name not in self.names]
        return ColorProfile(self.names + tuple(fallback.names[i] for i in extra),
                            np.concatenate([self.means, fallback.means[extra]]),
                            np.concatenate([self.inv_covs, fallback.inv_covs[extra]]),
                            np.concatenate([self.log_dets, fallback.log_dets[extra]]))

    def to_dict(self) -> dict:
        return {name: {"mean": self.means[i].round(5).tolist(),
                       "cov": np.linalg.inv(self.inv_covs[i]).round(7).tolist()}
                for i, name in enumerate(self.names)}

    @classmethod
    def from_dict(cls, data: dict) -> "ColorProfile":
        names = tuple(data)
        covs = np.array([data[n]["cov"] for n in names], np.float64)
        return cls(names, np.array([data[n]["mean"] for n in names], np.float64),
                   np.linalg.inv(covs), np.linalg.slogdet(covs)[1])
