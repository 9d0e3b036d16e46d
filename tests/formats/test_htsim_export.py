"""`fabricviz export-htsim`: a workload as an htsim_roce run (github.com/Broadcom/csg-htsim).

The reference is htsim's own permutation of tests/data/htsim (gen_permutation.py, 128 hosts,
4,000,000 bytes, all at 0): exported from the generated radix-8 RoCE fat tree it must give htsim's
file back byte for byte, so the host numbering is htsim's (node001/mlx5_0 → 0 … node128 → 127).

run.sh's figures, by hand, for `generate fat-tree --levels 3 --radix 8 --fabric roce --speed 100GbE
--switch SN4700`:
* -hop_latency: cables of 2 m (DAC, 10 ns), 15 m and 30 m (AOC, 5 ns/m + the part's 20 ns: 95 and
  170 ns), 128 of each: mean 91.67 ns = 0.0916667 µs; -switch_latency: SN4700 450 ns;
* -pfc_thresholds: leaf ingress XON 1,981,568 B and XOFF 2,000,000 B (the lossless plan,
  test_switch_config's figures at 100G): htsim pauses above HIGH packets, resumes below LOW, so
  HIGH = ⌊2,000,000 / 9216⌋ − 1 = 216, LOW = min(⌈1,981,568 / 9216⌉ + 1, HIGH − 1) = 215;
* -q: SN4700 64 MiB − headroom 481,428 B − reserves 262,144 B = 66,365,292 B pool; α/(1+α) = ½ →
  33,182,646 B ÷ 9216 → 3600;
* -end: the busiest NIC sends 4,000,000 B = 435 packets of 9216 B = 320.7 µs at 100 Gb/s, + 6 hops;
  30 × 327 µs < 10 ms → 10000.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fabricviz.cli import main
from fabricviz.formats.htsim import parse_connection_matrix
from fabricviz.formats.native import save_fabric
from fabricviz.generate import fat_tree, leaf_spine

DATA = Path(__file__).resolve().parents[1] / "data" / "htsim"
PERM = DATA / "perm-128-1.cm"


@pytest.fixture(scope="module")
def designs(tmp_path_factory):
    """The radix-8 RoCE fat tree and its variants, saved once."""
    d = tmp_path_factory.mktemp("designs")
    out = {}

    def save(key, f):
        out[key] = str(d / f"{key}.json")
        save_fabric(f, out[key])

    ft = lambda **kw: fat_tree(levels=3, radix=8, fabric="roce", speed="100GbE", switch="SN4700", **kw)  # noqa: E731
    save("ft8", ft())
    htsim_like = ft()                 # htsim's own queues as the design's thresholds (bench/htsim_compare.py)
    htsim_like.set_meta("roce", {"mtu": 9000, "pfc": {"xoff": 144000, "xon": 99000}})
    save("htsim_like", htsim_like)
    save("blocking", ft(blocking="2:1"))
    mixed = ft()
    mixed.set_port_rate(mixed.port_id("node001/mlx5_0", 1), "50GbE")
    save("mixed", mixed)
    short = ft()
    short.remove_cables([int(short.ports_t.cable[short.port_id("leaf07", 4)])])
    save("short", short)
    wired = ft()                       # spine05 (pod 2) to core05 and spine06 to core01: no longer htsim's groups
    cab = lambda a: int(wired.ports_t.cable[wired.port_id(a[0], a[1])])  # noqa: E731
    wired.remove_cables([cab(("spine05", 5)), cab(("spine06", 5))])
    wired.add_cable("spine05:5", "core05:2", 30)
    wired.add_cable("spine06:5", "core01:2", 30)
    save("wired", wired)
    save("leafspine", leaf_spine(4, 4, 4, speed="100GbE", switch="SN4700"))
    save("ls4", leaf_spine(4, 2, 2, speed="100GbE", switch="SN4700"))
    save("ib", fat_tree(levels=3, radix=4, fabric="ib"))
    return out


def export(capsys, *argv):
    rc = main(["export-htsim", *map(str, argv)])
    out, err = capsys.readouterr()
    return rc, out, err


def perm_csv(tmp_path) -> Path:
    """htsim's permutation as a fabricviz flow CSV: host i is node{i+1}/mlx5_0."""
    rows = ["src,dst,bytes"]
    for line in PERM.read_text().splitlines():
        m = re.match(r"(\d+)->(\d+) id \d+ start 0 size (\d+)$", line)
        if m:
            rows.append(f"node{int(m[1]) + 1:03d}/mlx5_0,node{int(m[2]) + 1:03d}/mlx5_0,{m[3]}")
    path = tmp_path / "perm.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def run_args(run_sh: str) -> dict[str, tuple[str, str]]:
    """flag → (value, comment) of run.sh's args=( … ) block."""
    block = run_sh.split("args=(\n", 1)[1].split("\n)\n", 1)[0]
    out = {}
    for line in block.splitlines():
        m = re.match(r"  (-\w+) (.+?)\s+# (.+)$", line)
        assert m, line
        out[m[1]] = (m[2], m[3])
    return out


def test_htsim_permutation_comes_back_byte_for_byte(designs, tmp_path, capsys):
    out_dir = tmp_path / "run"
    rc, out, err = export(capsys, designs["ft8"], "--flows", perm_csv(tmp_path), "-o", out_dir)
    assert (rc, err) == (0, "")
    assert out.splitlines() == [str(out_dir / n) for n in
                                ("connections.cm", "hosts.csv", "flows.csv", "run.sh", "README.txt")]
    text = (out_dir / "connections.cm").read_text()
    assert text == PERM.read_text()
    got = parse_connection_matrix(text)
    want = parse_connection_matrix(PERM.read_text())
    assert [(c.src, c.dst, c.size) for c in got.connections] == [(c.src, c.dst, c.size) for c in want.connections]
    assert (got.nodes, len(got.connections), got.connections[0]) == (128, 128, want.connections[0])
    hosts = (out_dir / "hosts.csv").read_text().splitlines()
    assert hosts[0] == "host,nic,leaf,tor,pod,gpus"
    assert hosts[1:] == [f"{i},node{i + 1:03d}/mlx5_0,leaf{i // 4 + 1:02d},{i // 4},{i // 16},node{i + 1:03d}/gpu0"
                         for i in range(128)]
    flows = (out_dir / "flows.csv").read_text().splitlines()
    assert flows[:2] == ["id,src,dst,htsim_src,htsim_dst,bytes,step", "1,node015/mlx5_0,node128/mlx5_0,14,127,4000000,-1"]


def test_run_sh_flags_come_from_the_design(designs, tmp_path, capsys):
    out_dir = tmp_path / "run"
    assert export(capsys, designs["ft8"], "--flows", perm_csv(tmp_path), "-o", out_dir)[0] == 0
    run_sh = (out_dir / "run.sh").read_text()
    args = run_args(run_sh)
    assert {f: v for f, (v, _) in args.items()} == {
        "-nodes": "128", "-tiers": "3", "-conns": "128", "-tm": '"$here/connections.cm"', "-strat": "ecmp_host",
        "-paths": "256", "-linkspeed": "100000", "-mtu": "9216", "-hop_latency": "0.105",
        "-switch_latency": "0.45", "-queue_type": "lossless_input", "-pfc_thresholds": "215 216", "-q": "3600",
        "-host_queue_type": "prio", "-end": "10000", "-seed": "0", "-o": '"$here/logout.dat"'}
    assert args["-pfc_thresholds"][1] == ("leaf ingress XON / XOFF of the lossless plan, 1,981,568 / 2,000,000 B: "
                                          "htsim pauses above HIGH packets and resumes below LOW, so LOW = XON ÷ MTU "
                                          "+ 1, HIGH = XOFF ÷ MTU − 1 (LOW HIGH, packets)")
    assert args["-hop_latency"][1] == ("mean cable propagation of the latency model (5 ns/m over 2-30 m, + cable "
                                       "parts): 105.0 ns, in µs")
    assert args["-switch_latency"][1] == "switch latency_ns in the catalog: SN4700 450 ns, in µs"
    assert args["-q"][1] == ("an egress queue's share of the leaf buffer, α·pool/(1+α) = 33,182,646 B (SN4700, α 1) "
                             "÷ MTU (htsim only warns past it)")
    assert args["-end"][1].startswith("30 × the ideal completion, 327.3 µs")
    assert '"$HTSIM/htsim_roce" "${args[@]}" "$@" > "$here/htsim_roce.out"' in run_sh
    assert ('#   "$HTSIM/htsim_hpcc" -nodes 128 -conns 128 -tm "$here/connections.cm" -strat ecmp_host -paths 256 '
            '-linkspeed 100000 -mtu 9216 -hop_latency 0.105 -switch_latency 0.45 -end 10000 -seed 0 '
            '-host_queue_type prio -pfc_thresholds 215 216 -q 3600 -o "$here/hpcc.dat" > "$here/htsim_hpcc.out"'
            in run_sh.splitlines())
    assert (out_dir / "run.sh").stat().st_mode & 0o111


@pytest.mark.parametrize("routing, strat", [("adaptive", "ecmp_ar"), ("spray", "ecmp_rr")])
def test_routing_picks_the_htsim_strategy(designs, tmp_path, capsys, routing, strat):
    assert export(capsys, designs["ls4"], "--workload", "permutation:1MB", "--routing", routing,
                  "-o", tmp_path)[0] == 0
    run_sh = (tmp_path / "run.sh").read_text()
    args = run_args(run_sh)
    assert (args["-strat"][0], "-paths" in args, args["-tiers"][0], args["-nodes"][0]) == (strat, False, "2", "8")
    hpcc = [line for line in run_sh.splitlines() if "htsim_hpcc" in line]
    why = "it aborts on -strat ecmp_rr (reordered acks)" if routing == "spray" else "it has no -tiers: 3 levels only"
    assert hpcc == [f"# htsim_hpcc: not offered here, {why}"]


def test_ring_steps_are_chained_by_barrier_triggers(designs, tmp_path, capsys):
    assert export(capsys, designs["ls4"], "--workload", "ring:16MB", "-o", tmp_path)[0] == 0
    text = (tmp_path / "connections.cm").read_text()
    lines = text.splitlines()
    # 8 ranks: 14 steps of 8 flows of 16 MB / 8; step s+1 waits for barrier s+1 (8 flows of step s)
    assert lines[:3] == ["Nodes 8", "Connections 112", "Triggers 13"]
    assert lines[3] == "0->1 id 1 start 0 size 2000000 send_done_trigger 1"
    assert lines[3 + 8] == "0->1 id 9 trigger 1 size 2000000 send_done_trigger 2"
    assert lines[3 + 111] == "7->0 id 112 trigger 13 size 2000000"
    assert lines[-13:] == [f"trigger id {i} count 8 barrier" for i in range(1, 14)]
    cm = parse_connection_matrix(text)
    assert [c.trigger for c in cm.connections[::8]] == list(range(14))
    assert "Ring steps are chained by 13 barrier triggers" in (tmp_path / "README.txt").read_text()


@pytest.mark.parametrize("name", ["perm-128-1.cm", "perm-128-5.cm", "perm-432-1.cm"])
def test_connection_matrix_round_trip(name):
    from fabricviz.formats.htsim import format_connection_matrix
    text = (DATA / name).read_text()
    assert format_connection_matrix(parse_connection_matrix(text, name)) == text


def test_infiniband_design_runs_as_lossless_roce(designs, tmp_path, capsys):
    assert export(capsys, designs["ib"], "--workload", "permutation:1MB", "-o", tmp_path)[0] == 0
    run_sh = (tmp_path / "run.sh").read_text()
    args = run_args(run_sh)
    assert {f: args[f][0] for f in ("-nodes", "-linkspeed", "-mtu", "-pfc_thresholds", "-q", "-strat")} == {
        "-nodes": "16", "-linkspeed": "400000", "-mtu": "4096", "-pfc_thresholds": "61 62", "-q": "248",
        "-strat": "ecmp_host"}
    assert ("# InfiniBand design: htsim has no InfiniBand model; RoCE over lossless input queues (no drops, "
            "per-hop backpressure) is the closest packet model.") in run_sh.splitlines()


def _refused(capsys, tmp_path, design, *flows):
    out_dir = tmp_path / "out"
    rc, out, err = export(capsys, design, *flows, "-o", out_dir)
    assert (rc, out, out_dir.exists()) == (2, "", False)
    assert err.count("\n") == 1
    return err.removeprefix("fabricviz: error: ").rstrip("\n")


@pytest.mark.parametrize("key, why", [
    ("leafspine", "htsim's 2-level fat tree with K/2 = 4 hosts per leaf has K = 8 leaves and K/2 = 4 spines; "
                  "it has 4 leaves and 4 spines"),
    ("blocking", "htsim's fat tree gives every leaf as many uplinks as hosts (K/2 = 5, no oversubscription); "
                 "leaf01 has 5 hosts and 3 uplinks"),
    ("mixed", "htsim's fat tree runs every link at one speed; 383 cables run 100GbE, node001/mlx5_0:1 – leaf01:1 "
              "runs 50GbE"),
    ("short", "htsim's fat tree needs every leaf to have K/2 = 4 hosts; leaf07 has 3"),
    ("wired", "htsim joins the j-th spine of every pod to the same K/2 cores; spine05 reaches core02 and core05, "
              "which spine01 and spine02 reach in the first pod"),
])
def test_designs_htsim_cannot_build_are_refused(designs, tmp_path, capsys, key, why):
    assert _refused(capsys, tmp_path, designs[key], "--workload", "permutation") == f"{designs[key]}: {why}"


def test_flows_htsim_cannot_run_are_refused(designs, tmp_path, capsys):
    csv = tmp_path / "flows.csv"
    csv.write_text("src,dst,bytes\nnode002/gpu0,node003/mlx5_0,1000\nnode001/gpu0,node001/mlx5_0,1000\n")
    assert _refused(capsys, tmp_path, designs["ft8"], "--flows", csv) == (
        f"{csv}: flow 2 (node001/gpu0 -> node001/mlx5_0): both ends use node001/mlx5_0 (htsim host 0); "
        "htsim has no path inside a host")
    csv.write_text("src,dst,bytes,start_us\nnode001/gpu0,node002/mlx5_0,1000,5\n")
    assert _refused(capsys, tmp_path, designs["ft8"], "--flows", csv) == (
        f"{csv}: flow 1 (node001/gpu0 -> node002/mlx5_0): starts at 5 µs: htsim_roce starts every flow no trigger "
        "holds at time 0")
    csv.write_text("src,dst\nnode001/gpu0,node002/mlx5_0\nnode001/gpu0,nodeX/mlx5_0\n")
    assert _refused(capsys, tmp_path, designs["ft8"], "--flows", csv) == f"{csv}:3: dst 'nodeX/mlx5_0': no such device"
    missing = tmp_path / "missing.json"
    assert _refused(capsys, tmp_path, missing, "--workload", "ring") == f"{missing}: no such file"
    assert _refused(capsys, tmp_path, designs["ft8"], "--workload", "ring:big") == (
        "--workload 'ring:big': bad size 'big' (use e.g. 4096B, 64MB, 1GiB: B/KB/MB/GB/TB decimal, KiB/MiB/GiB/TiB "
        "binary)")


def test_a_refused_export_leaves_the_folder_as_it_was(designs, tmp_path, capsys):
    out_dir = tmp_path / "run"
    out_dir.mkdir()
    (out_dir / "connections.cm").write_text("old\n")
    rc, _, err = export(capsys, designs["blocking"], "--workload", "permutation", "-o", out_dir)
    assert rc == 2 and err.startswith(f"fabricviz: error: {designs['blocking']}: ")
    assert sorted(p.name for p in out_dir.iterdir()) == ["connections.cm"]
    assert (out_dir / "connections.cm").read_text() == "old\n"


def test_long_lived_flows_have_size_zero(designs, tmp_path, capsys):
    assert export(capsys, designs["ls4"], "--workload", "shift:1", "--over", "nic", "-o", tmp_path)[0] == 0
    lines = (tmp_path / "connections.cm").read_text().splitlines()
    assert lines[:4] == ["Nodes 8", "Connections 8", "0->1 id 1 start 0 size 0", "1->2 id 2 start 0 size 0"]
    assert run_args((tmp_path / "run.sh").read_text())["-end"][0] == "10000"


def test_the_designs_htsim_thresholds_export_as_htsims_defaults(designs, tmp_path, capsys):
    """meta.roce pfc xoff 144,000 / xon 99,000 B at MTU 9000 — pause at 16 packets held, resume at
    11 — are htsim_roce's own -pfc_thresholds 12 15 (pause above 15, resume below 12)."""
    out_dir = tmp_path / "run"
    assert export(capsys, designs["htsim_like"], "--flows", perm_csv(tmp_path), "-o", out_dir)[0] == 0
    args = run_args((out_dir / "run.sh").read_text())
    assert (args["-mtu"][0], args["-pfc_thresholds"][0]) == ("9000", "12 15")
