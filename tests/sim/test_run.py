"""``fabricviz.sim.run.run_traffic``: the Traffic dock's engine call, outside the GUI.

Expected values come from the engine functions called directly (``simulate`` with the
workload made by ``sim.workloads``) and from the fair shares by hand:

* leaf_spine(2, 2, 4), incast:4 — four 400G senders into one 400G NIC: 100 Gb/s each,
  rate/line 0.25;
* leaf_spine(4, 4, 4), seed-0 permutation under ECMP: hash collisions leave three flows at
  400/3, seven at 200 and six at line rate, mean 21/32 of line rate.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fabricviz.generate import fat_tree, leaf_spine
from fabricviz.sim.engine import simulate
from fabricviz.sim.run import run_traffic
from fabricviz.sim.workloads import incast, permutation, reachable_endpoints


def same(a, b):
    assert (a.fabric_tech, a.routing, a.model, len(a.frames)) == (b.fabric_tech, b.routing, b.model, len(b.frames))
    assert np.array_equal(a.flows.src, b.flows.src) and np.array_equal(a.flows.dst, b.flows.dst)
    assert np.array_equal(a.routes.links, b.routes.links)
    for x, y in zip(a.frames, b.frames, strict=True):
        assert x.time_s == y.time_s
        assert np.array_equal(x.flow_rate_gbps, y.flow_rate_gbps)
        assert np.array_equal(x.link_util, y.link_util)
        assert np.array_equal(x.link_queue, y.link_queue)


def test_incast_maxmin_on_a_small_leaf_spine():
    f = leaf_spine(2, 2, 4)
    res = run_traffic(f, "incast:4", "maxmin", None, "minhop", 10e-3, 0)
    ref = simulate(f, incast(reachable_endpoints(f), 4), None, "maxmin", 10e-3, 0)
    same(res, ref)
    assert (res.fabric_tech, res.routing, len(res.frames), res.frames[0].time_s) == ("eth", "ecmp", 1, 0.0)
    assert res.frames[0].flow_rate_gbps.tolist() == [100.0, 100.0, 100.0, 100.0]
    assert len(set(res.flows.dst.tolist())) == 1
    assert res.summary(f)["rate_share"]["mean"] == pytest.approx(0.25, abs=1e-12)


def test_permutation_ecmp_collisions_match_the_engine():
    f = leaf_spine(4, 4, 4)
    res = run_traffic(f, "permutation", "maxmin", "ecmp", "minhop", 10e-3, 0)
    same(res, simulate(f, permutation(reachable_endpoints(f), seed=0), "ecmp", "maxmin", 10e-3, 0))
    rates = np.sort(res.frames[0].flow_rate_gbps)
    assert np.allclose(rates, [400 / 3] * 3 + [200.0] * 7 + [400.0] * 6, rtol=0, atol=1e-4)
    assert res.summary(f)["rate_share"]["mean"] == pytest.approx(21 / 32, abs=1e-7)     # float32 rates
    other = run_traffic(f, "permutation", "maxmin", "ecmp", "minhop", 10e-3, 1)          # the seed counts
    assert not np.array_equal(other.flows.dst, res.flows.dst)


def test_fluid_run_reports_progress_and_keeps_every_frame():
    f = leaf_spine(2, 2, 4)
    seen: list[float] = []
    res = run_traffic(f, "incast:4", "fluid", None, "minhop", 0.1e-3, 0, progress=seen.append)
    same(res, simulate(f, incast(reachable_endpoints(f), 4), None, "fluid", 0.1e-3, 0))
    assert len(res.frames) == 100 and res.frames[-1].time_s == pytest.approx(1e-4, rel=1e-9)
    assert seen[-1] == 1.0 and seen == sorted(seen)
    assert res.summary(f)["rate_share"]["mean"] == pytest.approx(0.25, abs=1e-12)


def test_ib_static_routes_are_the_subnet_managers_lfts():
    from fabricviz.ib.routing import route
    from fabricviz.sim.paths import sm_paths
    from fabricviz.sim.reach import host_reach
    f = fat_tree(2, 8, fabric="ib")
    res = run_traffic(f, "permutation", "maxmin", "static", "minhop", 10e-3, 3)
    sm = route(f, "minhop")
    reach = host_reach(f, "ib", subnet=sm.subnet)
    flows = permutation(reachable_endpoints(f, reach=reach), seed=3)
    same(res, simulate(f, flows, "static", "maxmin", 10e-3, 3, provider=sm_paths(sm), reach=reach))
    assert (res.fabric_tech, res.routing) == ("ib", "static")


def test_the_module_needs_no_qt():
    code = "import sys, fabricviz.sim.run; print(any(m.startswith('PySide6') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "False"
