"""The slowest step of a collective and the links that bound it (fabricviz.sim.collective.slowest_step),
and the CSV the GUI writes (csv_text) against the CLI's --csv."""

from __future__ import annotations

import pytest

from fabricviz.build import fat_tree
from fabricviz.sim.collective import Solver, collective, csv_text, slowest_step


@pytest.fixture(scope="module")
def ft32():
    return fat_tree(levels=2, radix=8, fabric="ib")


def test_tree_allreduce_is_bound_by_the_three_crowded_uplinks(ft32):
    """As test_collective's tree case derives: four heap edges on each of leaf02:7 → spine03,
    leaf03:5 → spine01 and leaf04:7 → spine03, 100 Gb/s each — those three links and nothing else."""
    s = Solver(ft32)
    res = collective(ft32, "allreduce", [8.0, 1e9], algo="tree", solver=s)
    b = slowest_step(ft32, res, s)
    ct = ft32.cables_t
    ports = sorted((ft32.port_name(int(ct.port_a[c])), ft32.port_name(int(ct.port_b[c]))) for c in b.cables)
    assert ports == [("leaf02:7", "spine03:2"), ("leaf03:5", "spine01:3"), ("leaf04:7", "spine03:4")]
    assert b.link_names == (("leaf02", "spine03"), ("leaf03", "spine01"), ("leaf04", "spine03"))
    assert (b.kind, b.size, b.rate_gbps, len(b.src), b.nvlink) == ("tree edge", 1e9, 100.0, 12, False)
    assert b.time_ns == pytest.approx(res.rows[1].time_us * 1e3, rel=1e-12)      # the one step
    assert b.describe(ft32) == ("tree edge node06/gpu0 → node03/gpu0 (and 11 more like it) at 100 Gb/s "
                                "over leaf02→spine03, leaf03→spine01 (+1 more)")


def test_csv_text_is_the_clis_csv(ft32, tmp_path):
    from fabricviz.commands.collective import write_csv
    res = collective(ft32, "reducescatter", [8.0, 1e6], gpus="8")
    write_csv(res, str(tmp_path / "c.csv"))
    assert csv_text(res) == (tmp_path / "c.csv").read_text()
    # nccl-tests' count for reduce-scatter is per rank: 8 B over 8 ranks is 0 floats each, 1 MB 31,250
    lines = csv_text(res).splitlines()
    assert lines[1].startswith("8,0,float,sum,-1,") and lines[2].startswith("1000000,31250,float,sum,-1,")
