"""`fabricviz collective A.json B.json --op OP,OP --gpus N1,N2` (issue 17): designs × ops × GPU counts,
each case exactly the one-case run; refusals before any case runs. Designs: 2-level InfiniBand fat
trees of radix 8 (32 one-GPU servers) and radix 4 (8)."""

from __future__ import annotations

import csv
import json

import imageio.v3 as iio
import pytest

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate import fat_tree
from fabricviz.sim.collective_sweep import Case, cases, parse_gpus, parse_ops
from fabricviz.sim.units import ParamError


@pytest.fixture(scope="module")
def designs(tmp_path_factory):
    d = tmp_path_factory.mktemp("sweep")
    a, b = d / "ft8.json", d / "ft4.json"
    save_fabric(fat_tree(levels=2, radix=8, fabric="ib"), a)
    save_fabric(fat_tree(levels=2, radix=4, fabric="ib"), b)
    return str(a), str(b)


def test_cases_are_designs_by_ops_by_gpu_counts():
    assert parse_gpus("4,8,all") == ("4", "8", "all")
    assert parse_gpus("8") == ("8",) and parse_gpus("all") == ("all",)
    assert parse_gpus("gpu01,gpu02") == ("gpu01,gpu02",)            # names: one case, ranks in order
    assert parse_ops("allreduce, AllGather") == ("allreduce", "allgather")
    with pytest.raises(ParamError) as e:
        parse_gpus("4,4")
    assert str(e.value.with_flag("--gpus")) == "--gpus '4,4': names a GPU count twice"
    assert cases(2, ("allreduce", "broadcast"), ("4", "8")) == [
        Case(0, "allreduce", "4"), Case(0, "allreduce", "8"), Case(0, "broadcast", "4"), Case(0, "broadcast", "8"),
        Case(1, "allreduce", "4"), Case(1, "allreduce", "8"), Case(1, "broadcast", "4"), Case(1, "broadcast", "8")]


@pytest.mark.slow
def test_a_sweep_prints_each_case_as_run_alone_then_the_summary(designs, tmp_path, capsys):
    a, b = designs
    sizes = ["--sizes", "1KiB:4MiB:x4"]                     # 7 sizes: 1 KiB, 4 KiB … 1 MiB, 4 MiB
    alone, tables = [], []
    for f in designs:
        for op in ("allreduce", "allgather"):
            for g in ("4", "8"):
                assert main(["collective", f, "--op", op, "--gpus", g, *sizes, "--json"]) == 0
                alone.append(json.loads(capsys.readouterr().out))
                assert main(["collective", f, "--op", op, "--gpus", g, *sizes]) == 0
                tables.append(capsys.readouterr().out.rstrip("\n"))
    argv = ["collective", a, b, "--op", "allreduce,allgather", "--gpus", "4,8", *sizes, "--quiet"]
    assert main(argv + ["--json"]) == 0
    assert json.loads(capsys.readouterr().out) == alone
    out_csv, png = tmp_path / "s.csv", tmp_path / "s.png"
    assert main(argv + ["--csv", str(out_csv), "--plot", str(png)]) == 0
    blocks = capsys.readouterr().out.split("\n\n")
    assert len(blocks) == 9
    for block, table, doc in zip(blocks, tables, alone, strict=False):
        head, _, body = block.partition("\n")
        assert head == f"## {doc['design']}: {doc['op']} (ring), {doc['gpus']} GPUs"
        assert body == table
    summary = blocks[-1].splitlines()
    assert summary[:2] == ["# summary (busbw GB/s)",
                           "design              op             algo   gpus       busbw @4M       busbw @1M"]
    for line, doc in zip(summary[2:], alone, strict=True):
        bus = {r["size_bytes"]: r["busbw_GBps"] for r in doc["rows"]}
        assert line.split() == [doc["design"], doc["op"], "ring", str(doc["gpus"]), f"{bus[4 * 2 ** 20]:.2f}",
                                f"{bus[2 ** 20]:.2f}"]
    assert len(summary) == 2 + 8
    rows = list(csv.reader(out_csv.open()))
    assert rows[0] == ["design", "op", "algo", "gpus", "size_bytes", "count", "type", "redop", "root", "time_us",
                       "algbw_GBps", "busbw_GBps"]
    assert len(rows) == 1 + 8 * 7 and rows[1][:5] == ["fat-tree-2l-r8-32h", "allreduce", "ring", "4", "1024"]
    assert [float(r[-1]) for r in rows[1:8]] == [round(x["busbw_GBps"], 6) for x in alone[0]["rows"]]
    img = iio.imread(png)
    assert img.shape == (500, 800, 3)
    colours = {tuple(p) for p in img.reshape(-1, 3).tolist()}
    assert {(31, 119, 180), (255, 127, 14), (23, 190, 207)} - colours == {(23, 190, 207)}   # 8 of 10 colours


def test_a_sweep_refuses_a_case_in_one_line_naming_the_file_before_any_runs(designs, capsys, monkeypatch):
    import fabricviz.sim.collective_sweep as sweep

    def never(*a):
        raise AssertionError("a case ran")
    monkeypatch.setattr(sweep, "run_case", never)
    a, b = designs
    assert main(["collective", a, b, "--op", "allreduce", "--gpus", "4,16"]) == 2     # the radix-4 tree has 8
    assert capsys.readouterr().err.splitlines() == [
        f"fabricviz: error: {b}: --gpus '16': needs 2 to 8 GPUs (the design has 8)"]
    assert main(["collective", a, "--op", "allreduce,gather"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "fabricviz: error: --op 'gather' is not one of allreduce, allgather, reducescatter, alltoall, broadcast"]
    assert main(["collective", a, "--op", "allreduce,allgather", "--algo", "tree"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "fabricviz: error: --algo 'tree': NCCL's tree runs all-reduce only; allgather runs ring"]


def test_a_case_refused_as_it_runs_and_bad_outputs_are_one_line(designs, tmp_path, capsys):
    """A design whose GPU lost its cable passes the up-front checks but its case refuses as it runs:
    the line names the file (not the fan-out's item); --engine on RoCE, an unwritable --csv or
    --plot are one line too, for one case and for a sweep."""
    from fabricviz.sim.twin import twin
    a, _ = designs
    f = fat_tree(levels=2, radix=8, fabric="ib")
    nic = f.find("node01/mlx5_0")
    f.remove_cables([int(f.ports_t.cable[int(f.devices_t.first_port[nic])])])
    cut, roce = tmp_path / "cut.json", tmp_path / "roce.json"
    save_fabric(f, cut)
    save_fabric(twin(fat_tree(levels=2, radix=4, fabric="ib"), "roce"), roce)
    assert main(["collective", str(cut), a, "--op", "allreduce", "--sizes", "1MB"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"fabricviz: error: {cut}: allreduce, --gpus all: the collective's GPUs are not all reachable (node01)"]
    for argv in ([str(roce)], [str(roce), a]):
        assert main(["collective", *argv, "--op", "allreduce", "--sizes", "1MB", "--engine", "ftree"]) == 2
        assert capsys.readouterr().err.splitlines() == [
            f"fabricviz: error: --engine: subnet manager routing engines are InfiniBand's; {roce} is a RoCE design"]
    missing = tmp_path / "no" / "such"
    for argv in ([a], [a, "--gpus", "4,8"]):
        for flag, name in (("--csv", "x.csv"), ("--plot", "x.png")):
            out = missing / name
            assert main(["collective", *argv, "--op", "allreduce", "--sizes", "1MB", flag, str(out)]) == 2
            assert capsys.readouterr().err.splitlines() == [
                f"fabricviz: error: {out}: cannot save: No such file or directory"]
