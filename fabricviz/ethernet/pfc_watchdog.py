"""PFC watchdog (SONiC ``pfcwd``) and the fluid model's test for a PFC deadlock.

**Deadlock.** A paused link (its downstream ingress counter above XON) resumes only once that
ingress drains, i.e. once the downstream switch's egress queues holding its bytes send them.
Bytes sitting on egress links that are themselves paused for good never move. :func:`deadlocked`
finds the largest set of paused links such that each one's downstream ingress holds, waiting on
egress links of the set, more bytes than the highest XON it could have: the dynamic threshold
of a switch holding only the frozen bytes, i.e. every byte it holds on the set's egress queues
*whichever ingress brought it* (a sender's bytes queued behind a paused egress freeze as well,
however slowly they came). Nothing inside the set can ever drain, so it stays paused for ever
(a cyclic buffer dependency with every buffer above XOFF, no progress) — whatever the senders'
rates: DCQCN throttling them to a trickle neither breaks nor hides the deadlock.

**Watchdog**, as SONiC's ``pfcwd`` runs it per lossless queue: a queue that has bytes to send and
has been paused continuously for the *detection time* is in a PFC storm; then, for as long as
the storm lasts,

* ``drop`` — its packets are dropped (what is queued and what arrives) and pauses are ignored;
* ``forward`` — pauses are ignored and it transmits at line rate (the downstream buffer may
  overflow its headroom).

The storm ends once no pause has been asserted on the queue for the *restoration time*
(each pause restarts that timer). The model has one lossless priority per link, so the queue
is the link's egress; only switch egress queues are watched (not a NIC's own transmitter).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model import Fabric, FabricError
from .pfc_closing import ClosingFlows, Flow, closing_flows, host_flow
from .pfc_deadlock import check_pfc_deadlock, failed_cables, topology

ACTIONS = ("drop", "forward")


@dataclass(frozen=True)
class WatchdogParams:
    """Detection and restoration times (seconds) and the storm action."""

    detection_s: float
    restoration_s: float
    action: str = "drop"

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"PFC watchdog action {self.action!r}: use {' or '.join(ACTIONS)}")
        if not self.detection_s > 0 or not self.restoration_s > 0:
            raise ValueError("PFC watchdog: detection and restoration times must be positive")


class PfcWatchdog:
    """Per-link storm state: continuous pause time, storm flag, time since the last pause."""

    def __init__(self, params: WatchdogParams, watched: np.ndarray) -> None:
        n = len(watched)
        self.prm = params
        self.watched = watched.astype(bool)
        self.paused_for = np.zeros(n)
        self.quiet_for = np.zeros(n)
        self.storm = np.zeros(n, bool)
        self.storms = np.zeros(n, np.int64)          # storms detected per link
        self.first_s = np.nan                        # first storm detected

    def update(self, asserted: np.ndarray, queued: np.ndarray, t: float, dt: float) -> None:
        """One tick: ``asserted`` — the downstream pauses the link (PFC state); ``queued`` — its
        egress has bytes waiting; ``t`` — the time at the end of the tick."""
        eps = 1e-9 * dt
        self.paused_for = np.where(asserted & queued & ~self.storm & self.watched, self.paused_for + dt, 0.0)
        new = self.paused_for >= self.prm.detection_s - eps
        self.quiet_for = np.where(self.storm & ~asserted, self.quiet_for + dt, 0.0)
        over = self.storm & (self.quiet_for >= self.prm.restoration_s - eps)
        if new.any():
            self.storms += new
            if np.isnan(self.first_s):
                self.first_s = t
            self.paused_for[new] = 0.0
        self.storm = (self.storm | new) & ~over
        self.quiet_for[over] = 0.0

    @property
    def dropping(self) -> np.ndarray:
        """Links whose queue drops everything this tick (drop action, in a storm)."""
        return self.storm if self.prm.action == "drop" else np.zeros_like(self.storm)


def deadlocked(paused: np.ndarray, e_link: np.ndarray, prev_link: np.ndarray, has_prev: np.ndarray,
               held: np.ndarray, xoff: np.ndarray, xon: np.ndarray, dst_dev: np.ndarray,
               xoff_at: Callable[[np.ndarray, np.ndarray], np.ndarray],
               by_link: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Per link: paused for ever (see module doc). ``held``: bytes of each route entry at its
    egress (queued + arriving); ``xoff``/``xon``: the static levels per link (of the ingress it
    enters); ``xoff_at(xoff, bytes held in the switch)``: the dynamic XOFF; ``by_link``: the
    entries with a previous hop sorted by link and each link's start in that order (faster)."""
    n = len(paused)
    dead = paused.copy()
    if not dead.any():
        return dead
    if by_link is None:                                  # only entries on paused links can be frozen
        sel = np.flatnonzero(has_prev & dead[e_link])
    else:
        order, ptr = by_link
        lk = np.flatnonzero(dead)
        cnt = ptr[lk + 1] - ptr[lk]
        sel = order[np.arange(int(cnt.sum())) - np.repeat(np.cumsum(cnt) - cnt, cnt) + np.repeat(ptr[lk], cnt)]
    ing, on, b = prev_link[sel], e_link[sel], held[sel]
    n_dev = int(dst_dev.max(initial=-1)) + 1
    while True:
        waiting = np.bincount(ing, weights=np.where(dead[on], b, 0.0), minlength=n)   # per ingress
        in_switch = np.bincount(dst_dev, weights=waiting, minlength=n_dev)[dst_dev]
        frozen = np.where(dead, waiting, 0.0)
        xon_max = xoff_at(xoff, in_switch) - (xoff - xon)
        keep = dead & (frozen > xon_max)
        if np.array_equal(keep, dead):
            return dead
        dead = keep


def _has_cycle(src: np.ndarray, dst: np.ndarray, n: int) -> bool:
    """Whether the directed graph of edges src → dst on n nodes has a cycle (Kahn's peeling)."""
    keep = src != dst
    if not keep.all():
        return True
    indeg = np.bincount(dst, minlength=n)
    alive = np.ones(len(src), bool)
    while True:
        free = indeg[src] == 0
        gone = alive & free
        if not gone.any():
            return bool(alive.any())
        alive &= ~gone
        indeg = np.bincount(dst[alive], minlength=n)


class DeadlockLog:
    """What a fluid run records of PFC deadlocks: when one set in, when it was broken, the links
    paused for good and the flows with bytes frozen on them."""

    def __init__(self, e_link: np.ndarray, e_flow: np.ndarray, prev_link: np.ndarray, has_prev: np.ndarray,
                 dst_dev: np.ndarray, xoff: np.ndarray, xon: np.ndarray,
                 xoff_at: Callable[[np.ndarray, np.ndarray], np.ndarray], n_flows: int) -> None:
        self.e_link, self.e_flow, self.prev_link, self.has_prev = e_link, e_flow, prev_link, has_prev
        self.dst_dev, self.xoff, self.xon, self.xoff_at = dst_dev, xoff, xon, xoff_at
        self.links = np.zeros(len(xoff), bool)
        hp = np.flatnonzero(has_prev)
        order = hp[np.argsort(e_link[hp], kind="stable")]
        self.by_link = (order, np.concatenate([[0], np.cumsum(np.bincount(e_link[order], minlength=len(xoff)))]))
        # a pause can only last for ever around a cycle of buffer dependencies (link → next link)
        self.possible = _has_cycle(prev_link[hp], e_link[hp], len(xoff))
        self.flows = np.zeros(n_flows, bool)
        self.since_s = np.nan
        self.cleared_s = np.nan
        self.now = False

    def tick(self, paused: np.ndarray, held: np.ndarray, t: float) -> None:
        """After a tick ending at ``t``: ``paused`` transmitters, ``held`` bytes per route entry."""
        dead = deadlocked(paused, self.e_link, self.prev_link, self.has_prev, held, self.xoff, self.xon,
                          self.dst_dev, self.xoff_at, self.by_link) if self.possible and paused.any() \
            else np.zeros_like(paused)
        now = bool(dead.any())
        if now:
            self.links |= dead
            self.flows |= np.bincount(self.e_flow, weights=np.where(dead[self.e_link], held, 0.0),
                                      minlength=len(self.flows)) > 0
            if np.isnan(self.since_s):
                self.since_s = t
            if not self.now:
                self.cleared_s = np.nan
        elif self.now:
            self.cleared_s = t
        self.now = now
def cycle_load(fabric: Fabric, *, failed: Sequence[str | int] = (), routing: str = "bounce",
               cycle: int = 0) -> tuple[Any, Any]:
    """The PFC cycle number ``cycle`` of :func:`~.pfc_deadlock.check_pfc_deadlock` under ``failed``
    and the flows that load it: every host of each closing flow's source switch sends along that
    flow's path (to the destination switch's hosts in turn), so each buffer of the cycle gets
    more than its egress can serve — the load that deadlocks it. Returns (BufferCycle,
    ClosingFlows)."""
    found = check_pfc_deadlock(fabric, failed=failed, routing=routing).cycles
    if not found:
        raise FabricError(f"{fabric.name}: no PFC cycle to load" + (f" after {', '.join(map(str, failed))} went down"
                                                                     if failed else " (fail links to make one)"))
    if not 0 <= cycle < len(found):
        raise FabricError(f"PFC cycle {cycle}: there are {len(found)} (0..{len(found) - 1})")
    cyc = found[cycle]
    cf = closing_flows(fabric, cyc, failed=failed, routing=routing)
    tp = topology(fabric, failed_cables(fabric, failed))

    rows: list[Flow] = []
    turn: dict[int, int] = {}                           # destination switch → flows so far
    for path in cf.paths:
        a0 = int(np.flatnonzero(tp.host_up == path[0])[0])
        t_sw = int(tp.host_sw[int(np.flatnonzero(tp.host_down == path[-1])[0])])
        dst = tp.nic_ports(t_sw)
        for a in tp.nic_ports(int(tp.host_sw[a0])).tolist():
            b = int(dst[turn.get(t_sw, 0) % len(dst)])
            turn[t_sw] = turn.get(t_sw, 0) + 1
            if tp.host_nic[a] == tp.host_nic[b]:
                continue
            rows.append(host_flow(fabric, tp, a, b, path[1:-1]))
    return cyc, ClosingFlows.of(rows)


def pfc_lines(summary: dict) -> list[str]:
    """The deadlock and watchdog lines of a PFC run's summary ([] when neither happened)."""
    out = []
    d = summary.get("deadlock")
    if d:
        end = (f", broken at {d['cleared_s'] * 1e3:.3f} ms" if d["cleared_s"] is not None
               else ", lasting to the end")
        out.append(f"PFC deadlock from {d['since_s'] * 1e3:.3f} ms{end}: {len(d['links'])} links paused for good, "
                   f"{d['flows']} flows stuck")
    w = summary.get("pfc_watchdog")
    if w:
        out.append(f"PFC watchdog: {w['storms']} storm(s) on {w['storm_links']} link(s), "
                   f"{w['dropped_bytes']:,.0f} bytes dropped")
    return out


__all__ = ["pfc_lines", "ACTIONS", "DeadlockLog", "PfcWatchdog", "WatchdogParams", "cycle_load", "deadlocked"]
