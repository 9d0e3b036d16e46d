"""What a compile of the subnet manager's numba kernels reports (a leaf module: no numba, so the
code that starts or shows the compile need not load it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

#: The modules holding compiled kernels (all imported by :func:`.kernels.warm_all`).
KERNEL_MODULES = ("fabricviz.ib.kernels", "fabricviz.ib.ftree_route", "fabricviz.ib.dfsssp_kernels",
                  "fabricviz.ib.lash_kernels")


@dataclass(frozen=True)
class Compiled:
    """One compile of a kernel: the ``done``-th kernel compiled of at most ``total``, its name,
    in seconds; ``again``: that kernel was compiled before, for other argument types."""
    done: int
    total: int
    name: str
    seconds: float
    again: bool = False


Progress = Callable[[Compiled], None]

__all__ = ["KERNEL_MODULES", "Compiled", "Progress"]
