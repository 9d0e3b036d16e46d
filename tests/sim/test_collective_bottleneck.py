"""The slowest step of a collective and the links that bound it (fabricviz.sim.collective.slowest_step),
and the CSV the GUI writes (csv_text) against the CLI's --csv."""

from __future__ import annotations

import pytest

from fabricviz.generate import fat_tree
from fabricviz.sim.collective import Solver, collective, csv_text, slowest_step


@pytest.fixture(scope="module")
def ft32():
    return fat_tree(levels=2, radix=8, fabric="ib")


def test_tree_allreduce_names_the_full_nic_and_uplink_links(ft32):
    """As test_collective's tree case derives: all 124 tree transfers at 100 Gb/s, bound at the
    NICs of servers sending four halves and at the uplinks the LFTs give four transfers."""
    s = Solver(ft32)
    res = collective(ft32, "allreduce", [8.0, 1e9], algo="tree", solver=s)
    b = slowest_step(ft32, res, s)
    assert (b.kind, b.size, b.rate_gbps, len(b.src), b.nvlink) == ("tree edge", 1e9, 100.0, 44, False)
    assert b.link_names[:6] == (("leaf02", "spine04"), ("leaf03", "spine01"), ("leaf04", "spine04"),
                                ("leaf05", "spine01"), ("leaf06", "spine04"), ("leaf07", "spine01"))
    assert len(b.links) == 50 and len(b.cables) == 28
    assert b.time_ns == pytest.approx(res.rows[1].time_us * 1e3, rel=1e-12)      # the one step
    assert b.describe(ft32) == ("tree edge node03/gpu0 → node05/gpu0 (and 43 more like it) at 100 Gb/s "
                                "over leaf02→spine04, leaf03→spine01 (+48 more)")


def test_csv_text_is_the_clis_csv(ft32, tmp_path):
    from fabricviz.commands.collective import write_csv
    res = collective(ft32, "reducescatter", [8.0, 1e6], gpus="8")
    write_csv(res, str(tmp_path / "c.csv"))
    assert csv_text(res) == (tmp_path / "c.csv").read_text()
    # nccl-tests' count for reduce-scatter is per rank: 8 B over 8 ranks is 0 floats each, 1 MB 31,250
    lines = csv_text(res).splitlines()
    assert lines[1].startswith("8,0,float,sum,-1,") and lines[2].startswith("1000000,31250,float,sum,-1,")
