"""A big flow CSV is read in work linear in its rows, a few calls per row (issue 28: 100k-1.1M rows
took over 20 s). Counted, not timed: bench/big_inputs.py times a 1M-row file."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.formats.native import load_fabric
from fabricviz.model import FabricError
from fabricviz.resources import asset_path
from fabricviz.sim import flows_csv
from fabricviz.sim.flows_csv import load_flows
from tests.work import calls


@pytest.fixture(scope="module")
def demo():
    return load_fabric(asset_path("demo", "demo-fat-tree.json"))


def _csv(n: int, sl: bool = False) -> str:
    head = "src,dst,bytes,rate_gbps,start_us,step" + (",sl" if sl else "") + "\n"
    return head + "".join(f"node{1 + i % 16:02d}/gpu0,node{1 + (i + 3) % 16:02d}/gpu0,{1000 + i},,{i * 0.5},{i % 8}"
                          + (f",{i % 16}" if sl else "") + "\n" for i in range(n))


def test_rows_cost_a_few_calls_each(demo, tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text(_csv(2000))
    b.write_text(_csv(4000))
    fa, half = calls(load_flows, demo, a)
    fb, full = calls(load_flows, demo, b)
    assert len(fa) == 2000 and len(fb) == 4000 and not fb.sl_given
    assert 1.9 < full / half < 2.1 and full - half < 12 * 2000, (half, full)   # row by row: ~60 per row


@pytest.mark.parametrize("sl", [False, True])
def test_column_reader_equals_row_reader(demo, tmp_path, monkeypatch, sl):
    """Blank, comment and quoted lines, spaces and SLs: the column reader gives the row reader's
    arrays exactly."""
    path = tmp_path / "f.csv"
    path.write_text(_csv(50, sl) + "\n# a comment\n  ,  \n node02/gpu0 , node03/gpu0,inf, 2.5 ,7,-1" + (",3" if sl else "")
                    + "\n")
    fast = load_flows(demo, path, sl=5)
    monkeypatch.setattr(flows_csv, "_columns", lambda *a: None)
    slow = load_flows(demo, path, sl=5)
    for f in ("src", "dst", "bytes", "rate_gbps", "start_s", "step", "sl", "sl_given"):
        x, y = getattr(fast, f), getattr(slow, f)
        assert (x == y if isinstance(x, bool) else x.dtype == y.dtype and np.array_equal(x, y)), f
    assert len(fast) == 51 and fast.bytes[-1] == np.inf and fast.rate_gbps[-1] == 2.5
    path.write_text('src,dst\n"node01/gpu0",node02/gpu0\n')          # quoted: csv reads it
    assert len(load_flows(demo, path)) == 1


@pytest.mark.parametrize(("row", "why"), [
    ("node01/gpu0,node01/gpu0,1,,0,0", "f.csv:3: src and dst are the same device"),
    ("node01/gpu0,nope,1,,0,0", "f.csv:3: dst 'nope': no such device"),
    ("node01/gpu0,node02/gpu0, ,,inf,0", "f.csv:3: start_us must be finite, got 'inf'"),
    ("node01/gpu0,node02/gpu0,1,,0,1.5", "f.csv:3: step '1.5' is not an integer (-1 = not stepped)"),
    (",node02/gpu0,1,,0,0", "f.csv:3: src '': no such device"),
])
def test_a_bad_row_is_named_by_the_row_reader(demo, tmp_path, row, why):
    path = tmp_path / "f.csv"
    path.write_text(f"src,dst,bytes,rate_gbps,start_us,step\nnode01/gpu0,node02/gpu0,1,,0,0\n{row}\n")
    with pytest.raises(FabricError) as e:
        load_flows(demo, path)
    assert str(e.value).endswith(why)
