"""InfiniBand vs RoCE: the same workload on a design and on its other-technology twin.

``compare_techs(fabric, "incast:8", "fluid", 2e-3, seed)`` builds the twin
(:func:`fabricviz.sim.twin.twin`), makes the workload once on the given
design and sends the very same flows (matched by device name) over both, each
with its technology's defaults: InfiniBand runs the subnet manager's static
routes (LFTs of ``engine``, as ``fabricviz simulate``), credit flow control
and no end-to-end congestion control; RoCE runs ECMP, PFC and DCQCN. Every
number of the comparison comes from the two runs (``SimResult.summary`` and
their frames); the table and the plain-English lines are shared by the CLI
and the GUI.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model import SWITCH_KINDS, Fabric, FabricError, LinkRate
from ..model.fabric import KIND_CODE
from .engine import SimResult, fabric_tech, roce_fluid, simulate
from .reach import Reach, host_reach
from .units import ParamError
from .workloads import Flows, make_workload

TECH_TITLES = {"ib": "InfiniBand", "roce": "RoCE"}

#: (key, label, unit, how the difference is given: "ratio" RoCE/IB or "delta" RoCE − IB).
METRICS: tuple[tuple[str, str, str, str], ...] = (
    ("throughput_gbps", "Aggregate throughput", "Gb/s", "ratio"),
    ("rate_share_mean", "Flow rate / line rate, mean", "", "delta"),
    ("rate_share_min", "Flow rate / line rate, min", "", "delta"),
    ("latency_mean_us", "Flow latency, mean", "µs", "ratio"),
    ("latency_p99_us", "Flow latency, p99", "µs", "ratio"),
    ("paused_links", "Paused links", "", "delta"),
    ("max_paused_fraction", "Max paused fraction", "%", "delta"),
    ("max_queue_bytes", "Max queue", "KB", "ratio"),
)
#: The table's last row: each side's transport (:mod:`.transport`), e.g. ``ib | roce-gbn``.
TRANSPORT_ROW = "Transport"


def run_workload(fabric: Fabric, flows: Flows, model: str, duration_s: float, seed: int,
                 routing: str | None = None, engine: str = "minhop",
                 progress: Callable[[float], None] | None = None, fluid=None,
                 same_seed: bool = False, reach: Reach | None = None, sm: Any = None,
                 transport: str | None = None, stop_when_done: bool = False) -> SimResult:
    """``flows`` over ``fabric`` as ``fabricviz simulate`` runs them: on InfiniBand with
    static routing the subnet manager's LFTs from ``engine`` (``dmodk``: the built-in walk);
    ``fluid`` (FluidParams) overrides the fluid model's defaults; ``same_seed``: one ECMP hash
    seed on every switch. Hosts out of reach are left out (``reach``: default, who the
    subnet manager's sweep, or the main Ethernet island, reaches). ``sm``: the SM's routing
    of this very fabric with ``engine`` when the caller already has it (the GUI's routing
    cache), instead of routing again. ``stop_when_done``: a fluid run of sized flows ends with
    the last one."""
    provider = None
    tech = fabric_tech(fabric)
    if tech == "ib" and routing in (None, "static") and engine != "dmodk":
        from ..ib.routing import route
        from .paths import sm_paths
        if sm is None or sm.engine != engine or sm.subnet.fabric is not fabric:
            sm = route(fabric, engine)
        provider = sm_paths(sm)
        reach = host_reach(fabric, tech, subnet=sm.subnet) if reach is None else reach
    return simulate(fabric, flows, routing, model, duration_s, seed, same_seed, provider=provider,
                    progress=progress if model == "fluid" else None, fluid=fluid, reach=reach,
                    sm=sm if provider is not None else None, transport=transport, stop_when_done=stop_when_done)


def map_flows(flows: Flows, src: Fabric, dst: Fabric) -> Flows:
    """The same flows on ``dst``: endpoints matched by device name."""
    ends = np.unique(np.concatenate([flows.src, flows.dst]))
    table = {}
    for d in ends.tolist():
        name = src.name_of(int(d))
        other = dst.find(name)
        if other is None:
            raise FabricError(f"flow endpoint {name}: not in {dst.name}")
        table[d] = other
    look = np.vectorize(table.__getitem__, otypes=[np.int64])
    return Flows(look(flows.src) if len(flows) else flows.src, look(flows.dst) if len(flows) else flows.dst,
                 flows.bytes, flows.rate_gbps, flows.start_s, flows.step).with_sl(flows.sl, flows.sl_given)


@dataclass(frozen=True)
class TechRun:
    """One side: the design, its run, the run's summary and the compared numbers."""

    tech: str                      # "ib" or "roce"
    fabric: Fabric
    result: SimResult
    summary: dict
    is_twin: bool
    throughput_gbps: float
    rate_share_mean: float
    rate_share_min: float
    latency_mean_us: float
    latency_p99_us: float
    paused_links: int | None       # None: the model has no pauses (max-min)
    max_paused_fraction: float | None
    max_queue_bytes: float | None
    max_queue_link: str | None

    @property
    def title(self) -> str:
        """``InfiniBand (QM9700 × 36, 4xNDR)``; `` · twin`` on the built side."""
        return f"{TECH_TITLES[self.tech]} ({parts_label(self.fabric)})" + (" · twin" if self.is_twin else "")

    def value(self, key: str) -> float | int | None:
        return getattr(self, key)

    @property
    def transport(self) -> str:
        """The transport the run assumed (ib | roce-gbn | roce-ooo)."""
        return self.result.transport.transport if self.result.transport is not None else ""


def parts_label(fabric: Fabric, most: int = 2) -> str:
    """Switch parts by count, most used first, and the most common cable rate."""
    t = fabric.devices_t
    sw = np.flatnonzero(t.alive & np.isin(t.kind, [KIND_CODE[k] for k in SWITCH_KINDS]))
    parts = Counter(fabric.part_id_of(int(d)) for d in sw)
    text = ", ".join(f"{p} × {n}" for p, n in parts.most_common(most)) + ("…" if len(parts) > most else "")
    ct = fabric.cables_t
    live = fabric.cable_ids()
    if len(live):
        codes = Counter(zip(ct.tech[live].tolist(), ct.speed[live].tolist(), ct.width[live].tolist(), strict=True))
        text += (", " if text else "") + str(LinkRate.decode(*codes.most_common(1)[0][0]))
    return text or "no switches"


def _side(tech: str, fabric: Fabric, res: SimResult, is_twin: bool) -> TechRun:
    s = res.summary(fabric)
    lat = np.asarray(res.steady("flow_latency_ns"), float)
    if res.fluid is not None and res.fluid.begin_s is not None:   # the flows the summary counts: those that sent
        lat = lat[~np.isnan(res.fluid.begin_s)]
    lat = lat[np.isfinite(lat)]
    paused = fraction = queue = link = None
    if res.fluid is not None:
        paused = int(s["paused_link_count"])
        fraction = float(res.fluid.paused_fraction.max()) if len(res.fluid.paused_fraction) else 0.0
        queue, link = float(s["max_queue"]["bytes"]), s["max_queue"]["link"]
    return TechRun(tech, fabric, res, s, is_twin, float(s["rate_gbps"]["total"]),
                   float(s["rate_share"]["mean"]), float(s["rate_share"]["min"]),
                   float(lat.mean() / 1e3) if len(lat) else 0.0,
                   float(np.percentile(lat, 99) / 1e3) if len(lat) else 0.0,
                   paused, fraction, queue, link)


@dataclass(frozen=True)
class TechComparison:
    """Both runs and their difference; ``rows()`` is the table, ``lines`` the sentences."""

    ib: TechRun
    roce: TechRun
    workload: str
    model: str
    duration_s: float
    seed: int
    lines: tuple[str, ...]

    @property
    def given(self) -> TechRun:
        return self.roce if self.ib.is_twin else self.ib

    @property
    def twin(self) -> TechRun:
        return self.ib if self.ib.is_twin else self.roce

    def difference(self, key: str) -> float | None:
        """RoCE / InfiniBand for "ratio" metrics, RoCE − InfiniBand for "delta" ones
        (None when a side has no value or the ratio divides by zero)."""
        kind = next(m[3] for m in METRICS if m[0] == key)
        a, b = self.ib.value(key), self.roce.value(key)
        if a is None or b is None:
            return None
        if kind == "delta":
            return b - a
        return b / a if a else None

    def rows(self) -> list[tuple[str, str, str, str]]:
        """(label with unit, InfiniBand, RoCE, difference) as display text; the transports last."""
        out = []
        for key, label, unit, kind in METRICS:
            a, b, d = self.ib.value(key), self.roce.value(key), self.difference(key)
            head = f"{label} ({unit})" if unit and unit != "%" else label
            out.append((head, _fmt(key, a), _fmt(key, b), _fmt_diff(key, kind, d)))
        return out + [(TRANSPORT_ROW, self.ib.transport, self.roce.transport, "–")]

    def to_dict(self) -> dict[str, Any]:
        side = lambda r: {"title": r.title, "fabric": r.fabric.name, "twin": r.is_twin,  # noqa: E731
                          **{k: r.value(k) for k, *_ in METRICS}, "max_queue_link": r.max_queue_link,
                          "transport": r.transport,
                          "summary": r.summary}
        fl = self.roce.result.fluid
        return {"workload": self.workload, "model": self.model, "duration_s": self.duration_s,
                "dcqcn_preset": fl.dcqcn_preset if fl is not None else None,
                "seed": self.seed, "flows": int(len(self.ib.result.flows)),
                "ib": side(self.ib), "roce": side(self.roce),
                "difference": {k: self.difference(k) for k, *_ in METRICS}, "lines": list(self.lines)}


def _fmt(key: str, v: float | int | None) -> str:
    if v is None:
        return "–"
    if key == "throughput_gbps":
        return f"{v:,.1f}"
    if key.startswith("rate_share"):
        return f"{v:.3f}"
    if key.startswith("latency"):
        return f"{v:.2f}"
    if key == "paused_links":
        return str(v)
    if key == "max_paused_fraction":
        return f"{v:.1%}"
    return f"{v / 1e3:,.1f}"                      # queue in KB


def _fmt_diff(key: str, kind: str, d: float | None) -> str:
    if d is None:
        return "–"
    if kind == "ratio":
        return f"{d:.3g}×"
    if key == "paused_links":
        return f"{d:+d}"
    if key == "max_paused_fraction":
        return f"{d * 100:+.1f} pts"
    return f"{d:+.3f}"


def _versus(what: str, ratio: float) -> str:
    """``p99 latency 3.1× InfiniBand``, ``throughput 1.2% of InfiniBand's``, ``the same throughput``."""
    if abs(ratio - 1) < 0.005:
        return f"the same {what} as InfiniBand"
    if ratio < 0.1:
        return f"{what} {ratio:.1%} of InfiniBand's"
    return f"{what} {ratio:.2g}× InfiniBand" if ratio < 10 else f"{what} {ratio:,.0f}× InfiniBand"


def _bytes(v: float) -> str:
    return f"{v / 1e6:.2f} MB" if v >= 1e6 else f"{v / 1e3:.1f} KB"


def explain(ib: TechRun, roce: TechRun) -> tuple[str, ...]:
    """The difference in a few plain sentences, numbers from the two runs."""
    lines = []
    head = []
    if roce.paused_links is not None:
        head.append(f"{roce.paused_links} link{'s' if roce.paused_links != 1 else ''} paused by PFC"
                    if roce.paused_links else "no link paused by PFC")
    if ib.latency_p99_us > 0:
        head.append(_versus("p99 latency", roce.latency_p99_us / ib.latency_p99_us))
    if ib.throughput_gbps > 0:
        head.append(_versus("throughput", roce.throughput_gbps / ib.throughput_gbps))
    lines.append("RoCE: " + ", ".join(head))
    lines.append(f"Throughput: InfiniBand {ib.throughput_gbps:,.1f} Gb/s, RoCE {roce.throughput_gbps:,.1f} Gb/s; "
                 f"flow rate / line rate mean {ib.rate_share_mean:.3f} vs {roce.rate_share_mean:.3f}.")
    if "steady_from_s" in ib.summary:
        lines.append(f"Rates and latencies are means over the steady part of the run (from "
                     f"{ib.summary['steady_from_s'] * 1e3:g} ms); queues and pauses cover the whole run.")
    lines.append(f"Flow latency: InfiniBand mean {ib.latency_mean_us:.2f} µs, p99 {ib.latency_p99_us:.2f} µs; "
                 f"RoCE mean {roce.latency_mean_us:.2f} µs, p99 {roce.latency_p99_us:.2f} µs.")
    if ib.paused_links is not None and roce.paused_links is not None:
        lines.append(f"Pauses: RoCE {roce.paused_links} link(s) sent PFC pauses (most paused "
                     f"{roce.max_paused_fraction:.1%} of the time); InfiniBand {ib.paused_links} link(s) "
                     f"waited for credits (most {ib.max_paused_fraction:.1%}).")
        # _side sets the queue fields together with paused_links (a fluid run)
        assert ib.max_queue_bytes is not None and roce.max_queue_bytes is not None
        lines.append(f"Largest queue: InfiniBand {_bytes(ib.max_queue_bytes)} at {ib.max_queue_link}; "
                     f"RoCE {_bytes(roce.max_queue_bytes)} at {roce.max_queue_link}.")
    else:
        lines.append("Pauses and queues: the max-min model has none; run the fluid model to see them.")
    last = roce.result.frames[-1] if roce.result.frames else None
    if last is not None and last.has_cc_rate and len(last.flow_cc_rate_gbps):
        rc = np.asarray(last.flow_cc_rate_gbps, np.float64)
        lines.append(f"DCQCN at the end of the run: senders' rate Rc mean {rc.mean():,.2f} Gb/s (min "
                     f"{rc.min():,.2f}); after the first burst's cuts DCQCN climbs back by additive and "
                     "hyper increase, so a longer run shows more of the recovery.")
    twin = ib if ib.is_twin else roce
    record = twin.fabric.settings.twin
    changed = record.changed_rate_cables if record is not None else 0
    if changed:
        lines.append(f"Note: {changed} cable(s) of the {TECH_TITLES[twin.tech]} twin run at another data rate "
                     "(a NIC without that speed in the other technology).")
    return tuple(lines)


def compare_techs(fabric: Fabric, workload_spec: str, model: str, duration_s: float, seed: int = 0,
                  progress: Callable[[float], None] | None = None, engine: str = "minhop",
                  over: str = "auto", other: Fabric | None = None, dcqcn: str | None = None,
                  transport: str | None = None) -> TechComparison:
    """Run ``workload_spec`` on ``fabric`` and on its twin (see module doc).

    ``dcqcn``: the RoCE side's DCQCN preset (paper | nvidia; None: the RoCE design's own
    setting, else nvidia — ConnectX defaults, so the comparison is fair). ``transport``
    (ib | roce-gbn | roce-ooo) applies to the side of its technology; the other side, or both
    when None, runs its own default (InfiniBand ``ib``, RoCE what its NIC parts give).

    ``other`` passes a twin built already (the GUI shows it while the runs go);
    ``progress(x)`` gets 0..1 over both runs.
    """
    from .transport import TRANSPORTS
    from .twin import twin
    if transport is not None and transport not in TRANSPORTS:
        raise ParamError("transport", transport, f"is not one of {', '.join(TRANSPORTS)}")
    given = "ib" if fabric_tech(fabric) == "ib" else "roce"
    flows = make_workload(fabric, workload_spec, seed=seed, over=over)
    if other is None:
        other = twin(fabric, "roce" if given == "ib" else "ib")
    other_flows = map_flows(flows, fabric, other)

    def part(lo: float) -> Callable[[float], None] | None:
        return None if progress is None else (lambda x: progress(lo + 0.5 * min(max(x, 0.0), 1.0)))
    def fluid(f: Fabric):
        return roce_fluid(f, dcqcn) if model == "fluid" and fabric_tech(f) != "ib" else None

    def own(f: Fabric) -> str | None:          # the transport asked for, on its technology's side
        return transport if transport is not None and (transport == "ib") == (fabric_tech(f) == "ib") else None
    first = run_workload(fabric, flows, model, duration_s, seed, engine=engine, progress=part(0.0),
                         fluid=fluid(fabric), transport=own(fabric))
    if progress is not None:
        progress(0.5)
    second = run_workload(other, other_flows, model, duration_s, seed, engine=engine, progress=part(0.5),
                          fluid=fluid(other), transport=own(other))
    if progress is not None:
        progress(1.0)
    a = _side(given, fabric, first, False)
    b = _side("roce" if given == "ib" else "ib", other, second, True)
    ib, roce = (a, b) if given == "ib" else (b, a)
    return TechComparison(ib, roce, workload_spec, model, duration_s, seed, explain(ib, roce))


def _preset_note(c: TechComparison) -> str:
    fl = c.roce.result.fluid
    return f"  (RoCE: DCQCN {fl.dcqcn_preset} preset)" if fl is not None and fl.dcqcn_preset else ""


def format_comparison(c: TechComparison) -> str:
    """The table and the sentences as plain text (the CLI's output)."""
    n = len(c.ib.result.flows)
    when = f", {c.duration_s * 1e3:g} ms" if c.model == "fluid" else ""
    head = [f"{c.workload} ({n} flows), {c.model} model{when}, seed {c.seed}",
            f"{c.ib.title}  vs  {c.roce.title}" + _preset_note(c), ""]
    rows = [("", "InfiniBand", "RoCE", "RoCE vs IB")] + c.rows()
    w0 = max(len(r[0]) for r in rows)
    w = [max(len(r[k]) for r in rows) for k in (1, 2, 3)]
    table = [f"{r[0]:<{w0}}  {r[1]:>{w[0]}}  {r[2]:>{w[1]}}  {r[3]:>{w[2]}}" for r in rows]
    return "\n".join(head + table + [""] + [f"- {line}" for line in c.lines])


__all__ = ["METRICS", "TECH_TITLES", "TRANSPORT_ROW", "TechComparison", "TechRun", "compare_techs", "explain",
           "format_comparison", "map_flows", "parts_label", "run_workload"]
