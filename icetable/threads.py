"""Hold numpy's BLAS to one thread; call before numpy is imported.

Spread over every core, each of a frame's small matrix products would spin there waiting: on a
busy machine its CPU time grows several times over, and the live loop needs the cores.
"""
from __future__ import annotations

import os

BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def one_blas_thread() -> None:
    """Default every BLAS thread count to 1 (a value the user set is kept)."""
    for name in BLAS_THREADS:
        os.environ.setdefault(name, "1")
