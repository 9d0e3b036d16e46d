"""Flow SLs end to end: the flows CSV ``sl`` column, ``simulate --sl``, a routing engine's path SL,
and a small fat tree whose QoS (non-identity SL2VL, weighted arbitration) is set with
``fabricviz route --store-qos``."""

import csv
import json

import numpy as np
import pytest

from fabricviz.cli import main
from fabricviz.formats.native import load_fabric, save_fabric
from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib.path_sl import PathSL
from fabricviz.ib.qos import QosOptions, QosSet
from fabricviz.ib.qos_meta import design_qos, to_meta
from fabricviz.ib.routing import route
from fabricviz.model import FabricError
from fabricviz.sim.compare import run_workload
from fabricviz.sim.flows_csv import load_flows, save_flows
from fabricviz.sim.links import link_table
from fabricviz.sim.testbeds import dumbbell
from fabricviz.sim.vlarb import link_arb, link_sl2vl

# SL0 -> VL1 (weight 3), SL1 -> VL0 (weight 1); no high-priority VL (OpenSM's default puts VL0 there)
OPENSM_CONF = """qos TRUE
qos_sl2vl 1,0,2,3,4,5,6,7,8,9,10,11,12,13,14,15
qos_vlarb_high 0:0
qos_vlarb_low 0:1,1:3
"""


@pytest.fixture(scope="module")
def ft4(tmp_path_factory):
    d = tmp_path_factory.mktemp("vl")
    path, conf = d / "ft4.json", d / "opensm.conf"
    save_fabric(k_ary_fat_tree(4), path)
    conf.write_text(OPENSM_CONF)
    assert main(["route", str(path), "--qos-config", str(conf), "--store-qos"]) == 0
    return d, path


def _run(args, capsys):
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def test_flows_csv_with_sl_on_a_fat_tree(ft4, capsys):
    d, path = ft4
    flows, out = d / "flows.csv", d / "out.csv"
    # node01 (pod 1) and node09 (pod 3) both send to node05 (pod 2): they share the core -> spine ->
    # leaf -> node05 links, 400G each; SL0 rides VL1 (weight 3), SL1 VL0 (weight 1): 300 and 100 Gb/s
    flows.write_text("src,dst,sl\nnode01/mlx5_0,node05/mlx5_0,0\nnode09/mlx5_0,node05/mlx5_0,1\n")
    for model in ("maxmin", "fluid"):
        rc, text, err = _run(["simulate", path, "--flows", flows, "--model", model, "--duration", "300us",
                              "--json", "--out-flows", out], capsys)
        assert rc == 0, err
        s = json.loads(text)
        assert s["sl_source"] == "flows"
        assert s["sl_flows"]["0"]["rate_gbps"] == pytest.approx(300, abs=1e-3 if model == "maxmin" else 1)
        assert s["sl_flows"]["1"]["rate_gbps"] == pytest.approx(100, abs=1e-3 if model == "maxmin" else 1)
        # both paths are 6 cable hops: VL1 carries 6 x 300, VL0 6 x 100
        assert set(s["vl_link_gbps"]) == {"0", "1"}
        assert s["vl_link_gbps"]["1"] == pytest.approx(1800, abs=1e-3 if model == "maxmin" else 6)
        assert s["vl_link_gbps"]["0"] == pytest.approx(600, abs=1e-3 if model == "maxmin" else 6)
        assert "starved_vls" not in s
        assert s.get("vl_arbitration") == ({"rounds": 2, "converged": True} if model == "maxmin" else None)
        rows = list(csv.DictReader(out.open()))
        assert [(r["sl"], round(float(r["rate_gbps"]))) for r in rows] == [("0", 300), ("1", 100)]


def test_workload_sl_and_csv_override(ft4, capsys):
    d, path = ft4
    rc, text, err = _run(["simulate", path, "--workload", "incast:2", "--over", "nic", "--sl", "1", "--json"],
                         capsys)
    assert rc == 0, err
    s = json.loads(text)
    # one SL: one class, as without VLs (two senders into one 400G port: 200 each), all on VL0 (SL1 -> VL0)
    assert s["sl_flows"] == {"1": {"flows": 2, "rate_gbps": pytest.approx(400)}}
    assert set(s["vl_link_gbps"]) == {"0"} and "vl_arbitration" not in s
    flows = d / "mixed.csv"
    flows.write_text("src,dst,sl\nnode01/mlx5_0,node05/mlx5_0,\nnode09/mlx5_0,node05/mlx5_0,0\n")
    rc, text, err = _run(["simulate", path, "--flows", flows, "--sl", "1", "--json"], capsys)
    assert rc == 0, err
    assert json.loads(text)["sl_flows"] == {"0": {"flows": 1, "rate_gbps": pytest.approx(300)},
                                            "1": {"flows": 1, "rate_gbps": pytest.approx(100)}}
    rc, _, err = _run(["simulate", path, "--workload", "incast:2", "--sl", "16"], capsys)
    assert rc != 0 and "--sl 16 is not a service level 0..15" in err


@pytest.mark.parametrize("cell, message", [("16", "sl must be 0..15, got 16"),
                                           ("x", "sl 'x' is not an integer")])
def test_flows_csv_sl_errors_name_file_and_line(ft4, cell, message):
    d, path = ft4
    f = load_fabric(path)
    bad = d / "bad.csv"
    bad.write_text(f"src,dst,sl\nnode01/mlx5_0,node05/mlx5_0,0\nnode09/mlx5_0,node05/mlx5_0,{cell}\n")
    with pytest.raises(FabricError, match=rf"bad\.csv:3: {message}"):
        load_flows(f, bad)


def test_flows_csv_sl_round_trip(ft4):
    d, path = ft4
    f = load_fabric(path)
    src = d / "two.csv"
    src.write_text("src,dst,sl\nnode01/mlx5_0,node05/mlx5_0,7\nnode09/mlx5_0,node05/mlx5_0,0\n")
    flows = load_flows(f, src)
    assert flows.sl_given and flows.sl.tolist() == [7, 0]
    save_flows(f, flows, d / "back.csv")
    assert (d / "back.csv").read_text().splitlines()[0] == "src,dst,bytes,rate_gbps,start_us,step,sl"
    assert load_flows(f, d / "back.csv").sl.tolist() == [7, 0]
    (d / "none.csv").write_text("src,dst\nnode01/mlx5_0,node05/mlx5_0\n")
    assert not load_flows(f, d / "none.csv").sl_given
    assert load_flows(f, d / "none.csv", sl=4).sl.tolist() == [4]


def test_per_type_sl2vl_agrees_with_the_sm_tables(ft4):
    _, path = ft4
    f = load_fabric(path)
    opts = design_qos(f.meta)
    links = link_table(f)
    cheap, full = link_sl2vl(f, links, opts), link_arb(f, links, opts)
    cab = links.alive & ~links.pcie
    assert full.arbitrated[cab].all() and not full.arbitrated[links.pcie].any()
    np.testing.assert_array_equal(cheap[cab], full.sl2vl[cab])
    assert cheap[cab][:, :2].tolist() == [[1, 0]] * int(cab.sum())
    np.testing.assert_array_equal(full.low_w[cab][:, :3], [[1, 3, 0]] * int(cab.sum()))
    assert full.high_w[cab].sum() == 0


def _path_sl_by_source(sm, sl_of_src):
    """A hand-built PathSL: the SL of a path is chosen by its source LID."""
    lids = sm.lids.ca_lid
    top = int(lids.max()) + 1
    src_row = np.full(top, -1, np.int32)
    dst_col = np.full(top, -1, np.int32)
    src_row[lids] = np.arange(len(lids))
    dst_col[lids] = 0
    table = np.array([[sl_of_src.get(int(lid), 0)] for lid in lids], np.uint8)
    return PathSL("dfsssp", src_row, dst_col, table, np.ones(16, np.uint8), 2)


def test_path_sl_of_a_deadlock_free_engine_when_no_sl_is_given():
    f, flows = dumbbell(2, gbps=100, tech="ib")
    f.meta["qos"] = to_meta(QosOptions(qos=True, default=QosSet(vlarb_high=((0, 0),), vlarb_low=((0, 1), (1, 3)),
                                                                sl2vl=tuple(range(16)))))
    sm = route(f, "minhop")
    h1_port = f.port_id(int(flows.src[0]), 1)
    j = sm.subnet.ca_ports.tolist().index(h1_port)
    sm.info.path_sl = _path_sl_by_source(sm, {int(sm.lids.ca_lid[j]): 1})     # h1's paths on SL1
    res = run_workload(f, flows, "maxmin", 1e-3, 0, sm=sm)
    assert res.flow_vl.source == "path" and res.flows.sl.tolist() == [1, 0]
    np.testing.assert_allclose(res.flow_rates(), [75, 25], rtol=1e-6)
    given = run_workload(f, flows.with_sl(0), "maxmin", 1e-3, 0, sm=sm)       # the user's SL wins
    assert given.flow_vl.source == "flows" and given.flows.sl.tolist() == [0, 0]
    np.testing.assert_allclose(given.flow_rates(), [50, 50], rtol=1e-6)
