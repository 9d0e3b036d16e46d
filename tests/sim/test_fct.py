"""Flow completion times: sized workloads, progressive max-min, the fluid model's finishes, the CLI."""

import csv
import json

import numpy as np
import pytest

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate import k_ary_fat_tree, leaf_spine
from fabricviz.model import FabricError
from fabricviz.sim.engine import simulate
from fabricviz.sim.fct import flow_times
from fabricviz.sim.latency import path_hops
from fabricviz.sim.testbeds import dumbbell
from fabricviz.sim.units import ParamError
from fabricviz.sim.workloads import Flows, make_workload, parse_size, permutation


def _base_ns(fabric, res, i):
    """One packet's latency along flow i's path, from latency.py's per-hop table."""
    r = res.routes
    p = int(np.flatnonzero(r.flow == i)[0])
    return path_hops(fabric, res.links, r.links[r.indptr[p]: r.indptr[p + 1]])[1]


def test_one_4mb_flow_alone_on_100g():
    f, fl = dumbbell(1, 100)
    res = simulate(f, Flows(fl.src, fl.dst, [4e6]), "static", "maxmin")
    base = _base_ns(f, res, 0)
    # 4096 B at 100G on the NIC's link (327.68 ns), the SN4700 cuts through after its 64 B header
    # (5.12 ns; the old store-and-forward model paid 327.68 again), 2 m cables, 450 ns switch, 2 NICs
    assert base == pytest.approx(327.68 + 5.12 + 2 * 10 + 450 + 2 * 300)            # 1402.8
    t = flow_times(res)
    assert t.fct_s[0] == pytest.approx(4e6 * 8 / 100e9 + base * 1e-9, rel=1e-12)
    assert t.ideal_s[0] == pytest.approx(t.fct_s[0], rel=1e-12)
    s = res.summary(f)
    assert s["fct"]["max_us"] == pytest.approx(321.403, abs=1e-3) and s["slowdown"]["max"] == 1.0
    assert s["fct"]["finished"] == 1 and s["unfinished_flows"] == []


def test_two_flows_share_a_link_then_the_second_gets_it_all():
    f, fl = dumbbell(2, 100)                            # both senders into one 100G link to r
    res = simulate(f, Flows(fl.src, fl.dst, [1e6, 3e6]), "static", "maxmin")
    assert res.last.flow_rate_gbps.tolist() == [50.0, 50.0]
    base = [_base_ns(f, res, i) * 1e-9 for i in (0, 1)]
    t = flow_times(res)
    # 1 MB at 50G: 160 µs; the other has 2 MB left, alone at 100G: 160 µs more
    assert t.fct_s[0] == pytest.approx(160e-6 + base[0], rel=1e-12)
    assert t.fct_s[1] == pytest.approx(320e-6 + base[1], rel=1e-12)
    assert t.rate_gbps[1] == pytest.approx(3e6 * 8 / t.fct_s[1] / 1e9, rel=1e-12)
    assert t.fct_s[1] / t.ideal_s[1] == pytest.approx((320e-6 + base[1]) / (240e-6 + base[1]), rel=1e-12)
    assert res.completion.solves == 1 and res.completion.batch == 1
    s = res.summary(f)
    assert s["fct"]["median_us"] == pytest.approx((t.fct_s[0] + t.fct_s[1]) / 2 * 1e6, abs=1e-3)
    assert s["fct"]["mean_rate_gbps"] == pytest.approx(float(np.mean(t.rate_gbps)), abs=1e-6)


def test_long_lived_flows_keep_their_share_and_have_no_fct():
    f, fl = dumbbell(2, 100)
    res = simulate(f, Flows(fl.src, fl.dst, [1e6, np.inf]), "static", "maxmin")
    t = flow_times(res)
    assert t.fct_s[0] == pytest.approx(160e-6 + _base_ns(f, res, 0) * 1e-9, rel=1e-12)
    assert np.isnan(t.fct_s[1])
    assert res.summary(f)["fct"]["finite_flows"] == 1
    assert "fct" not in simulate(f, fl, "static", "maxmin").summary(f)


@pytest.fixture(scope="module")
def ft4():
    return k_ary_fat_tree(4)


def test_incast_with_sizes_in_the_fluid_model_conserves_bytes(ft4):
    flows = make_workload(ft4, "incast:3:1MB", over="nic")
    assert flows.bytes.tolist() == [1e6] * 3
    res = simulate(ft4, flows, model="fluid", duration_s=1e-3)
    fl, t = res.fluid, flow_times(res)
    assert np.all(np.isfinite(fl.finish_s))
    assert fl.delivered_bytes == pytest.approx(flows.bytes, rel=1e-9)
    line = res.links.gbps[res.routes.links[res.routes.indptr[-1] - 1]] * 1e9   # the receiver's link
    assert np.nanmax(t.finish_s) >= 3e6 * 8 / line              # 3 MB through one link
    assert np.array_equal(t.fct_s, fl.finish_s - flows.start_s)
    s = res.summary(ft4)
    assert s["fct"]["finished"] == 3 and s["fct"]["unfinished"] == 0
    assert s["fct"]["max_us"] == pytest.approx(float(fl.finish_s.max()) * 1e6, abs=1e-3)


def test_fluid_flows_not_finished_are_counted_and_listed(ft4):
    flows = make_workload(ft4, "incast:3:1MB", over="nic")
    res = simulate(ft4, flows, model="fluid", duration_s=15e-6)
    s = res.summary(ft4)
    assert s["fct"]["finished"] == 0 and s["fct"]["unfinished"] == 3 and s["fct"]["median_us"] is None
    un = s["unfinished_flows"]
    assert [u["flow"] for u in un] == [0, 1, 2] and all(u["bytes"] == 1e6 for u in un)
    assert sum(u["delivered_bytes"] for u in un) == pytest.approx(float(res.fluid.delivered_bytes.sum()), abs=1e-2)
    assert all(0 < u["delivered_bytes"] < 1e6 for u in un)
    assert np.all(np.isnan(flow_times(res).fct_s))


def test_every_workload_takes_a_size(ft4):
    mk = lambda spec: make_workload(ft4, spec, over="nic")   # noqa: E731
    assert set(mk("permutation:4MB").bytes) == {4e6}
    assert np.array_equal(mk("permutation:3:4MB").dst, permutation(mk("permutation").src, seed=3).dst)
    inc = mk("incast:8:1MB")
    assert len(inc) == 8 and set(inc.bytes) == {1e6}
    assert set(mk("incast:2KiB").bytes) == {2048.0} and len(mk("incast:2KiB")) == 15
    assert set(mk("shift:2:1GiB").bytes) == {2.0 ** 30}
    assert set(mk("ring:16MB").bytes) == {1e6} and set(mk("alltoall:4096").bytes) == {4096 / 16}
    assert set(mk("incast:8").bytes) == {np.inf} and set(mk("shift:2").bytes) == {np.inf}
    assert parse_size("1.5kb") == 1500.0 and parse_size("3 MiB") == 3 * 2 ** 20


@pytest.mark.parametrize("spec,problem", [
    ("permutation:4XB", "bad size '4XB' (use e.g. 4096B, 64MB, 1GiB: B/KB/MB/GB/TB decimal, KiB/MiB/GiB/TiB binary)"),
    ("incast:8:0MB", "bad size '0MB': must be positive and finite"),
    ("incast:1MB:8", "incast takes a sender count (incast:8) (e.g. incast:8:1MB)"),
    ("shift:1:2:3MB", "shift takes an integer K (shift:4) (e.g. shift:4:1MB)"),
    ("ring:1MB:2", "ring takes one SIZE per rank (e.g. ring:1GB)"),
    ("permutation:x:4MB", "permutation takes an integer SEED (permutation:3:4MB)"),
    ("alltoall:infMB", "bad size 'infMB' (use e.g. 4096B, 64MB, 1GiB: B/KB/MB/GB/TB decimal, KiB/MiB/GiB/TiB binary)"),
])
def test_bad_size_specs_are_refused_naming_the_spec(ft4, spec, problem):
    with pytest.raises(ParamError) as e:
        make_workload(ft4, spec)
    assert e.value.param == "workload" and str(e.value) == f"workload {spec!r}: {problem}"
    assert isinstance(e.value, FabricError)


@pytest.fixture(scope="module")
def roce(tmp_path_factory):
    d = tmp_path_factory.mktemp("fct")
    p = d / "ls.json"
    save_fabric(leaf_spine(4, 4, 4), p)
    return d, p


def _cli(args, capsys):
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_out_flows_columns_and_json_keys(roce, capsys):
    d, p = roce
    fo = d / "flows.csv"
    rc, out, err = _cli(["simulate", p, "--workload", "permutation:4MB", "--over", "nic", "--json",
                         "--out-flows", fo], capsys)
    assert rc == 0, err
    s = json.loads(out)
    assert set(s["fct"]) == {"model", "finite_flows", "finished", "unfinished", "median_us", "p99_us", "max_us",
                             "mean_rate_gbps"}
    assert set(s["slowdown"]) == {"median", "p99", "max"} and s["unfinished_flows"] == []
    assert s["fct"]["finished"] == s["flows"] == 16 and s["slowdown"]["median"] >= 1.0
    rows = list(csv.DictReader(fo.open()))
    assert list(rows[0]) == ["flow", "src", "dst", "sl", "bytes", "start_us", "finish_us", "fct_us", "rate_gbps",
                             "latency_ns"]
    fct = np.array([float(r["fct_us"]) for r in rows])
    assert all(r["bytes"] == "4000000" and float(r["start_us"]) == 0.0 for r in rows)
    assert np.allclose(fct, [float(r["finish_us"]) for r in rows], atol=1e-3)
    assert np.allclose([float(r["rate_gbps"]) for r in rows], 4e6 * 8 / (fct * 1e-6) / 1e9, rtol=1e-5)
    assert s["fct"]["max_us"] == pytest.approx(fct.max(), abs=2e-3)


def test_cli_text_lists_unfinished_flows_and_long_lived_rows_stay_empty(roce, capsys):
    d, p = roce
    fo = d / "inc.csv"
    rc, out, err = _cli(["simulate", p, "--workload", "incast:3:1MB", "--over", "nic", "--model", "fluid",
                         "--duration", "40us", "--out-flows", fo], capsys)
    assert rc == 0, err
    assert "flow completion (0 of 3 sized flows finished; fluid model (delivery of the last byte)):" in out
    assert "  unfinished (no FCT): 3 flow(s):" in out
    rows = list(csv.DictReader(fo.open()))
    assert all(r["fct_us"] == "" and r["finish_us"] == "" and r["start_us"] == "0.000" for r in rows)
    rc, out, err = _cli(["simulate", p, "--workload", "incast:3", "--over", "nic", "--out-flows", fo], capsys)
    assert rc == 0 and "flow completion" not in out
    rows = list(csv.DictReader(fo.open()))
    assert all(r["bytes"] == r["fct_us"] == r["start_us"] == "" and float(r["rate_gbps"]) > 0 for r in rows)


@pytest.mark.parametrize("spec", ["permutation:4XB", "incast:8:-1MB", "pfc-cycle:lots"])
def test_cli_refuses_a_bad_size_in_one_line(roce, capsys, spec):
    _, p = roce
    rc, out, err = _cli(["simulate", p, "--workload", spec], capsys)
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"fabricviz: error: --workload {spec!r}: ")
