"""Benchmark: what flow SLs / VL arbitration cost (issue 14, QoS part).

Run: python bench/sim_vl.py [--k 16] [--repeat 7] [--ticks 200]
Fabric: k-ary fat tree, a permutation over the NICs, static D-mod-k routes.
Prints medians (ms) of:
* ``simulate`` max-min on the default path (every flow SL 0: one class) against the same call of
  the committed engine (``git show HEAD:fabricviz/sim/engine.py``, loaded as a peer module in this
  run), and their ratio (goal: ≈ 1.0, the default path costs nothing extra);
* fluid ticks on the default path against the committed fluid model's, ratio;
* the arbitrated path (flows on SL0/SL1, QoS weights 1:3) against the default path, ratio.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

from timing import median_ms  # noqa: E402

from fabricviz.generate import k_ary_fat_tree  # noqa: E402
from fabricviz.ib.qos import QosOptions, QosSet  # noqa: E402
from fabricviz.ib.qos_meta import to_meta  # noqa: E402
from fabricviz.sim import engine  # noqa: E402
from fabricviz.sim.fluid import FluidParams, FluidSim  # noqa: E402
from fabricviz.sim.links import link_table  # noqa: E402
from fabricviz.sim.paths import route  # noqa: E402
from fabricviz.sim.vlarb import entry_vls, link_arb  # noqa: E402
from fabricviz.sim.workloads import endpoints, permutation  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..")


def committed(module: str):
    """The committed version of ``fabricviz.sim.<module>`` as a peer module (read-only git show)."""
    src = subprocess.run(["git", "show", f"HEAD:fabricviz/sim/{module}.py"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    spec = importlib.util.spec_from_loader(f"fabricviz.sim._head_{module}", loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "fabricviz.sim"
    sys.modules[spec.name] = mod
    exec(compile(src, f"HEAD:{module}.py", "exec"), mod.__dict__)
    return mod


def ab(fa, fb, n: int) -> tuple[float, float]:
    """Medians (ms) of ``fa`` and ``fb`` timed alternately (this machine's speed drifts)."""
    ta, tb = [], []
    for _ in range(n):
        ta.append(median_ms(fa, 1))
        tb.append(median_ms(fb, 1))
    return float(np.median(ta)), float(np.median(tb))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--ticks", type=int, default=200)
    a = ap.parse_args()
    f = k_ary_fat_tree(a.k)
    flows = permutation(endpoints(f, "nic"), seed=1)
    old_engine, old_fluid = committed("engine"), committed("fluid")
    print(f"k={a.k} fat tree, {len(flows)} flows")
    new, old = ab(lambda: engine.simulate(f, flows, "static"), lambda: old_engine.simulate(f, flows, "static"),
                  a.repeat)
    print(f"max-min default path: {new:8.2f} ms   committed {old:8.2f} ms   ratio {new / old:.3f}")
    links = link_table(f)
    routes = route(f, links, flows, "static")
    plan = median_ms(lambda: engine._vl_plan(f, links, flows, routes, None), a.repeat)
    print(f"  of which the default path's SL/VL bookkeeping: {plan:.3f} ms")
    prm = FluidParams(duration_s=1.0, cc="none", flow_control="credit")

    def ticks(make):
        sim = make()
        return median_ms(lambda: [sim.step() for _ in range(a.ticks)], max(3, a.repeat // 2))
    sim_new, sim_old = FluidSim(links, flows, routes, prm), old_fluid.FluidSim(links, flows, routes, prm)
    tn, to = ab(lambda: [sim_new.step() for _ in range(a.ticks)], lambda: [sim_old.step() for _ in range(a.ticks)],
                a.repeat)
    print(f"fluid default path:   {tn / a.ticks * 1e3:8.1f} µs/tick   committed {to / a.ticks * 1e3:8.1f} µs/tick"
          f"   ratio {tn / to:.3f}")

    vf = k_ary_fat_tree(a.k)
    vf.meta["qos"] = to_meta(QosOptions(qos=True, default=QosSet(vlarb_high=((0, 0),), vlarb_low=((0, 1), (1, 3)))))
    two = flows.with_sl(np.arange(len(flows)) % 2)
    arbitrated = median_ms(lambda: engine.simulate(vf, two, "static"), a.repeat)
    print(f"max-min two SLs:      {arbitrated:8.2f} ms   default {new:8.2f} ms   ratio {arbitrated / new:.3f}")
    arb = link_arb(vf, links, engine.qos_options(vf))
    evl = entry_vls(routes, two.sl, arb.sl2vl)
    tv = ticks(lambda: FluidSim(links, two, routes, prm, vl=(evl, arb)))
    print(f"fluid two SLs:        {tv / a.ticks * 1e3:8.1f} µs/tick   default {tn / a.ticks * 1e3:8.1f} µs/tick"
          f"   ratio {tv / tn:.3f}")


if __name__ == "__main__":
    main()
