"""The merged multi-plane run reports the FCT slowdown, against the whole NIC port (every plane).

``fat_tree(radix=8, planes=2)``: 32 one-GPU nodes, each ConnectX-8 port split into 2 planes of 400 Gb/s.
A 4 MB flow striped over both planes: 2 MB per plane, 2e6 · 8 / 400e9 = 40 µs, + the path's base
latency 905.2 ns (max-min) = 40.9052 µs, exactly the ideal 4e6 · 8 / 800e9 + 905.2 ns: slowdown 1.
With the plane-1 leaf of node01–04 down their 4 MB all cross plane 2: 80.9052 µs, slowdown
80.9052 / 40.9052 = 1.9779 against the port's 800 Gb/s (each plane's own run: 1.0 against its 400)."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.generate import fat_tree
from fabricviz.sim.fct import flow_times
from fabricviz.sim.plane_merge import merge_planes
from fabricviz.sim.planes import plane_traffic
from fabricviz.sim.summary import format_summary
from fabricviz.sim.whatif import with_cables_down
from fabricviz.sim.workloads import Flows


@pytest.fixture(scope="module")
def ib():
    return fat_tree(radix=8, planes=2)


def _pairs(f) -> Flows:
    nics = f.device_ids("nic")
    return Flows(nics, nics.reshape(-1, 2)[:, ::-1].ravel(), bytes=np.full(32, 4e6))


def _leaf_down(f, name: str):
    pt, d = f.ports_t, f.find(name)
    return with_cables_down(f, np.unique(pt.cable[(pt.device == d) & (pt.cable >= 0)]))


def test_merged_run_keeps_the_slowdown_against_both_planes(ib):
    m = merge_planes(ib, plane_traffic(ib, _pairs(ib), model="maxmin"))
    assert m.line_rates().tolist() == [800.0] * 32
    t = flow_times(m)
    assert t is not None and np.allclose(t.ideal_s, 4e6 * 8 / 800e9 + 905.2e-9)
    s = m.summary(ib)
    assert s["slowdown"] == {"median": 1.0, "p99": 1.0, "max": 1.0} and s["fct"]["max_us"] == 40.905
    assert "  slowdown vs ideal (bytes / line rate + base latency): median 1.000  p99 1.000  max 1.000" in \
        format_summary(s).splitlines()
    # fluid: the last byte lands at 41 µs (1 µs ticks): 41 / 40.9052 = 1.0023
    fl = merge_planes(ib, plane_traffic(ib, _pairs(ib), model="fluid", duration_s=1e-3)).summary(ib)
    assert fl["slowdown"] == {"median": 1.0023, "p99": 1.0023, "max": 1.0023}


def test_a_lost_plane_leaf_doubles_its_hosts_slowdown(ib):
    pt = plane_traffic(_leaf_down(ib, "leaf01-p1"), _pairs(ib), model="maxmin")
    m = merge_planes(ib, pt)
    assert m.line_rates().tolist() == [800.0] * 32          # the port's line, whichever planes carried it
    s = m.summary(ib)
    assert s["slowdown"] == {"median": 1.0, "p99": 1.9779, "max": 1.9779}
    assert round(80.9052 / 40.9052, 4) == 1.9779
    t = flow_times(m)
    assert t is not None and np.round(t.fct_s / t.ideal_s, 4).tolist() == [1.9779] * 4 + [1.0] * 28
    assert s["rate_share"]["min"] == 0.5 and s["rate_share"]["max"] == 1.0     # 400 of 800, 800 of 800
    # plane 2's own run measures against its own 400 Gb/s: no slowdown there
    assert pt.planes[1].result.summary(ib)["slowdown"]["max"] == 1.0
