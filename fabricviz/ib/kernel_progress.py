"""What a compile of the subnet manager's numba kernels reports, and whether one runs in the
background (a leaf module: no numba, so the code that starts, shows or routes around the compile
need not load it)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

#: The modules holding compiled kernels (all imported by :func:`.kernels.warm_all`).
KERNEL_MODULES = ("fabricviz.ib.kernels", "fabricviz.ib.ftree_route", "fabricviz.ib.dfsssp_kernels",
                  "fabricviz.ib.lash_kernels", "fabricviz.ib.lash_order", "fabricviz.ib.lash_memo",
                  "fabricviz.ib.lash_fast", "fabricviz.ib.lash_prefetch", "fabricviz.ib.lash_paths")


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


@dataclass
class Background:
    """The background compile of :func:`.warmup.start_background`: its thread (None: never
    started) and the event set when it ended."""
    thread: threading.Thread | None = None
    ready: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def warming(self) -> bool:
        return self.thread is not None and not self.ready.is_set()


#: The process's one background compile.
BACKGROUND = Background()


def warming() -> bool:
    """Is a background compile (:func:`.warmup.start_background`) under way? Meanwhile routing
    takes its numpy / scipy paths."""
    return BACKGROUND.warming()


__all__ = ["BACKGROUND", "KERNEL_MODULES", "Background", "Compiled", "Progress", "warming"]
