"""Lesson actions for lossless RoCE: PFC deadlock cycles after failed links and a fluid run of the
flows that close one (deadlock, then the PFC watchdog). Qt-free.

``pfc_deadlock`` (``fail``: cables taken down — their ports are disabled on a copy of the fabric,
so later steps see the same failures — ``routing`` bounce | converged) finds the cycles of the
buffer dependency graph; the first is drawn like a credit loop (``loop_cables``). ``pfc_run``
(``cc`` default none, ``duration_ms``, ``watchdog_us``, ``watchdog_action``) runs the flows that load
the first cycle, on their paths, through the fluid model with the design's lossless plan; the
cables paused for good are the run's paused cables.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from .lesson_results import TrafficRun

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


__all__ = ["pfc_deadlock_action", "pfc_run_action"]
