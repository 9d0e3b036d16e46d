"""Failure what-if: what losing K cables, switches, switches of a tier or links of a tier costs a design.

Each trial fails a random set of K elements (seeded), takes them down on a copy of the
design (the user's design is never touched: failed cables are removed from the copy, a
failed switch loses every cable), re-routes the copy as ``fabricviz simulate`` would (on
InfiniBand a fresh sweep of the subnet manager with the routing engine — new LIDs and LFTs
on the surviving subnet; on RoCE ECMP over the surviving graph) and runs max-min on one
fixed, seeded workload made on the intact design. The metric is the mean per-flow max-min
rate (``allreduce:SIZE``: the ring all-reduce busbw of :mod:`.collective` over every GPU, in GB/s;
0 when a failure cuts a rank off, as NCCL's job fails then); flows touching a host that lost every
path (:mod:`.reach`) are left out and counted,
and those hosts are the trial's disconnected hosts. A host that lost some of its NICs' paths but not
all (a DGX losing one rail's leaf) is *degraded*, not disconnected; ``nics_cut`` counts the NICs cut off.

A trial is a pure function of ``(shared, trial_index)`` (:func:`run_trial`): its random draw
comes from ``SeedSequence(seed, spawn_key=(K, index))`` — K of the candidates :func:`elements` lists,
in id order (``switches-of:spine:K`` draws over the spines only, so it is ``switches:K`` restricted to
them) — so trials can run in any order, on
any worker, and give the same numbers. A full re-route per trial costs ~15 ms on a radix-16
three-level fat tree (1,024 hosts), so no incremental re-hashing is attempted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..model import Fabric, FabricError
from .bounds import MAX_TRIALS
from .links import SWITCH_CODES
from .reach import Unreachable
from .units import ParamError
from .workloads import Flows

KINDS = ("cables", "switches", "switches-of", "links-of", "plane")
#: links-of:TIER → the pair of device tiers (:func:`fabricviz.ib.tiers.device_tiers`) a cable joins.
TIERS = {"host": (0, 1), "leaf-spine": (1, 2), "spine-core": (2, 3)}
#: switches-of:TIER → the device tier of those switches (a two-level tree's top tier is "spine").
SWITCH_TIERS = {"leaf": 1, "spine": 2, "core": 3}
METRICS = ("permutation", "alltoall", "allreduce")
ALLREDUCE_REFUSED = "allreduce metric: needs fabricviz collective (not yet)"
STATS = ("min", "p5", "median", "p95", "max")


@dataclass(frozen=True)
class FailSpec:
    """What fails: ``kind`` (cables | switches | switches-of | links-of), the tier of switches-of
    (leaf | spine | core) or of links-of (host | leaf-spine | spine-core), the K values."""

    kind: str
    tier: str | None
    ks: tuple[int, ...]

    @property
    def what(self) -> str:
        """``cables``, ``switches``, ``switches-of:spine`` or ``links-of:leaf-spine`` (without the K values)."""
        return f"{self.kind}:{self.tier}" if self.tier is not None else self.kind

    @property
    def label(self) -> str:
        return f"{self.what}:{','.join(map(str, self.ks))}"

    @property
    def noun(self) -> str:
        """What fails, in words: ``cables``, ``switches``, ``spine switches``, ``leaf-spine links``."""
        if self.kind == "switches-of":
            return f"{self.tier} switches"
        return f"{self.tier} links" if self.kind == "links-of" else self.kind


def parse_fail(text: str) -> FailSpec:
    """``cables:K``, ``switches:K``, ``switches-of:TIER:K`` (leaf | spine | core) or ``links-of:TIER:K``;
    K may be a list ``1,2,4``."""
    kind, _, rest = text.strip().partition(":")
    kind = kind.strip().lower()
    tier = None
    if kind in ("links-of", "switches-of"):
        tiers = TIERS if kind == "links-of" else SWITCH_TIERS
        tier, _, rest = rest.partition(":")
        tier = tier.strip().lower()
        if tier not in tiers:
            raise ParamError("fail", text, f"unknown tier {tier!r} (use {', '.join(tiers)})")
    elif kind not in KINDS:
        raise ParamError("fail", text, "use cables:K, switches:K, switches-of:TIER:K, links-of:TIER:K or plane:K")
    try:
        ks = tuple(int(k) for k in rest.split(","))
    except ValueError:
        raise ParamError("fail", text, "K is a count or a list of counts (cables:1,2,4)") from None
    if any(k < (0 if kind == "plane" else 1) for k in ks):
        raise ParamError("fail", text, "K must be at least 1" if kind != "plane" else "plane K counts from 0")
    return FailSpec(kind, tier, tuple(sorted(set(ks))))


def parse_metric(text: str) -> str:
    """``permutation``, ``alltoall`` or ``allreduce:SIZE`` (ring all-reduce busbw of :mod:`.collective`
    at that buffer size, default 1GB), normalised."""
    name, _, arg = text.strip().partition(":")
    name = name.lower()
    if name not in METRICS:
        raise ParamError("metric", text, "is not one of permutation, alltoall, allreduce:SIZE")
    if name != "allreduce":
        from .workloads import parse_pattern  # the one workload grammar simulate --workload reads
        try:
            parse_pattern(text.strip())
        except ParamError as e:
            raise ParamError("metric", text, e.problem) from None
        return f"{name}:{arg.strip()}" if arg.strip() else name
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
    """The elements of that kind: (ids, names, the cables each takes down), in id order
    (``switches-of``: the switches of that device tier, :func:`fabricviz.ib.tiers.device_tiers`)."""
    ct, pt, t = fabric.cables_t, fabric.ports_t, fabric.devices_t
    live = fabric.cable_ids().astype(np.int64)
    if spec.kind == "plane":                 # plane K: every cable of the plane's switches
        from .planes import plane_elements
        return plane_elements(fabric)
    if spec.kind in ("switches", "switches-of"):
        ids = np.flatnonzero(t.alive & np.isin(t.kind, SWITCH_CODES)).astype(np.int64)
        if spec.kind == "switches-of":
            from ..ib.tiers import device_tiers
            assert spec.tier is not None
            ids = ids[device_tiers(fabric)[ids] == SWITCH_TIERS[spec.tier]]
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
    """One trial: the failed elements' names, the metric, the hosts that lost every path and those
    that lost some NICs' paths (host names; a NIC outside any server is a host of its own)."""

    k: int
    index: int
    failed: tuple[str, ...]
    metric_gbps: float            # mean per-flow max-min rate of the flows that still run
    relative: float               # metric / the intact design's
    disconnected: tuple[str, ...]  # hosts that lost every path (beyond those out of the intact run)
    dropped_flows: int            # flows touching them, left out
    delivered: float              # aggregate rate / the intact design's (left-out flows count as 0)
    degraded: tuple[str, ...] = ()  # hosts that lost some but not all NIC paths
    nics_cut: int = 0             # NICs cut off (of those reachable in the intact design)

    def to_dict(self) -> dict[str, Any]:
        return {"k": self.k, "trial": self.index, "failed": list(self.failed),
                "metric_gbps": self.metric_gbps, "relative": self.relative,
                "delivered": self.delivered, "disconnected_hosts": list(self.disconnected),
                "dropped_flows": self.dropped_flows, "degraded_hosts": list(self.degraded),
                "nics_cut": self.nics_cut}


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
    nics: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))   # NICs reachable intact
    nic_host: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # their host ids


@dataclass(frozen=True)
class Batch:
    """Several designs' what-if inputs run as one sweep (``fabricviz whatif A.json B.json``): the
    shared input of one :meth:`~.fanout.FanOut.map` whose items are ``(design, trial)``."""

    designs: tuple[Shared, ...]

    def items(self) -> list[tuple[int, int]]:
        return [(d, j) for d, sh in enumerate(self.designs) for j in range(len(sh.trials))]


def run_batch_trial(batch: Batch, item: tuple[int, int]) -> TrialResult:
    """Trial ``j`` of design ``d``: exactly :func:`run_trial` of that design alone."""
    d, j = item
    return run_trial(batch.designs[d], j)


def with_cables_down(fabric: Fabric, cables: np.ndarray) -> Fabric:
    """``fabric`` itself when nothing fails, else a copy without ``cables`` (ids stay as they are)."""
    if not len(cables):
        return fabric
    fab = fabric.copy()
    fab.remove_cables(np.unique(cables).tolist())
    return fab


def failed_cables(shared: Shared, trial_index: int) -> tuple[int, ...]:
    """The cables trial ``trial_index`` (into ``shared.trials``) takes down (a failed switch's every
    cable), sorted: what the GUI draws dashed."""
    pick = trial_elements(shared, trial_index).tolist()
    return tuple(sorted({int(c) for j in pick for c in shared.cables[j].tolist()}))


def failed_fabric(shared: Shared, trial_index: int) -> Fabric:
    """The design as trial ``trial_index`` runs it: its failed elements' cables down, on a copy."""
    pick = trial_elements(shared, trial_index).tolist()
    down = np.concatenate([shared.cables[j] for j in pick]) if pick else np.zeros(0, np.int64)
    return with_cables_down(shared.fabric, down)


def measure(shared: Shared, fab: Fabric) -> tuple[float, tuple[Unreachable, ...], int]:
    """(mean per-flow rate, left-out hosts or NICs (:class:`~.reach.Unreachable`), dropped flows) of
    the metric's flows on ``fab`` (the design or a failed copy of it), routed as ``simulate`` routes it."""
    from .compare import run_workload
    if shared.metric.startswith("allreduce:"):
        return _allreduce(shared, fab)
    if fab.settings.planes:                  # each plane its own subnet: max-min per plane, summed
        from .planes import plane_left_out, plane_traffic
        pt = plane_traffic(fab, shared.flows, shared.engine, seed=shared.seed)
        kept = pt.rate[pt.rate > 0]             # as one run: the flows of hosts cut off are left out
        return (float(kept.mean()) if len(kept) else 0.0), plane_left_out(fab, pt), len(pt.rate) - len(kept)
    try:
        res = run_workload(fab, shared.flows, "maxmin", 1e-3, shared.seed, None, shared.engine)
    except FabricError as e:
        if not str(e).startswith("no flows to simulate"):
            raise
        from .reach import host_reach
        return 0.0, host_reach(fab).left_out, len(shared.flows)
    rate = res.flow_rates()
    return (float(rate.mean()) if len(rate) else 0.0), tuple(res.left_out), int(res.dropped_flows)


def _allreduce(shared: Shared, fab: Fabric) -> tuple[float, tuple[Unreachable, ...], int]:
    """(ring all-reduce busbw in GB/s, left-out hosts, GPUs left out) over the intact design's ranks
    (``shared.flows``: the ring's neighbour transfers, ``src`` the ranks in ring order). A job whose
    rank lost its fabric fails — NCCL needs every rank — so any GPU cut off scores 0, never a
    smaller collective's busbw (not comparable with the intact one's)."""
    from .collective import Solver, collective
    from .reach import host_reach
    reach = host_reach(fab)
    ranks = shared.flows.src[reach.keep(shared.flows.src)]
    left = reach.left_out
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
    if shared.spec.kind == "plane":
        return np.array([k], np.int64)
    rng = np.random.default_rng(np.random.SeedSequence(shared.seed, spawn_key=(k, i)))
    return np.sort(rng.choice(len(shared.ids), size=k, replace=False)).astype(np.int64)


def run_trial(shared: Shared, trial_index: int) -> TrialResult:
    """Trial ``trial_index`` of ``shared.trials``: a pure function of its arguments."""
    k, i = shared.trials[trial_index]
    pick = trial_elements(shared, trial_index).tolist()
    fab = failed_fabric(shared, trial_index)
    value, out, dropped = measure(shared, fab)
    rel = value / shared.intact_gbps if shared.intact_gbps > 0 else 0.0
    nf = len(shared.flows)
    disconnected, degraded, cut = hosts_cut(shared, fab, out)
    return TrialResult(k, i, tuple(shared.names[j] for j in pick), value, rel, disconnected, dropped,
                       rel * (nf - dropped) / nf, degraded, cut)


def _whole_and_cut(fab: Fabric, left_out: Sequence[Unreachable]) -> tuple[np.ndarray, np.ndarray]:
    """Per device id: hosts :mod:`.reach` names whole (a server, or a NIC standing alone), and NICs
    it names alone (and standalone NICs)."""
    from ..model.fabric import KIND_CODE
    t = fab.devices_t
    whole, cut = np.zeros(t.n, bool), np.zeros(t.n, bool)
    dev = np.array([u.device for u in left_out], np.int64)
    if len(dev):
        nic = t.kind[dev] == KIND_CODE["nic"]
        parent = t.parent[dev].astype(np.int64)
        in_server = nic & (parent >= 0) & (t.kind[np.maximum(parent, 0)] == KIND_CODE["server"])
        whole[dev[~in_server]] = True
        cut[dev[nic]] = True
    return whole, cut


def _nic_hosts(fab: Fabric, left_out: Sequence[Unreachable]) -> tuple[np.ndarray, np.ndarray]:
    """The NICs a run on the intact design reaches and each one's host id (its server, or itself)."""
    from ..ib.sharp import sharp_mask
    from ..model.fabric import KIND_CODE
    from .reach import nic_ports
    t = fab.devices_t
    nics = np.flatnonzero(t.alive & (t.kind == KIND_CODE["nic"]) & ~sharp_mask(fab) & (nic_ports(fab) >= 0))
    parent = t.parent[nics].astype(np.int64)
    host = np.where((parent >= 0) & (t.kind[np.maximum(parent, 0)] == KIND_CODE["server"]), parent, nics)
    whole, cut = _whole_and_cut(fab, left_out)
    keep = ~(cut[nics] | whole[host])
    return nics[keep].astype(np.int64), host[keep].astype(np.int64)


def hosts_cut(shared: Shared, fab: Fabric, left_out: Sequence[Unreachable]) -> tuple[tuple[str, ...],
                                                                                     tuple[str, ...], int]:
    """(disconnected hosts, degraded hosts, NICs cut) of a failed copy ``fab``, counting only NICs
    the intact design reaches: a NIC is cut when reach names it or its whole host, or it lost its
    own cable (a spare NIC no GPU uses is not named by reach); a host is disconnected when reach
    names it whole, else degraded when one of its NICs is cut."""
    from .reach import nic_ports
    whole, cut = _whole_and_cut(fab, left_out)
    nics, host = shared.nics, shared.nic_host
    gone = cut[nics] | whole[host] | (nic_ports(fab)[nics] < 0)
    hit = np.unique(host[gone])
    name = fab.name_of
    return (tuple(name(int(h)) for h in hit[whole[hit]]), tuple(name(int(h)) for h in hit[~whole[hit]]),
            int(gone.sum()))


def prepare(fabric: Fabric, spec: FailSpec, metric: str = "permutation", trials: int = 100, seed: int = 0,
            engine: str = "minhop", worst: bool = False) -> Shared:
    """The shared input of a what-if run (with the intact design's metric measured); refuses
    K larger than the elements of that kind and trials < 1 in one line."""
    from .workloads import make_workload
    if not 1 <= trials <= MAX_TRIALS:
        raise ParamError("trials", trials, f"must be 1 to {MAX_TRIALS:,} per K")
    if seed < 0:
        raise ParamError("seed", seed, "must be 0 or more")
    ids, names, cables = elements(fabric, spec)
    if spec.kind == "switches-of" and not len(ids):
        raise ParamError("fail", spec.label, f"the design has no {spec.noun} (its switch tiers: "
                                             f"{', '.join(switch_tiers(fabric)) or 'none'})")
    if worst and not len(ids):
        raise ParamError("fail", spec.what, "the design has none")
    for k in spec.ks:
        if spec.kind == "plane" and k >= len(ids):
            raise ParamError("fail", spec.label, f"plane {k} but the design has {len(ids)} planes"
                                                 + (" (no meta.planes)" if not len(ids) else " (from 0)"))
        if not worst and k > len(ids):
            raise ParamError("fail", spec.label, f"K={k} but the design has {len(ids)} {spec.noun}")
    if metric.startswith("allreduce:"):
        from .collective import select_gpus
        ranks = select_gpus(fabric, "all")
        flows = Flows(ranks, np.roll(ranks, -1))
    else:
        flows = make_workload(fabric, metric, seed=seed)
        flows = Flows(flows.src, flows.dst)      # long-lived: the max-min rates, no completion times
    plan = tuple((1, j) for j in range(len(ids))) if worst else \
        tuple((k, 0) for k in spec.ks) if spec.kind == "plane" else \
        tuple((k, i) for k in spec.ks for i in range(trials))     # plane:K is one trial: plane K down
    sh = Shared(fabric, spec, ids, names, cables, flows, metric, engine, seed, plan, worst)
    value, out, _ = measure(sh, fabric)
    if value <= 0 and metric.startswith("allreduce:") and out:
        from .reach import left_out_line
        raise FabricError(f"{fabric.name}: an all-reduce needs every GPU, and the intact design already cuts "
                          f"some off ({left_out_line(out)})")
    if value <= 0:
        raise FabricError(f"{fabric.name}: the intact design carries no {metric} traffic")
    from dataclasses import replace
    nics, host = _nic_hosts(fabric, out)
    return replace(sh, intact_gbps=value, intact_out=frozenset(u.name for u in out), nics=nics, nic_host=host)


def switch_tiers(fabric: Fabric) -> tuple[str, ...]:
    """The switch tiers (leaf, spine, core) ``fabric`` has switches of: what switches-of:TIER can fail."""
    from ..ib.tiers import device_tiers
    t = fabric.devices_t
    sw = t.alive & np.isin(t.kind, SWITCH_CODES)
    have = set(device_tiers(fabric)[sw].tolist())
    return tuple(name for name, tier in SWITCH_TIERS.items() if tier in have)


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
               "disconnected_hosts", "degraded", "nics_cut", "degraded_hosts")


def csv_text(rows: Sequence[TrialResult], worst: bool,
             designs: Sequence[tuple[str, Sequence[TrialResult]]] = ()) -> str:
    """One CSV row per trial (per ranked failure, numbered, with ``worst``): the CLI's and the GUI's.
    ``designs`` (a batch: ``(label, rows)`` per design) writes those instead, with a leading ``design`` column."""
    import csv
    import io
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    lead = ["design"] if designs else []
    w.writerow(lead + (["rank"] if worst else []) + list(CSV_COLUMNS))
    for label, part in (designs or [("", rows)]):
        for i, r in enumerate(part, 1):
            w.writerow(([label] if designs else []) + ([i] if worst else []) + [
                r.k, r.index, ";".join(r.failed), repr(r.metric_gbps), repr(r.relative), repr(r.delivered),
                len(r.disconnected), r.dropped_flows, ";".join(r.disconnected), len(r.degraded), r.nics_cut,
                ";".join(r.degraded)])
    return buf.getvalue()


def stats(values: np.ndarray) -> dict[str, float]:
    """min, p5, median, p95, max (linear percentiles)."""
    v = np.asarray(values, float)
    p = np.percentile(v, [0, 5, 50, 95, 100])
    return dict(zip(STATS, (float(x) for x in p), strict=True))


def per_k(results: Sequence[TrialResult]) -> list[dict[str, Any]]:
    """Per K: trials, the relative metric's distribution and the disconnected and degraded hosts (mean, max)."""
    out = []
    for k in sorted({r.k for r in results}):
        rs = [r for r in results if r.k == k]
        disc = np.array([len(r.disconnected) for r in rs])
        deg = np.array([len(r.degraded) for r in rs])
        out.append({"k": k, "trials": len(rs), "relative": stats(np.array([r.relative for r in rs])),
                    "metric_gbps": stats(np.array([r.metric_gbps for r in rs])),
                    "delivered": stats(np.array([r.delivered for r in rs])),
                    "disconnected_hosts": {"mean": float(disc.mean()), "max": int(disc.max())},
                    "degraded_hosts": {"mean": float(deg.mean()), "max": int(deg.max())}})
    return out


def ranked(results: Sequence[TrialResult]) -> list[TrialResult]:
    """Single failures by cost, the share of the intact aggregate rate lost (``1 − delivered``: a
    failure that cuts hosts off loses their flows, though the survivors' mean may rise), then the
    mean per-flow rate, then the name."""
    return sorted(results, key=lambda r: (r.delivered, r.relative, r.failed))


__all__ = ["ALLREDUCE_REFUSED", "Batch", "CSV_COLUMNS", "FailSpec", "KINDS", "SWITCH_TIERS", "Shared", "TIERS",
           "TrialResult", "csv_text", "elements", "failed_cables", "failed_fabric", "hosts_cut", "measure",
           "parse_fail", "parse_metric", "per_k", "prepare", "ranked", "run_batch_trial", "run_trial", "run_trials",
           "stats", "switch_tiers", "trial_elements", "with_cables_down"]
