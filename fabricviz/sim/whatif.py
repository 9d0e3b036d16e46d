"""Failure what-if: what losing K cables, switches or links of a tier costs a design.

Each trial fails a random set of K elements (seeded), takes them down on a copy of the
design (the user's design is never touched: failed cables are removed from the copy, a
failed switch loses every cable), re-routes the copy as ``fabricviz simulate`` would (on
InfiniBand a fresh sweep of the subnet manager with the routing engine — new LIDs and LFTs
on the surviving subnet; on RoCE ECMP over the surviving graph) and runs max-min on one
fixed, seeded workload made on the intact design. The metric is the mean per-flow max-min
rate (``allreduce:SIZE``: the ring all-reduce busbw of :mod:`.collective` over the GPUs still
reachable, in GB/s); flows touching a host that lost every path (:mod:`.reach`) are left out and counted,
and those hosts are the trial's disconnected hosts.

A trial is a pure function of ``(shared, trial_index)`` (:func:`run_trial`): its random draw
comes from ``SeedSequence(seed, spawn_key=(K, index))``, so trials can run in any order, on
any worker, and give the same numbers. A full re-route per trial costs ~15 ms on a radix-16
three-level fat tree (1,024 hosts), so no incremental re-hashing is attempted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from ..model import Fabric, FabricError
from .links import SWITCH_CODES
from .units import ParamError
from .workloads import Flows

KINDS = ("cables", "switches", "links-of")
#: links-of:TIER → the pair of device tiers (:func:`fabricviz.ib.tiers.device_tiers`) a cable joins.
TIERS = {"host": (0, 1), "leaf-spine": (1, 2), "spine-core": (2, 3)}
METRICS = ("permutation", "alltoall", "allreduce")
ALLREDUCE_REFUSED = "allreduce metric: needs fabricviz collective (not yet)"
STATS = ("min", "p5", "median", "p95", "max")


@dataclass(frozen=True)
class FailSpec:
    """What fails: ``kind`` (cables | switches | links-of), the tier of links-of, the K values."""

    kind: str
    tier: str | None
    ks: tuple[int, ...]

    @property
    def what(self) -> str:
        """``cables``, ``switches`` or ``links-of:leaf-spine`` (without the K values)."""
        return f"links-of:{self.tier}" if self.kind == "links-of" else self.kind

    @property
    def label(self) -> str:
        return f"{self.what}:{','.join(map(str, self.ks))}"


def parse_fail(text: str) -> FailSpec:
    """``cables:K``, ``switches:K`` or ``links-of:TIER:K``; K may be a list ``1,2,4``."""
    kind, _, rest = text.strip().partition(":")
    kind = kind.strip().lower()
    tier = None
    if kind == "links-of":
        tier, _, rest = rest.partition(":")
        tier = tier.strip().lower()
        if tier not in TIERS:
            raise ParamError("fail", text, f"unknown tier {tier!r} (use {', '.join(TIERS)})")
    elif kind not in KINDS:
        raise ParamError("fail", text, "use cables:K, switches:K or links-of:TIER:K")
    try:
        ks = tuple(int(k) for k in rest.split(","))
    except ValueError:
        raise ParamError("fail", text, "K is a count or a list of counts (cables:1,2,4)") from None
    if any(k < 1 for k in ks):
        raise ParamError("fail", text, "K must be at least 1")
    return FailSpec(kind, tier, tuple(sorted(set(ks))))


def parse_metric(text: str) -> str:
    """``permutation``, ``alltoall`` or ``allreduce:SIZE`` (ring all-reduce busbw of :mod:`.collective`
    at that buffer size, default 1GB), normalised."""
    name, _, arg = text.strip().partition(":")
    name = name.lower()
    if name not in METRICS:
        raise ParamError("metric", text, "is not one of permutation, alltoall, allreduce:SIZE")
    if name != "allreduce":
        return name
    try:
        from . import collective  # noqa: F401
    except ImportError:
        raise FabricError(ALLREDUCE_REFUSED) from None
    from .workloads import parse_size
    try:
        size = parse_size(arg) if arg else 1e9
    except FabricError as e:
        raise ParamError("metric", text, str(e)) from None
    return f"allreduce:{int(size) if float(size).is_integer() else size!r}"


def elements(fabric: Fabric, spec: FailSpec) -> tuple[np.ndarray, tuple[str, ...], tuple[np.ndarray, ...]]:
    """The elements of that kind: (ids, names, the cables each takes down), in id order."""
    ct, pt, t = fabric.cables_t, fabric.ports_t, fabric.devices_t
    live = fabric.cable_ids().astype(np.int64)
    if spec.kind == "switches":
        ids = np.flatnonzero(t.alive & np.isin(t.kind, SWITCH_CODES)).astype(np.int64)
        cabled = np.flatnonzero(pt.cable >= 0)
        dev = pt.device[cabled].astype(np.int64)
        cab = pt.cable[cabled].astype(np.int64)
        per = tuple(np.unique(cab[dev == d]) for d in ids.tolist())
        return ids, tuple(fabric.name_of(int(d)) for d in ids.tolist()), per
    if spec.kind == "links-of":
        from ..ib.tiers import device_tiers
        assert spec.tier is not None
        tiers = device_tiers(fabric)
        ta = tiers[pt.device[ct.port_a[live]].astype(np.int64)]
        tb = tiers[pt.device[ct.port_b[live]].astype(np.int64)]
        lo, hi = TIERS[spec.tier]
        live = live[((ta == lo) & (tb == hi)) | ((ta == hi) & (tb == lo))]
    return live, tuple(fabric.cable(int(c)).label for c in live.tolist()), tuple(live[:, None])


@dataclass(frozen=True)
class TrialResult:
    """One trial: the failed elements' names, the metric, and who lost every path."""

    k: int
    index: int
    failed: tuple[str, ...]
    metric_gbps: float            # mean per-flow max-min rate of the flows that still run
    relative: float               # metric / the intact design's
    disconnected: tuple[str, ...]  # hosts that lost every path (beyond those out of the intact run)
    dropped_flows: int            # flows touching them, left out
    delivered: float              # aggregate rate / the intact design's (left-out flows count as 0)

    def to_dict(self) -> dict[str, Any]:
        return {"k": self.k, "trial": self.index, "failed": list(self.failed),
                "metric_gbps": self.metric_gbps, "relative": self.relative,
                "delivered": self.delivered, "disconnected_hosts": list(self.disconnected),
                "dropped_flows": self.dropped_flows}


@dataclass(frozen=True)
class Shared:
    """Everything a trial reads (scatter it once to workers): the design, its failure candidates,
    the metric's flows, the routing and the intact design's metric."""

    fabric: Fabric
    spec: FailSpec
    ids: np.ndarray
    names: tuple[str, ...]
    cables: tuple[np.ndarray, ...]
    flows: Flows
    metric: str
    engine: str
    seed: int
    trials: tuple[tuple[int, int], ...]   # (K, index) per trial; --worst: (1, element)
    worst: bool
    intact_gbps: float = 0.0
    intact_out: frozenset[str] = frozenset()


def with_cables_down(fabric: Fabric, cables: np.ndarray) -> Fabric:
    """``fabric`` itself when nothing fails, else a copy without ``cables`` (ids stay as they are)."""
    if not len(cables):
        return fabric
    fab = fabric.copy()
    fab.remove_cables(np.unique(cables).tolist())
    return fab


def failed_fabric(shared: Shared, trial_index: int) -> Fabric:
    """The design as trial ``trial_index`` runs it: its failed elements' cables down, on a copy."""
    pick = trial_elements(shared, trial_index).tolist()
    down = np.concatenate([shared.cables[j] for j in pick]) if pick else np.zeros(0, np.int64)
    return with_cables_down(shared.fabric, down)


def measure(shared: Shared, fab: Fabric) -> tuple[float, tuple[str, ...], int]:
    """(mean per-flow rate, left-out host names, dropped flows) of the metric's flows on ``fab``
    (the design or a failed copy of it), routed as ``simulate`` routes it."""
    from .compare import run_workload
    if shared.metric.startswith("allreduce:"):
        return _allreduce(shared, fab)
    try:
        res = run_workload(fab, shared.flows, "maxmin", 1e-3, shared.seed, None, shared.engine)
    except FabricError as e:
        if not str(e).startswith("no flows to simulate"):
            raise
        from .reach import host_reach
        return 0.0, tuple(u.name for u in host_reach(fab).left_out), len(shared.flows)
    rate = res.flow_rates()
    return (float(rate.mean()) if len(rate) else 0.0), tuple(u.name for u in res.left_out), int(res.dropped_flows)


def _allreduce(shared: Shared, fab: Fabric) -> tuple[float, tuple[str, ...], int]:
    """(ring all-reduce busbw in GB/s, left-out hosts, GPUs left out) over the intact design's ranks
    (``shared.flows``: the ring's neighbour transfers, ``src`` the ranks in ring order). A job whose
    rank lost its fabric fails — NCCL needs every rank — so any GPU cut off scores 0, never a
    smaller collective's busbw (not comparable with the intact one's)."""
    from .collective import Solver, collective
    from .reach import host_reach
    reach = host_reach(fab)
    ranks = shared.flows.src[reach.keep(shared.flows.src)]
    left = tuple(u.name for u in reach.left_out)
    if len(ranks) < max(len(shared.flows), 2):
        return 0.0, left, len(shared.flows) - len(ranks)
    size = float(shared.metric.partition(":")[2])
    res = collective(fab, "allreduce", np.array([size]), gpus=",".join(fab.name_of(int(g)) for g in ranks),
                     seed=shared.seed, solver=Solver(fab, None, None, shared.seed, shared.engine))
    return float(res.rows[0].busbw), left, len(shared.flows) - len(ranks)


def trial_elements(shared: Shared, trial_index: int) -> np.ndarray:
    """Indices (into ``shared.ids``) of the elements trial ``trial_index`` fails, sorted."""
    k, i = shared.trials[trial_index]
    if shared.worst:
        return np.array([i], np.int64)
    rng = np.random.default_rng(np.random.SeedSequence(shared.seed, spawn_key=(k, i)))
    return np.sort(rng.choice(len(shared.ids), size=k, replace=False)).astype(np.int64)


def run_trial(shared: Shared, trial_index: int) -> TrialResult:
    """Trial ``trial_index`` of ``shared.trials``: a pure function of its arguments."""
    k, i = shared.trials[trial_index]
    pick = trial_elements(shared, trial_index).tolist()
    value, out, dropped = measure(shared, failed_fabric(shared, trial_index))
    rel = value / shared.intact_gbps if shared.intact_gbps > 0 else 0.0
    nf = len(shared.flows)
    return TrialResult(k, i, tuple(shared.names[j] for j in pick), value, rel,
                       tuple(h for h in out if h not in shared.intact_out), dropped, rel * (nf - dropped) / nf)


def prepare(fabric: Fabric, spec: FailSpec, metric: str = "permutation", trials: int = 100, seed: int = 0,
            engine: str = "minhop", worst: bool = False) -> Shared:
    """The shared input of a what-if run (with the intact design's metric measured); refuses
    K larger than the elements of that kind and trials < 1 in one line."""
    from .workloads import make_workload
    if trials < 1:
        raise ParamError("trials", trials, "must be at least 1")
    if seed < 0:
        raise ParamError("seed", seed, "must be 0 or more")
    ids, names, cables = elements(fabric, spec)
    if worst and not len(ids):
        raise ParamError("fail", spec.what, "the design has none")
    for k in spec.ks:
        if not worst and k > len(ids):
            raise ParamError("fail", spec.label, f"K={k} but the design has {len(ids)} {_noun(spec)}")
    if metric.startswith("allreduce:"):
        from .collective import select_gpus
        ranks = select_gpus(fabric, "all")
        flows = Flows(ranks, np.roll(ranks, -1))
    else:
        flows = make_workload(fabric, metric, seed=seed)
        flows = Flows(flows.src, flows.dst)      # long-lived: the max-min rates, no completion times
    plan = tuple((1, j) for j in range(len(ids))) if worst else \
        tuple((k, i) for k in spec.ks for i in range(trials))
    sh = Shared(fabric, spec, ids, names, cables, flows, metric, engine, seed, plan, worst)
    value, out, _ = measure(sh, fabric)
    if value <= 0:
        raise FabricError(f"{fabric.name}: the intact design carries no {metric} traffic")
    from dataclasses import replace
    return replace(sh, intact_gbps=value, intact_out=frozenset(out))


def _noun(spec: FailSpec) -> str:
    return {"cables": "cables", "switches": "switches"}.get(spec.kind, f"{spec.tier} links")


def run_trials(shared: Shared, order: Sequence[int] | None = None,
               progress: Callable[[float], None] | None = None,
               trial: Callable[[Shared, int], TrialResult] = run_trial) -> list[TrialResult]:
    """Every trial of ``shared`` (in ``order``, default index order), returned in index order."""
    n = len(shared.trials)
    idx = list(range(n)) if order is None else list(order)
    out: dict[int, TrialResult] = {}
    for done, j in enumerate(idx, 1):
        out[j] = trial(shared, j)
        if progress is not None:
            progress(done / n)
    return [out[j] for j in range(n)]


#: The columns of ``fabricviz whatif --csv`` (and the What-if dock's CSV); ``rank`` first with --worst.
CSV_COLUMNS = ("k", "trial", "failed", "metric_gbps", "relative", "delivered", "disconnected", "dropped_flows",
               "disconnected_hosts")


def csv_text(rows: Sequence[TrialResult], worst: bool) -> str:
    """One CSV row per trial (per ranked failure, numbered, with ``worst``): the CLI's and the GUI's."""
    import csv
    import io
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow((["rank"] if worst else []) + list(CSV_COLUMNS))
    for i, r in enumerate(rows, 1):
        w.writerow(([i] if worst else []) + [r.k, r.index, ";".join(r.failed), repr(r.metric_gbps),
                                             repr(r.relative), repr(r.delivered), len(r.disconnected),
                                             r.dropped_flows, ";".join(r.disconnected)])
    return buf.getvalue()


def stats(values: np.ndarray) -> dict[str, float]:
    """min, p5, median, p95, max (linear percentiles)."""
    v = np.asarray(values, float)
    p = np.percentile(v, [0, 5, 50, 95, 100])
    return dict(zip(STATS, (float(x) for x in p)))


def per_k(results: Sequence[TrialResult]) -> list[dict[str, Any]]:
    """Per K: trials, the relative metric's distribution and the disconnected hosts (mean, max)."""
    out = []
    for k in sorted({r.k for r in results}):
        rs = [r for r in results if r.k == k]
        disc = np.array([len(r.disconnected) for r in rs])
        out.append({"k": k, "trials": len(rs), "relative": stats(np.array([r.relative for r in rs])),
                    "metric_gbps": stats(np.array([r.metric_gbps for r in rs])),
                    "delivered": stats(np.array([r.delivered for r in rs])),
                    "disconnected_hosts": {"mean": float(disc.mean()), "max": int(disc.max())}})
    return out


def ranked(results: Sequence[TrialResult]) -> list[TrialResult]:
    """Single failures by cost, the share of the intact aggregate rate lost (``1 − delivered``: a
    failure that cuts hosts off loses their flows, though the survivors' mean may rise), then the
    mean per-flow rate, then the name."""
    return sorted(results, key=lambda r: (r.delivered, r.relative, r.failed))


__all__ = ["ALLREDUCE_REFUSED", "CSV_COLUMNS", "FailSpec", "KINDS", "Shared", "TIERS", "TrialResult", "csv_text",
           "elements", "failed_fabric", "measure", "parse_fail", "parse_metric", "per_k", "prepare", "ranked",
           "run_trial", "run_trials", "stats", "trial_elements", "with_cables_down"]
