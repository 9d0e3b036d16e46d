"""``fabricviz simulate`` and ``fabricviz latency`` end to end (in process)."""

import csv
import json

import pytest

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate import k_ary_fat_tree, leaf_spine


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("sim")
    ib, roce = d / "ft8.json", d / "ls.json"
    save_fabric(k_ary_fat_tree(8), ib)
    save_fabric(leaf_spine(4, 4, 4), roce)
    return d, ib, roce


def run(args, capsys):
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def test_simulate_maxmin_json_and_csvs(files, capsys):
    d, ib, _ = files
    fo, lo = d / "flows.csv", d / "links.csv"
    rc, out, err = run(["simulate", ib, "--workload", "permutation", "--over", "nic", "--routing", "spray",
                        "--json", "--out-flows", fo, "--out-links", lo], capsys)
    assert rc == 0, err
    s = json.loads(out)
    assert s["routing"] == "spray" and s["model"] == "maxmin" and s["flows"] == 128
    assert s["rate_share"] == {k: pytest.approx(1.0) for k in ("mean", "min", "max")}
    rows = list(csv.DictReader(fo.open()))
    assert len(rows) == 128 and {"src", "dst", "rate_gbps", "latency_ns"} <= set(rows[0])
    assert float(rows[0]["rate_gbps"]) == pytest.approx(400.0)
    links = list(csv.DictReader(lo.open()))
    assert len(links) == 2 * 384 + 2 * 128          # cables both ways + PCIe both ways
    assert {"link", "from", "to", "utilization", "queue_bytes", "latency_ns"} <= set(links[0])
    assert max(float(r["utilization"]) for r in links) <= 1.0 + 1e-9


def test_simulate_defaults_by_fabric_and_fluid(files, capsys):
    d, ib, roce = files
    rc, out, _ = run(["simulate", ib, "--workload", "shift:1", "--json"], capsys)
    assert json.loads(out)["routing"] == "static"
    rc, out, err = run(["simulate", roce, "--workload", "incast:3", "--model", "fluid",
                        "--duration", "200us", "--json"], capsys)
    assert rc == 0, err
    s = json.loads(out)
    assert s["routing"] == "ecmp" and s["model"] == "fluid"
    assert s["lost_bytes"] == 0 and "max_queue" in s and "paused_links" in s
    assert err == ""                    # no progress bar when stderr is not a terminal


def test_simulate_flows_csv_and_errors(files, capsys):
    d, ib, _ = files
    bad = d / "bad.csv"
    bad.write_text("src,dst\nnode001/gpu0,node999/gpu0\n")
    rc, out, err = run(["simulate", ib, "--flows", bad], capsys)
    assert rc == 2 and err.count("\n") == 1 and "bad.csv:2: dst 'node999/gpu0': no such device" in err
    good = d / "good.csv"
    good.write_text("src,dst,rate_gbps\nnode001/gpu0,node128/gpu0,100\n")
    rc, out, err = run(["simulate", ib, "--flows", good, "--json"], capsys)
    assert rc == 0 and json.loads(out)["rate_gbps"]["total"] == pytest.approx(100.0)
    rc, out, err = run(["simulate", ib, "--workload", "shift", "--duration", "soon"], capsys)
    assert rc == 2 and "--duration 'soon'" in err
    rc, out, err = run(["simulate", ib, "--workload", "warp"], capsys)
    assert rc == 2 and "unknown pattern" in err


def test_latency_command(files, capsys):
    d, ib, _ = files
    rc, out, err = run(["latency", ib, "node001/gpu0", "node128/gpu0", "--json"], capsys)
    assert rc == 0, err
    j = json.loads(out)
    assert len(j["hops"]) == 8 and j["hops"][0]["pcie"] and j["nic_tx_ns"] == 300.0
    assert j["total_ns"] == pytest.approx(sum(h["total_ns"] for h in j["hops"]) + 600.0)
    rc, out, err = run(["latency", ib, "node001/gpu0", "node128/gpu0"], capsys)
    assert "total one-way" in out and "leaf01" in out
    rc, out, err = run(["latency", ib, "node001/gpu0", "nowhere"], capsys)
    assert rc == 2 and "'nowhere': no such device" in err


def test_duration_parsing_and_progress_bar():
    import io

    from fabricviz.sim.progress import text_progress
    from fabricviz.sim.units import ParamError, parse_duration
    assert parse_duration("10ms") == pytest.approx(0.01)
    assert parse_duration("250us") == pytest.approx(250e-6)
    assert parse_duration("0.5s") == 0.5
    with pytest.raises(ParamError) as e:
        parse_duration("0ms")
    # in words for the GUI; the CLI names its flag
    assert str(e.value) == "the duration '0ms': must be positive" and e.value.param == "duration"
    assert e.value.with_flag("--duration") == "--duration '0ms': must be positive"
    assert text_progress(io.StringIO()) is None           # not a terminal: no bar

    class Tty(io.StringIO):
        def isatty(self):
            return True
    s = Tty()
    bar = text_progress(s)
    bar(0.5)
    bar(1.0)
    assert "50%" in s.getvalue() and s.getvalue().endswith("100%\n")


def test_simulate_leaves_unreachable_hosts_out_with_one_warning(tmp_path, capsys):
    from fabricviz.generate import fat_tree
    from tests.sim.islands import DEMO, with_island
    demo, island = tmp_path / "demo.json", tmp_path / "island.json"
    save_fabric(fat_tree(**DEMO), demo)
    save_fabric(with_island(fat_tree(**DEMO), "ib_switch:QM9700-R8", "NODE-1G-NDR"), island)
    for extra in ([], ["--model", "fluid", "--duration", "100us"]):
        args = ["simulate", "{}", "--workload", "alltoall"] + extra
        rc0, out0, err0 = run([a.format(demo) for a in args], capsys)
        rc, out, err = run([a.format(island) for a in args], capsys)
        assert rc0 == rc == 0 and err0 == ""
        assert err == ("warning: 2 hosts unreachable, left out of the run: srv98 (no route from the "
                       "SM's subnet), srv99 (not cabled)\n")
        assert out == out0                       # the same run, line for line
    rc, out, err = run(["simulate", island, "--workload", "incast:4", "--json"], capsys)
    assert rc == 0 and err.count("\n") == 1
    s = json.loads(out)
    assert s["flows"] == 4 and s["dropped_flows"] == 0
    assert s["left_out"] == [{"host": "srv98", "reason": "no route from the SM's subnet"},
                             {"host": "srv99", "reason": "not cabled"}]
    rc, out, err = run(["compare-tech", island, "--model", "maxmin"], capsys)
    assert rc == 0 and out.startswith("incast:8 (8 flows), maxmin model")
    assert err == ("warning: 2 hosts unreachable, left out of the run: srv98 (no route from the "
                   "SM's subnet), srv99 (not cabled)\n")
    flows = tmp_path / "flows.csv"
    flows.write_text("src,dst\nnode01/gpu0,node02/gpu0\nnode01/gpu0,srv99/gpu0\n")
    rc, out, err = run(["simulate", island, "--flows", flows], capsys)
    assert rc == 0 and out.startswith("1 flows, static routing")
    assert err == ("warning: 2 hosts unreachable, left out of the run: srv98 (no route from the "
                   "SM's subnet), srv99 (not cabled); 1 of the given flows touch them and were left out\n")


@pytest.mark.parametrize("args,line", [
    (["--workload", "shift:x"], "--workload 'shift:x': shift takes an integer K (shift:4)"),
    (["--workload", "warp"], "--workload 'warp': unknown pattern (use ring, alltoall, permutation, shift, incast)"),
    (["--workload", "ring", "--duration", "0"], "--duration '0': must be positive"),
])
def test_cli_names_the_flag_the_engine_names_the_parameter(files, capsys, args, line):
    from fabricviz.sim.units import ParamError
    from fabricviz.sim.workloads import make_workload
    d, ib, _ = files
    rc, out, err = run(["simulate", ib] + args, capsys)
    assert rc == 2 and out == "" and err == f"fabricviz: error: {line}\n"
    if args[1] != "ring":
        with pytest.raises(ParamError) as e:
            make_workload(k_ary_fat_tree(4), args[1])
        assert e.value.param == "workload" and str(e.value) == line.replace("--workload", "workload", 1)
