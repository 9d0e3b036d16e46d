"""Flow completion times (FCT) of a run's finite flows, and their slowdown against the ideal.

A flow with a size (``bytes`` finite) completes; its FCT is the time from when it may send to
when its last byte arrives:

* **max-min** — progressive max-min (:func:`completion_times`): the flows running together at
  t=0 share the fabric max-min fairly; whenever some finish, the rest are re-solved on the
  freed capacity (event-driven, exact). The path's base latency (one packet, empty queues,
  :mod:`.latency`) is added. It is a flow-level estimate: no queues, no congestion control.
  Past :data:`MAX_SOLVES` distinct completion times, completions are batched (the flows
  finishing before a batch's last one keep their rate until it) — said in the result.
* **fluid** — the model's own ``finish_s`` (delivery tick by tick, queues and pauses included)
  minus the flow's start (a stepped flow's start is when its step first sent). Flows the run
  did not finish have no FCT: they are counted and listed, never dropped.

The ideal FCT of a flow is bytes / its line rate (:meth:`~.engine.SimResult.line_rates`: its first
hop's rate; a multi-plane run's flow, the sum over its planes) + its base latency; the slowdown is
FCT / ideal (≥ 1 up to the fluid model's own tick rounding).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .latency import flow_latency_ns, flow_nic_ns, link_latency
from .maxmin import maxmin

if TYPE_CHECKING:
    import scipy.sparse as sp

    from ..model import Fabric
    from .engine import SimResult
    from .links import LinkTable
    from .paths import Routes

#: Most max-min re-solves of one run; beyond it completions are batched (see module doc).
MAX_SOLVES = 512
#: Re-solves × route entries one run may spend (a 128-rank all-to-all: ~30 re-solves), at least
#: :data:`MIN_SOLVES`: keeps a big sized run within a few times one solve.
WORK = 4e6
MIN_SOLVES = 16
#: How many unfinished flows the text summary names (the JSON lists them all).
SHOWN_UNFINISHED = 5


@dataclass(frozen=True)
class Completion:
    """Progressive max-min: finish time per flow from t=0 (nan: long-lived or never served)."""

    finish_s: np.ndarray
    solves: int             # max-min solves after the first
    batch: int              # completions per re-solve (1: exact)


def completion_times(solve: Callable[[np.ndarray], np.ndarray], size_bytes: np.ndarray,
                     rate_gbps: np.ndarray, entries: int = 0) -> Completion:
    """Finish times of progressive max-min: ``rate_gbps`` (the t=0 solution) until the next
    completion, then ``solve(still_running)`` (rates per flow, 0 where not running), and so on;
    ``entries``: the routes' link entries, for the re-solve budget (:data:`WORK`)."""
    max_solves = int(min(MAX_SOLVES, max(MIN_SOLVES, WORK // max(entries, 1))))
    size = np.asarray(size_bytes, float)
    F = len(size)
    finish = np.full(F, np.nan)
    finite = np.isfinite(size)
    running = np.ones(F, bool)
    finish[finite & (size <= 0)] = 0.0
    running[finite & (size <= 0)] = False
    left = np.where(finite, np.maximum(size, 0.0), np.inf)
    rate = np.asarray(rate_gbps, float).copy()
    batch = max(1, math.ceil(int(finite.sum()) / max_solves))
    t, solves = 0.0, 0
    while True:
        due = finite & running & (rate > 0)
        if not due.any():
            break                                    # done, or the rest get no share at all
        need = np.full(F, np.inf)
        need[due] = left[due] * 8 / (rate[due] * 1e9)
        order = np.sort(need[due])
        dt = float(order[min(batch, len(order)) - 1])
        done = due & (need <= dt * (1 + 1e-12))
        finish[done] = t + need[done]
        left = np.where(running, left - rate * 1e9 / 8 * dt, left)
        left[done] = 0.0
        t += dt
        running &= ~done
        if not (finite & running).any():
            break
        rate = np.where(running, solve(running), 0.0)
        solves += 1
    return Completion(finish, solves, batch)


def maxmin_solver(A: sp.csr_matrix, cap: np.ndarray, demand: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """``solve(running)`` for :func:`completion_times`: max-min over the running flows' rows."""
    import scipy.sparse as sp
    A = sp.csr_matrix(A)

    def solve(running: np.ndarray) -> np.ndarray:
        out = np.zeros(len(running))
        out[running] = maxmin(A[running], cap, demand[running]).rate
        return out
    return solve


def base_latency_ns(links: LinkTable, routes: Routes) -> np.ndarray:
    """Per flow: one packet's latency along its path with empty queues, NICs included (the
    max-min frame's flow latency)."""
    lat = link_latency(links)
    return flow_latency_ns(links, routes, np.where(np.isfinite(lat.total), lat.total, 0.0),
                           flow_nic_ns(links, routes), lat)


@dataclass(frozen=True)
class FlowTimes:
    """Per flow of a run (nan where it has none): when it may send, when it finished, its FCT,
    ideal FCT and mean rate over its life (bytes × 8 / FCT)."""

    bytes: np.ndarray
    start_s: np.ndarray
    finish_s: np.ndarray
    fct_s: np.ndarray
    ideal_s: np.ndarray
    rate_gbps: np.ndarray
    model: str              # how the FCTs were found, in words

    @property
    def finite(self) -> np.ndarray:
        return np.isfinite(self.bytes)

    @property
    def finished(self) -> np.ndarray:
        return self.finite & np.isfinite(self.fct_s)


def flow_times(res: SimResult) -> FlowTimes | None:
    """The run's FCTs (module doc); None when it has no finite flow."""
    fl = res.flows
    size = fl.bytes
    if not np.isfinite(size).any():
        return None
    base = base_latency_ns(res.links, res.routes)
    line = res.line_rates()
    with np.errstate(divide="ignore", invalid="ignore"):
        ideal = np.where(np.isfinite(size) & (line > 0), size * 8 / (line * 1e9), np.nan) + base * 1e-9
    if res.fluid is None:
        c = res.completion
        assert c is not None, "a max-min run with finite flows has its completion times"
        start = fl.start_s.astype(float)
        finish = start + c.finish_s + base * 1e-9
        model = "progressive max-min (re-solved at each completion) + base latency" if c.batch == 1 else \
            f"progressive max-min (re-solved every {c.batch} completions) + base latency"
    else:
        f = res.fluid
        begin = f.begin_s if f.begin_s is not None else np.full(len(fl), np.nan)
        start = np.where(fl.step >= 0, begin, fl.start_s)
        finish = np.where(np.isfinite(size), f.finish_s, np.nan)
        model = "fluid model (delivery of the last byte)"
    fct = finish - start
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(fct > 0, size * 8 / (fct * 1e9), np.nan)
    return FlowTimes(size, start, finish, fct, ideal, rate, model)


def _stats(v: np.ndarray, scale: float, digits: int) -> dict:
    if not len(v):
        return {"median": None, "p99": None, "max": None}
    return {"median": round(float(np.median(v)) * scale, digits),
            "p99": round(float(np.percentile(v, 99)) * scale, digits),
            "max": round(float(v.max()) * scale, digits)}


def fct_summary(res: SimResult, fabric: Fabric) -> dict:
    """The ``fct`` and ``slowdown`` blocks of a run's summary, and every unfinished flow
    (empty when the run has no finite flow). p99 interpolates linearly between ranks."""
    times = flow_times(res)
    if times is None:
        return {}
    done = times.finished
    fct, slow = times.fct_s[done], (times.fct_s / times.ideal_s)[done]
    unfinished = np.flatnonzero(times.finite & ~done)
    fl = res.flows
    got = res.fluid.delivered_bytes if res.fluid is not None else np.zeros(len(fl))
    st = _stats(fct, 1e6, 3)
    out: dict = {"fct": {"model": times.model, "finite_flows": int(times.finite.sum()),
                         "finished": int(done.sum()), "unfinished": int(len(unfinished)),
                         "median_us": st["median"], "p99_us": st["p99"], "max_us": st["max"],
                         "mean_rate_gbps": round(float(times.rate_gbps[done].mean()), 6) if done.any() else None},
                 "slowdown": _stats(slow, 1.0, 4),
                 "unfinished_flows": [{"flow": int(i), "src": fabric.name_of(int(fl.src[i])),
                                       "dst": fabric.name_of(int(fl.dst[i])), "bytes": float(fl.bytes[i]),
                                       "delivered_bytes": round(float(got[i]), 3)} for i in unfinished.tolist()]}
    return out


def fct_lines(s: dict) -> list[str]:
    """The summary's FCT lines as text (none without finite flows)."""
    if "fct" not in s:
        return []
    f, sd = s["fct"], s["slowdown"]
    head = f"flow completion ({f['finished']} of {f['finite_flows']} sized flows finished; {f['model']}):"
    lines = [head]
    if f["finished"]:
        lines.append(f"  FCT median {f['median_us']:,.1f} us  p99 {f['p99_us']:,.1f} us  max {f['max_us']:,.1f} us;"
                     f" mean rate {f['mean_rate_gbps']:.1f} Gb/s")
        lines.append(f"  slowdown vs ideal (bytes / line rate + base latency): median {sd['median']:.3f}"
                     f"  p99 {sd['p99']:.3f}  max {sd['max']:.3f}")
    un = s["unfinished_flows"]
    if un:
        shown = un[:SHOWN_UNFINISHED]
        more = f" ({len(shown)} shown; all in --json)" if len(un) > len(shown) else ""
        lines.append(f"  unfinished (no FCT): {len(un)} flow(s){more}:")
        lines += [f"    {u['src']} -> {u['dst']}: {u['delivered_bytes']:,.0f} of {u['bytes']:,.0f} bytes"
                  for u in shown]
    return lines


__all__ = ["Completion", "FlowTimes", "MAX_SOLVES", "base_latency_ns", "completion_times", "fct_lines",
           "fct_summary", "flow_times", "maxmin_solver"]
