"""The lesson actions about virtual lanes: ``check_loops`` per VL, ``layers`` and ``path_lengths`` (Qt-free).

``check_loops`` looks for credit loops in the per-VL channel dependency graph
(:func:`fabricviz.ib.creditloops.check_credit_loops`, every path's SL through the design's
SL2VL tables), so a deadlock-free engine that spreads paths over VLs (dfsssp, lash) is
checked on each VL. ``layers`` says how many VLs such an engine needed and how many paths it put
on each, from the engine's own numbers (``routing.info``), and which VLs each cable carries
(:func:`fabricviz.ib.vl_layers.cable_vls`: what the canvas colours). ``path_lengths`` compares
the engines' route lengths over every pair of hosts, through the same paths the traffic runs
take (:func:`fabricviz.sim.paths.sm_paths`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..ib.engines import ENGINES
from ..model import FabricError
from .lesson_actions import route_info
from .lesson_results import PathLengths, VlLayerMap

if TYPE_CHECKING:
    from .lesson_actions import Fields, Run


def layer_map(routing: Any, walk: Any = None) -> VlLayerMap:
    """The VLs of ``routing``'s paths per cable (``walk``: a :class:`~fabricviz.ib.vl_layers.VlWalk`
    already made for it) and the engine's VL counts."""
    from ..ib.vl_layers import cable_vls, design_sl2vl, engine_layers, layer_masks, walk_vls
    sl2vl = design_sl2vl(routing)
    if walk is None:
        walk = walk_vls(routing, sl2vl=sl2vl)
    cables, masks = cable_vls(routing, walk)
    info = routing.info
    psl = info.path_sl
    layers = engine_layers(routing) if sl2vl.identity else None   # a VL is its SL: layers readable
    by_layer: tuple[int, ...] = ()
    names: tuple[str, ...] = ()
    if layers is not None:
        by_layer = tuple(int(m) for m in layer_masks(masks, layers[0]).tolist())
        names = layers[1]
    return VlLayerMap(str(routing.routed_by), walk.vls_used(), tuple(int(c) for c in cables.tolist()),
                      tuple(int(m) for m in masks.tolist()),
                      int(info.vls_used) if psl is not None and info.vls_used is not None else None,
                      int(info.vls_avail) if info.vls_avail is not None else None,
                      tuple(int(x) for x in info.paths_per_vl or ()),
                      tuple(int(x) for x in info.paths_after or ()),
                      psl.counts() if psl is not None else {}, routing, by_layer, names)


def _listing(counts: Any, what: str) -> str:
    """``VL0 908, VL1 76, VL2 8`` (zero entries left out)."""
    return ", ".join(f"{what}{v} {int(n):,}" for v, n in enumerate(counts) if int(n))


def layer_lines(m: VlLayerMap) -> list[str]:
    """What the engine says about its layers, then the VLs on the cables."""
    lines = []
    if m.vls_needed is not None:
        lines.append(f"{m.engine} needed {m.vls_needed} VL{'s' if m.vls_needed != 1 else ''}"
                     + (f" of {m.vls_avail} available" if m.vls_avail is not None else ""))
    if m.paths_per_vl:
        lines.append("paths per VL before balancing: " + _listing(m.paths_per_vl, "VL"))
    if m.paths_after:
        lines.append("paths per SL after balancing (approx.): " + _listing(m.paths_after, "SL"))
    if m.sl_paths and not m.paths_per_vl:
        lines.append("paths per SL: " + ", ".join(f"SL{s} {n:,}" for s, n in sorted(m.sl_paths.items())))
    n = len(m.vls)
    lines.append(f"the paths use {n} VL{'s' if n != 1 else ''} between switches; cables carrying each: "
                 + ", ".join(f"VL{v} {m.cables_on(v)}" for v in m.vls))
    several = sum(1 for x in m.masks if x & (x - 1))
    lines.append(f"{several} of {len(m.cables)} routed cables carry several VLs")
    if m.layer_names:
        lines.append("the engine's layers (what broke the loops; the canvas colours them), cables carrying each: "
                     + ", ".join(f"{name} {m.cables_in_layer(k)}" for k, name in enumerate(m.layer_names)))
    return lines


def check_loops_action(run: Run, p: dict) -> tuple[list[str], Fields]:
    """Credit loops of the routing per VL; the first loop's cables for the canvas."""
    from ..ib.creditloops import check_credit_loops
    from ..ib.vl_layers import design_sl2vl
    r = run.routing_for(p.get("engine"), p.get("roots"))
    check = check_credit_loops(r, sl2vl=design_sl2vl(r))
    loops = check.loops
    lines, info = route_info(r)
    if loops:
        lines += loops[0].format().splitlines()
    lines.append(check.summary())
    f = r.subnet.fabric
    first = loops[0] if loops else None
    cables = tuple(int(f.ports_t.cable[f.port(ch).id]) for ch in (first.channels if first else ())
                   if int(f.ports_t.cable[f.port(ch).id]) >= 0)
    out: Fields = {"route": info, "routing": r, "loops": len(loops), "loop_cables": cables,
                   "loop_vls": first.layer if first else (), "vls": tuple(check.vls)}
    if r.info.path_sl is not None:        # a layered engine: the canvas keeps its VL colours
        out["layers"] = layer_map(r, check.walk)
    return lines, out


def layers_action(run: Run, p: dict) -> tuple[list[str], Fields]:
    """Route with ``engine`` (else the routing so far) and say which VLs its paths use."""
    from ..ib.routing import route
    if "engine" in p:
        run.engine = p["engine"]
        run.routing = route(run.fabric, run.engine)
    r = run.routing_for()
    run.routing = r
    lines, info = route_info(r)
    m = layer_map(r)
    return lines + layer_lines(m), {"route": info, "routing": r, "layers": m}


def route_lengths(fabric: Any, routing: Any) -> np.ndarray:
    """Cables on the route of every ordered pair of hosts (PCIe hops left out)."""
    from ..sim.links import link_table
    from ..sim.paths import route, sm_paths
    from ..sim.workloads import make_workload
    links = link_table(fabric)
    flows = make_workload(fabric, "alltoall")
    r = route(fabric, links, flows, "static", provider=sm_paths(routing))
    per = np.add.reduceat(~links.pcie[r.links], r.indptr[:-1]) if len(r.links) else np.zeros(0, np.int64)
    return np.asarray(per, np.int64)


def path_lengths_action(run: Run, p: dict) -> tuple[list[str], Fields]:
    """Route lengths of each engine over every host pair; the first engine is the yardstick."""
    from ..ib.routing import route
    engines = list(p["engines"])
    if len(engines) < 2 or any(e not in ENGINES for e in engines):
        raise FabricError(f"engines: list two or more of {', '.join(ENGINES)}")
    per = {e: route_lengths(run.fabric, route(run.fabric, e)) for e in engines}
    base = per[engines[0]]
    lines = [f"{len(base):,} host-to-host routes, cables per route:"]
    mean, longest, longer = {}, {}, {}
    for e in engines:
        x = per[e]
        mean[e], longest[e] = float(x.mean()) if len(x) else 0.0, int(x.max()) if len(x) else 0
        longer[e] = int(np.count_nonzero(x > base))
        lines.append(f"  {e}: mean {mean[e]:.3f}, longest {longest[e]}"
                     + (f", {longer[e]:,} longer than {engines[0]}'s" if e != engines[0] else ""))
    return lines, {"lengths": PathLengths(tuple(engines), int(len(base)), mean, longest, longer)}


__all__ = ["check_loops_action", "layer_lines", "layer_map", "layers_action", "path_lengths_action",
           "route_lengths"]
