"""What a fluid run gives back (:class:`FluidResult`): per-flow and per-link totals and its frames."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .frames import Frame


@dataclass(frozen=True)
class FluidResult:
    frames: tuple[Frame, ...]
    injected_bytes: np.ndarray      # per flow
    delivered_bytes: np.ndarray     # per flow
    in_flight_bytes: np.ndarray     # per flow, at the end
    finish_s: np.ndarray            # per flow (nan: not finished)
    max_queue_bytes: np.ndarray     # per link
    max_ingress_bytes: np.ndarray   # per link: peak bytes held downstream of it
    paused_fraction: np.ndarray     # per link
    headroom_exceeded: np.ndarray   # per link (PFC): would have dropped
    ticks: int
    begin_s: np.ndarray | None = None      # per flow: when it first sent (nan: never)
    end_s: float = 0.0                     # time at the end of the run
    max_queue_s: np.ndarray | None = None  # per link: when its queue peaked
    link_vl_gbps: np.ndarray | None = None  # [L, 16] steady-part mean Gb/s per link per VL (VL runs only)
    dcqcn_preset: str = ""                  # the DCQCN parameters the run used
    dropped_bytes: np.ndarray | None = None        # per flow: lost at full queues (lossy)
    discarded_bytes: np.ndarray | None = None      # per flow: arrived out of order, thrown away (lossy)
    retransmitted_bytes: np.ndarray | None = None  # per flow: sent again by go-back-N (lossy)
    link_dropped_bytes: np.ndarray | None = None   # per link (lossy)
    deadlock_s: float = float("nan")               # when a PFC deadlock first set in (nan: never)
    deadlock_cleared_s: float = float("nan")       # when the last one was broken (nan: none, or it lasts)
    deadlock_links: np.ndarray | None = None       # per link: paused for good at some tick (PFC runs)
    deadlock_flows: np.ndarray | None = None       # per flow: had bytes frozen on such a link
    watchdog_storms: np.ndarray | None = None      # per link: PFC storms the watchdog detected
    watchdog_dropped_bytes: np.ndarray | None = None       # per flow: dropped by the watchdog
    link_watchdog_dropped_bytes: np.ndarray | None = None  # per link
    reorder_resent_bytes: np.ndarray | None = None  # per flow: arrived but resent by go-back-N on reordering
    flow_control: str = "pfc"                       # pfc | credit | lossy | trim (EQDS/NDP)
    link_trimmed_bytes: np.ndarray | None = None    # per link: payload bytes trimmed (EQDS/NDP runs)
    trimmed_bytes: np.ndarray | None = None         # per flow: payloads trimmed, each pulled and sent again
    transport: str = ""                             # eqds | ndp | hpcc (:mod:`.fluid_transports`); "": none

    @property
    def deadlocked(self) -> bool:
        """A PFC deadlock set in during the run."""
        return not np.isnan(self.deadlock_s)

    @property
    def achieved_gbps(self) -> np.ndarray:
        """Per flow: bytes delivered / time from its first byte sent to its finish (or the run's end)."""
        if self.begin_s is None:
            raise ValueError("achieved_gbps needs begin_s (when each flow first sent)")
        end = np.where(np.isnan(self.finish_s), self.end_s, self.finish_s)
        span = end - self.begin_s
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(span > 0, self.delivered_bytes * 8 / 1e9 / span, 0.0)
        return np.nan_to_num(r)

    @property
    def lost_bytes(self) -> float:
        """injected − delivered − in flight (− dropped − discarded when lossy): what the model lost
        track of; float rounding (≤ 1e-9 of what was injected) reads 0."""
        lost = float(np.sum(self.injected_bytes - self.delivered_bytes - self.in_flight_bytes))
        for extra in (self.dropped_bytes, self.discarded_bytes, self.watchdog_dropped_bytes,
                      self.reorder_resent_bytes, self.trimmed_bytes):
            lost -= float(np.sum(extra)) if extra is not None else 0.0
        return 0.0 if abs(lost) <= 1e-9 * max(float(np.sum(self.injected_bytes)), 1.0) else lost
