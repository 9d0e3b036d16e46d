"""Lesson actions for lossless RoCE: PFC deadlock cycles after failed links and a fluid run of the
flows that close one (deadlock, then the PFC watchdog). Qt-free.

``pfc_deadlock`` (``fail``: cables taken down — their ports are disabled on a copy of the fabric,
so later steps see the same failures — ``routing`` bounce | converged) finds the cycles of the
buffer dependency graph; the first is drawn like a credit loop (``loop_cables``). ``pfc_run``
(``cc`` default none, ``duration_ms``, ``watchdog_us``, ``watchdog_action``) runs the flows that load
the first cycle, on their paths, through the fluid model with the design's lossless plan; the
cables paused for good are the run's paused cables.

``headroom`` (``ports``: switch ports, e.g. a long optical uplink and a short DAC port; ``method``)
prints each port's PFC headroom with every term of its sum, XOFF/XON, and the buffer budget of the
first port's switch, all from :func:`~fabricviz.ethernet.lossless.lossless_plan`. ``roce_run`` is a
``simulate`` step on the fluid model run as deployed: PFC with the design's lossless plan
(XOFF/XON/headroom and ECN per port) and a DCQCN preset (``dcqcn``: paper | nvidia, default the
design's; ``cc`` dcqcn | none), through :func:`~fabricviz.sim.engine.roce_fluid`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..model import FabricError
from .lesson_actions import simulate_action
from .lesson_results import PortHeadroom, SwitchHeadroom, TracedPath, TrafficRun

Fields = dict[str, Any]


def pfc_deadlock_action(run: Any, p: dict) -> tuple[list[str], Fields]:
    from ..ethernet.pfc_deadlock import check_pfc_deadlock, failed_cables
    f = run.fabric
    fail = [str(x) for x in p.get("fail", [])]
    if fail:
        f = f.copy()
        for c in failed_cables(f, fail).tolist():
            for port in (f.cables_t.port_a[c], f.cables_t.port_b[c]):
                f.set_port_state(int(port), "disabled")
        run.fabric = f
    check = check_pfc_deadlock(f, routing=p.get("routing", "bounce"))
    run.pfc_routing = p.get("routing", "bounce")
    lines = [c.format() for c in check.cycles[:1]] + [check.summary()]
    cyc = check.cycles[0].cables if check.cycles else ()
    return lines, {"loops": len(check.cycles), "loop_cables": tuple(int(c) for c in cyc)}


def pfc_run_action(run: Any, p: dict) -> tuple[list[str], Fields]:
    from ..ethernet.pfc_watchdog import cycle_load, pfc_lines
    from ..sim.engine import roce_fluid, simulate
    from ..sim.summary import format_summary
    from ..sim.workloads import Flows
    f = run.fabric
    cyc, cf = cycle_load(f, routing=getattr(run, "pfc_routing", "bounce"))
    cc = p.get("cc", "none")
    prm = roce_fluid(f, p.get("dcqcn"), "pfc", cc)
    if p.get("watchdog_us") is not None:
        prm = replace(prm, pfc_watchdog_s=float(p["watchdog_us"]) * 1e-6,
                      pfc_watchdog_action=p.get("watchdog_action", "drop"))
    duration_ms = float(p.get("duration_ms", 2))
    res = simulate(f, Flows(cf.src, cf.dst), None, "fluid", duration_ms * 1e-3, provider=cf.provider(), fluid=prm)
    summary = res.summary(f)
    lines = [f"{len(cf)} flows load {cyc.ring()}"] + format_summary(summary).splitlines()
    lines[1] += f", cc {cc}"
    lines += pfc_lines(summary)
    fl = res.fluid
    dead = fl.deadlock_links if fl is not None and fl.deadlock_links is not None else np.zeros(0, bool)
    stuck = tuple(sorted({int(x) // 2 for x in np.flatnonzero(dead) if x < res.links.n_cable_links}))
    if not stuck and fl is not None:
        paused = np.flatnonzero((fl.paused_fraction > 0) & ~res.links.pcie)
        stuck = tuple(sorted({int(x) // 2 for x in paused}))
    tr = TrafficRun(res, summary, "pfc-cycle", (), "fluid", None, "minhop", duration_ms, 0,
                    rates=tuple(float(x) for x in res.flow_rates()), paused_cables=stuck)
    return lines, {"traffic": tr, "loops": 1, "loop_cables": tuple(int(c) for c in cyc.cables)}


def _term_name(key: str) -> str:
    return key.replace("_", " ")


def headroom_action(run: Any, p: dict) -> tuple[list[str], Fields]:
    from ..ethernet.lossless import lossless_plan
    f = run.fabric
    try:
        plan = lossless_plan(f, method=p.get("method"))
    except ValueError as e:
        raise FabricError(f"method: {e}") from None
    rows = []
    for name in p["ports"]:
        try:
            q = int(f.port(name).id)
        except (FabricError, KeyError, ValueError) as e:
            raise FabricError(f"ports: {name!r}: {e}") from None
        if not plan.lossless[q]:
            raise FabricError(f"ports: {name}: not a cabled Ethernet switch port (it has no PFC headroom)")
        rows.append(PortHeadroom(name, q, float(plan.gbps[q]), float(plan.cable_m[q]), str(plan.medium[q]),
                                 float(plan.headroom_bytes[q]), plan.terms(q), float(plan.xoff_bytes[q]),
                                 float(plan.xon_bytes[q])))
    how = "IEEE 802.1Qbb worst case" if plan.method == "ieee" else "NVIDIA rule of thumb"
    lines = [f"PFC headroom per lossless priority ({how}, MTU {plan.mtu} B):"]
    for r in rows:
        lines.append(f"{r.name}: {r.gbps:g} Gb/s, {r.cable_m:g} m {r.medium} cable: headroom {r.headroom:,.0f} B "
                     f"(XOFF {r.xoff:,.0f} B, XON {r.xon:,.0f} B)")
        lines.append("  = " + " + ".join(f"{_term_name(k)} {v:,.0f}" for k, v in r.terms.items()))
    if len(rows) > 1:
        a, b = rows[0], rows[1]
        diff = {k: a.terms[k] - b.terms.get(k, 0.0) for k in a.terms if abs(a.terms[k] - b.terms.get(k, 0.0)) > 0.5}
        lines.append(f"{a.name} needs {a.headroom - b.headroom:+,.0f} B against {b.name}: "
                     + (", ".join(f"{_term_name(k)} {v:+,.1f} B" for k, v in diff.items()) or "no term differs")
                     + " (the sum is rounded up to whole bytes)")
    dev = int(f.ports_t.device[rows[0].port])
    bud = plan.switches[dev]
    buf = (f"buffer {bud.buffer_bytes / 2 ** 20:g} MiB ({'an estimate' if bud.estimated else 'published'})"
           if bud.known else "buffer unknown")
    prios = len(plan.priorities)
    lines.append(f"{f.name_of(dev)} ({bud.part}): {buf}; headroom {bud.headroom_total:,.0f} B over {bud.ports} "
                 f"lossless ports × {prios} priorit{'y' if prios == 1 else 'ies'}, reserved {bud.reserved:,.0f} B, "
                 f"shared pool {bud.shared_pool:,.0f} B (dynamic threshold α {bud.alpha:g})")
    if bud.known:
        lines.append(f"headroom and reserves hold {bud.use:.1%} of the buffer: "
                     + ("it fits" if bud.fits else "it DOES NOT FIT (a pause can come with no headroom left)"))
    cab = int(f.ports_t.cable[rows[0].port])
    first = rows[0]
    view = SwitchHeadroom(f.name_of(dev), dev, plan.method, plan.mtu, tuple(rows), bud, cab)
    mark = TracedPath(f"{first.name}: {first.cable_m:g} m {first.medium}, headroom {first.headroom:,.0f} B", (cab,))
    return lines, {"headroom": view, "paths": (mark,)}


def roce_run_action(run: Any, p: dict) -> tuple[list[str], Fields]:
    from ..sim.engine import roce_fluid
    cc = p.get("cc", "dcqcn")
    prm = roce_fluid(run.fabric, p.get("dcqcn"), "pfc", cc)
    lines, fields = simulate_action(run, {**p, "model": "fluid", "cc": cc}, fluid=prm)
    preset = fields["traffic"].summary.get("dcqcn_preset")
    if cc == "dcqcn" and preset:
        lines[0] += f", DCQCN {preset} preset"
    return lines, fields


__all__ = ["headroom_action", "pfc_deadlock_action", "pfc_run_action", "roce_run_action"]
