"""InfiniBand vs RoCE: the comparison's numbers are those of the two runs done directly."""

import json

import numpy as np
import pytest

from fabricviz.cli import main
from fabricviz.formats.native import load_fabric, save_fabric
from fabricviz.generate import fat_tree
from fabricviz.ib.routing import route
from fabricviz.model import FabricError
from fabricviz.sim.compare import compare_techs, format_comparison, map_flows
from fabricviz.sim.engine import simulate
from fabricviz.sim.paths import sm_paths
from fabricviz.sim.twin import twin
from fabricviz.sim.workloads import make_workload

DUR = 2e-3


@pytest.fixture(scope="module")
def tree():
    return fat_tree(levels=2, radix=8, hosts=16)            # QM9700-R8, 4 hosts per leaf


@pytest.fixture(scope="module")
def fluid(tree):
    seen = []
    c = compare_techs(tree, "incast:8", "fluid", DUR, 0, progress=seen.append)
    return c, seen


def direct(tree):
    """The two runs done by hand: IB with the SM's minhop LFTs, the twin with RoCE defaults."""
    flows = make_workload(tree, "incast:8", seed=0)
    ib = simulate(tree, flows, None, "fluid", DUR, 0, provider=sm_paths(route(tree, "minhop")))
    other = twin(tree, "roce")
    roce = simulate(other, flows, None, "fluid", DUR, 0)     # no removed devices: the same ids
    return ib, roce, other


@pytest.mark.slow
def test_incast_fluid_numbers_equal_the_direct_runs(tree, fluid):
    c, seen = fluid
    ib, roce, other = direct(tree)
    assert (c.ib.fabric is tree, c.ib.is_twin, c.roce.is_twin) == (True, False, True)
    assert c.ib.result.routing == "static" and c.roce.result.routing == "ecmp"
    for side, res, f in ((c.ib, ib, tree), (c.roce, roce, other)):
        s = res.summary(f)
        assert side.summary == s
        assert side.throughput_gbps == s["rate_gbps"]["total"]
        assert (side.rate_share_mean, side.rate_share_min) == (s["rate_share"]["mean"], s["rate_share"]["min"])
        lat = res.steady("flow_latency_ns")                 # every incast flow sends from t = 0
        assert side.latency_mean_us == pytest.approx(lat.mean() / 1e3, rel=1e-12)
        assert side.latency_p99_us == pytest.approx(np.percentile(lat, 99) / 1e3, rel=1e-12)
        assert side.paused_links == int((res.fluid.paused_fraction > 0).sum()) == s["paused_link_count"]
        assert side.max_paused_fraction == float(res.fluid.paused_fraction.max())
        assert side.max_queue_bytes == float(res.fluid.max_queue_bytes.max())
        np.testing.assert_array_equal(side.result.last.link_util, res.last.link_util)
    # eight 400G senders into one 400G port: InfiniBand's credits keep the port full
    assert c.ib.throughput_gbps == pytest.approx(400.0) and c.ib.rate_share_mean == pytest.approx(1 / 8)
    assert c.difference("throughput_gbps") == c.roce.throughput_gbps / c.ib.throughput_gbps
    assert c.difference("paused_links") == c.roce.paused_links - c.ib.paused_links
    rows = dict((r[0], r[1:]) for r in c.rows())
    assert rows["Aggregate throughput (Gb/s)"][:2] == (f"{c.ib.throughput_gbps:,.1f}", f"{c.roce.throughput_gbps:,.1f}")
    assert rows["Paused links"] == (str(c.ib.paused_links), str(c.roce.paused_links),
                                    f"{c.roce.paused_links - c.ib.paused_links:+d}")
    n = c.roce.paused_links
    assert c.lines[0].startswith(f"RoCE: {n} link{'s' if n != 1 else ''} paused by PFC, p99 latency ")
    assert f"InfiniBand {c.ib.throughput_gbps:,.1f} Gb/s, RoCE {c.roce.throughput_gbps:,.1f} Gb/s" in c.lines[1]
    # progress covers both runs, in order, ending at 1
    assert seen[-1] == 1.0 and 0.5 in seen and seen == sorted(seen)
    text = format_comparison(c)
    assert text.splitlines()[0] == "incast:8 (8 flows), fluid model, 2 ms, seed 0"
    assert "InfiniBand (QM9700-R8 × 8, 4xNDR)  vs  RoCE (SN4700-R8 × 8, 400GbE) · twin" in text


def test_maxmin_latency_differs_by_the_switch_pipelines(tree):
    c = compare_techs(tree, "incast:8", "maxmin", DUR, 0)
    ib, roce = c.ib.result, c.roce.result
    # the receiver's port full on both: InfiniBand shares it 8 ways, RoCE's PFC by its 7 busy input ports
    # (sim/portfair.py), the two senders behind one spine splitting theirs ...
    assert c.ib.throughput_gbps == pytest.approx(400.0) and c.roce.throughput_gbps == pytest.approx(400.0)
    assert ib.last.flow_rate_gbps.tolist() == [50.0] * 8
    np.testing.assert_allclose(np.sort(roce.last.flow_rate_gbps), [200 / 7] * 2 + [400 / 7] * 6, rtol=1e-6)
    assert (c.ib.paused_links, c.roce.paused_links, c.difference("max_queue_bytes")) == (None, None, None)
    # ... and each switch on the path costs SN4700 450 ns instead of QM9700 200 ns
    sw = np.array([sum(int(ib.links.switch_ns[l] > 0) for l in ib.routes.path(i)) for i in range(8)])
    assert sw.tolist() == [1, 1, 1, 3, 3, 3, 3, 3]       # node02-04 share node01's leaf
    np.testing.assert_allclose(roce.last.flow_latency_ns - ib.last.flow_latency_ns, 250.0 * sw, atol=1e-3)
    assert c.roce.latency_mean_us - c.ib.latency_mean_us == pytest.approx(0.250 * sw.mean(), abs=1e-6)


def test_flows_follow_device_names_when_ids_differ():
    f = fat_tree(levels=2, radix=8, hosts=16)
    f.remove_devices([f.find("node02")])                  # the twin renumbers densely
    g = twin(f, "roce")
    flows = make_workload(f, "incast:4", seed=0)
    mapped = map_flows(flows, f, g)
    assert [g.name_of(int(d)) for d in mapped.src] == [f.name_of(int(d)) for d in flows.src]
    assert [g.name_of(int(d)) for d in mapped.dst] == ["node01/gpu0"] * 4
    assert not np.array_equal(mapped.src, flows.src)
    c = compare_techs(f, "incast:4", "maxmin", DUR, 0)
    assert [g.name_of(int(d)) for d in c.roce.result.flows.src] == ["node03/gpu0", "node04/gpu0",
                                                                    "node05/gpu0", "node06/gpu0"]


def run_cli(args, capsys):
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.slow
def test_cli_compare_tech(tmp_path, capsys, tree, fluid):
    path, twin_path = tmp_path / "ft.json", tmp_path / "ft-roce.json"
    save_fabric(tree, path)
    rc, out, err = run_cli(["compare-tech", path, "--workload", "incast:8", "--model", "fluid",
                            "--duration", "2ms", "--json", "--save-twin", twin_path], capsys)
    assert rc == 0, err
    d = json.loads(out)
    c, _ = fluid
    assert d["flows"] == 8 and d["ib"]["twin"] is False and d["roce"]["twin"] is True
    for key in ("throughput_gbps", "latency_p99_us", "paused_links", "max_paused_fraction", "max_queue_bytes"):
        assert d["ib"][key] == pytest.approx(c.ib.value(key), rel=1e-9)
        assert d["roce"][key] == pytest.approx(c.roce.value(key), rel=1e-9)
    assert d["lines"] == list(c.lines)
    saved = load_fabric(twin_path)
    assert saved.counts()["eth_switch"] == 8 and saved.meta["twin"]["from"] == "ib"
    rc, out, _ = run_cli(["compare-tech", path, "--model", "maxmin"], capsys)
    assert rc == 0 and "Aggregate throughput (Gb/s)" in out and "RoCE vs IB" in out
    rc, out, err = run_cli(["compare-tech", path, "--workload", "incast:99"], capsys)
    assert rc == 2 and out == "" and err.startswith("fabricviz: error: incast:99 needs at least 100 ranks")
    assert err.count("\n") == 1
    with pytest.raises(FabricError):
        compare_techs(tree, "bogus", "maxmin", DUR, 0)
