"""Per-switch buffer budget: headroom + reserves + the shared pool, against the part's buffer.

A shared-buffer switch (NVIDIA Spectrum, Broadcom) carves its packet buffer into

* the **headroom** of every lossless (ingress port, priority): Σ over ports of
  headroom × lossless priorities (:mod:`.headroom`);
* **reserved** minimums: each cabled port keeps ``RESERVE_PER_QUEUE`` (4 KB, HPCC-ns3's
  per-(port, queue) reserve, congestion.md §1.1/§9) for each of its 8 queues, 32 KB a port;
* the **shared pool**: the rest, claimed by queues under the dynamic threshold
  ``limit = α · free shared bytes``. α = 2^dynamic_th with SONiC's default lossless
  ``dynamic_th`` 0, so α = 1 (one congested queue may take half the pool: α / (1 + α)).

The budget ``fits`` when headroom + reserves do not exceed the buffer (a shared pool ≥ 0);
otherwise a pause can arrive with no headroom left and a lossless frame is dropped.
The buffer size is the catalog's ``buffer_bytes`` (0: unknown — the budget then always fits
and ``known`` is False).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from ..model.fabric import Fabric

RESERVE_PER_QUEUE = 4096.0      # bytes per (port, queue)
QUEUES_PER_PORT = 8
DYNAMIC_TH = 0                  # SONiC's default for lossless profiles: α = 2**0
ALPHA = 2.0 ** DYNAMIC_TH
WARN_USE = 0.8                  # lint warns when headroom + reserves exceed this share


@dataclass(frozen=True)
class SwitchBudget:
    """Buffer budget of one Ethernet switch (bytes)."""

    buffer_bytes: float           # the part's shared packet buffer; NaN when unknown
    estimated: bool               # the buffer size is an estimate, not a published figure
    headroom_total: float         # Σ port headroom × lossless priorities
    reserved: float               # Σ per-port, per-queue minimums
    shared_pool: float            # buffer − headroom − reserved (negative: does not fit)
    alpha: float                  # dynamic-threshold α of the lossless pool
    fits: bool
    ports: int = 0                # cabled lossless ports counted
    part: str = ""
    source: str = ""

    @property
    def known(self) -> bool:
        return not math.isnan(self.buffer_bytes)

    @property
    def use(self) -> float:
        """(headroom + reserves) / buffer; NaN when the buffer is unknown."""
        if not self.known or self.buffer_bytes <= 0:
            return math.nan
        return (self.headroom_total + self.reserved) / self.buffer_bytes

    @property
    def dynamic_th(self) -> int:
        """SONiC's ``dynamic_th`` (log2 α)."""
        return int(round(math.log2(self.alpha)))


def budget(buffer_bytes: float, estimated: bool, port_headroom: np.ndarray, priorities: int,
           *, part: str = "", source: str = "", alpha: float = ALPHA) -> SwitchBudget:
    """The budget of a switch with ``port_headroom`` bytes per cabled lossless port."""
    h = np.asarray(port_headroom, float)
    head = float(h.sum()) * priorities
    reserved = len(h) * QUEUES_PER_PORT * RESERVE_PER_QUEUE
    if buffer_bytes and buffer_bytes > 0:
        shared = float(buffer_bytes) - head - reserved
        return SwitchBudget(float(buffer_bytes), estimated, head, reserved, shared, alpha,
                            shared >= 0, len(h), part, source)
    return SwitchBudget(math.nan, True, head, reserved, math.nan, alpha, True, len(h), part, source)


def switch_budget(fabric: Fabric, device: int, port_headroom: np.ndarray,
                  priorities: int) -> SwitchBudget:
    """The budget of switch ``device`` from its catalog part."""
    p = fabric.part_of(device)
    if p is None:
        return budget(0.0, True, port_headroom, priorities)
    return budget(p.buffer_bytes, p.buffer_estimated, port_headroom, priorities,
                  part=p.id, source=p.buffer_source)
