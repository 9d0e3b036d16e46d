"""A run goes over the reachable part of a design: the demo fat tree plus a lone switch with one
server cabled to it (srv98) and one uncabled server (srv99) runs exactly as the demo alone, and
the result names the two left out with the reason."""

import numpy as np
import pytest

from fabricviz.generate import fat_tree, leaf_spine
from fabricviz.model import FabricError
from fabricviz.sim.compare import run_workload
from fabricviz.sim.reach import NO_PATH, NO_SM_ROUTE, NOT_CABLED, Unreachable, host_reach, left_out_line
from fabricviz.sim.workloads import Flows, endpoints, make_workload, reachable_endpoints
from tests.sim.islands import DEMO, with_island


@pytest.fixture(scope="module")
def ib():
    demo = fat_tree(**DEMO)
    return demo, with_island(fat_tree(**DEMO), "ib_switch:QM9700-R8", "NODE-1G-NDR")


@pytest.fixture(scope="module")
def roce():
    demo = leaf_spine(2, 2, 4)
    sw = demo.part_id_of(int(demo.device_ids("eth_switch")[0]))
    return demo, with_island(leaf_spine(2, 2, 4), f"eth_switch:{sw}", demo.part_id_of(0), "400GbE")


def test_unreachable_hosts_and_reasons(ib, roce):
    srv98, srv99 = ib[1].find("srv98"), ib[1].find("srv99")
    assert host_reach(ib[1]).left_out == (Unreachable(srv98, "srv98", NO_SM_ROUTE),
                                          Unreachable(srv99, "srv99", NOT_CABLED))
    assert host_reach(ib[0]).left_out == ()
    r = host_reach(roce[1])
    assert [(u.name, u.reason) for u in r.left_out] == [("srv98", NO_PATH), ("srv99", NOT_CABLED)]
    assert r.line() == "2 hosts unreachable, left out of the run: srv98 (no path), srv99 (not cabled)"
    # the server's GPU and NIC are out; every demo rank stays
    out = np.flatnonzero(r.out)
    assert sorted(roce[1].name_of(int(d)) for d in out) == ["srv98/gpu0", "srv98/mlx5_0",
                                                            "srv99/gpu0", "srv99/mlx5_0"]
    assert np.array_equal(reachable_endpoints(ib[1]), endpoints(ib[0]))
    assert len(endpoints(ib[1])) == 18


@pytest.mark.parametrize("spec", ["alltoall", "permutation", "ring", "incast:8", "shift:3"])
def test_workloads_use_the_reachable_hosts_only(ib, spec):
    a, b = make_workload(ib[0], spec, seed=1), make_workload(ib[1], spec, seed=1)
    assert np.array_equal(a.src, b.src) and np.array_equal(a.dst, b.dst)
    assert np.array_equal(a.bytes, b.bytes) and np.array_equal(a.step, b.step)


@pytest.mark.parametrize("side,routing,engine", [("ib", None, "minhop"), ("ib", None, "ftree"),
                                                 ("ib", None, "dmodk"), ("ib", "adaptive", "minhop"),
                                                 ("roce", None, "minhop"), ("roce", "spray", "minhop")])
def test_maxmin_rates_equal_the_demo_alone(ib, roce, side, routing, engine):
    demo, island = ib if side == "ib" else roce
    runs = [run_workload(f, make_workload(f, "alltoall"), "maxmin", 0.0, 0, routing, engine)
            for f in (demo, island)]
    n = 16 if side == "ib" else 8
    assert len(runs[1].flows) == n * (n - 1)
    assert np.array_equal(runs[0].flow_rates(), runs[1].flow_rates())
    assert runs[0].left_out == () and len(runs[1].left_out) == 2 and runs[1].dropped_flows == 0
    s = runs[1].summary(island)
    assert s["left_out"] == [{"host": "srv98", "reason": NO_SM_ROUTE if side == "ib" else NO_PATH},
                             {"host": "srv99", "reason": NOT_CABLED}]


def test_fluid_incast_equals_the_demo_alone(ib):
    runs = [run_workload(f, make_workload(f, "incast:8"), "fluid", 100e-6, 0) for f in ib]
    assert np.array_equal(runs[0].flow_rates(), runs[1].flow_rates())
    # the same queues link by link: the island's cable (2 links) comes after the demo's 64 cable
    # links, so the demo's 32 PCIe links sit 2 ids further on
    n = runs[0].links.n_cable_links
    assert n == 64 and runs[1].links.n_cable_links == n + 2
    demo_q, island_q = runs[0].fluid.max_queue_bytes, runs[1].fluid.max_queue_bytes
    assert np.array_equal(island_q[:n], demo_q[:n]) and np.array_equal(island_q[n + 2: n + 34], demo_q[n:])
    assert demo_q.max() == 1_011_500.0 and not np.any(island_q[n: n + 2])
    assert not np.any(runs[1].last.link_util[n: n + 2])


def test_given_flows_to_a_left_out_host_are_dropped(ib):
    f = ib[1]
    d = {k: f.find(k) for k in ("node01/gpu0", "node02/gpu0", "srv98/gpu0", "srv99/mlx5_0")}
    flows = Flows([d["node01/gpu0"], d["srv98/gpu0"], d["node02/gpu0"]],
                  [d["node02/gpu0"], d["node01/gpu0"], d["srv99/mlx5_0"]])
    res = run_workload(f, flows, "maxmin", 0.0, 0)
    assert res.dropped_flows == 2 and len(res.flows) == 1
    assert res.flows.src.tolist() == [d["node01/gpu0"]] and res.flow_rates().tolist() == [400.0]
    with pytest.raises(FabricError) as e:
        run_workload(f, flows.select(np.array([False, True, True])), "maxmin", 0.0, 0)
    assert str(e.value) == ("no flows to simulate: all 2 touch a host the run cannot reach (2 hosts "
                            "unreachable, left out of the run: srv98 (no route from the SM's subnet), "
                            "srv99 (not cabled))")


def test_one_uncabled_nic_of_a_dgx_is_named_alone():
    f = fat_tree(levels=2, radix=8, hosts=16, servers="dgx")
    nic = int(f.device_ids("nic")[3])
    f.remove_cables([int(f.ports_t.cable[int(f.devices_t.first_port[nic])])])
    r = host_reach(f)
    assert r.line() == "1 host unreachable, left out of the run: node01/mlx5_3 (not cabled)"
    assert f.name_of(int(f.devices_t.bound.tolist().index(nic))) == "node01/gpu3"
    assert len(reachable_endpoints(f)) == 15
    res = run_workload(f, make_workload(f, "alltoall"), "maxmin", 0.0, 0)
    assert len(res.flows) == 15 * 14 and res.left_out == r.left_out


def test_a_spare_nic_that_lost_its_cable_drops_the_flows_given_to_it():
    """A NIC-only server (no GPUs) with two NICs: a workload made before one NIC's cable is
    pulled still names that NIC; the run drops its flows, the host keeps its other NIC."""
    f = fat_tree(levels=2, radix=8, hosts=16)
    a, b = f.find("node01/mlx5_0"), f.find("node02/mlx5_0")
    extra = f.add_devices("nic", 1, f.part_id_of(a), ["node01/mlx5_1"], 0.0, 0.0)
    f.devices_t.parent[extra] = f.devices_t.parent[a]
    free = [int(p) for s in f.device_ids("ib_switch").tolist() for p in f.device(int(s)).port_ids.tolist()
            if f.ports_t.cable[p] < 0]
    f.add_cables(np.array([int(f.devices_t.first_port[int(extra[0])])]), np.array([free[0]]), 1.0)
    flows = Flows([int(extra[0]), a], [b, b])
    assert run_workload(f, flows, "maxmin", 0.0, 0).dropped_flows == 0
    f.remove_cables([int(f.ports_t.cable[int(f.devices_t.first_port[int(extra[0])])])])
    r = host_reach(f)
    assert r.out[int(extra[0])] and not r.out[a] and r.left_out == ()
    res = run_workload(f, flows, "maxmin", 0.0, 0)
    assert res.dropped_flows == 1 and res.flows.src.tolist() == [a]


def test_left_out_line_is_truncated():
    many = tuple(Unreachable(i, f"srv{i:02d}", NOT_CABLED) for i in range(7))
    assert left_out_line(many) == ("7 hosts unreachable, left out of the run: srv00 (not cabled), "
                                   "srv01 (not cabled), srv02 (not cabled), srv03 (not cabled), "
                                   "srv04 (not cabled), … and 2 more")
    assert left_out_line(()) == ""
