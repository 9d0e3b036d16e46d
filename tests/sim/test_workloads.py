"""Workload patterns and the flow CSV (round trip, one-line errors naming file:line)."""

import numpy as np
import pytest

from fabricviz.generate import k_ary_fat_tree
from fabricviz.model import FabricError
from fabricviz.sim.engine import simulate
from fabricviz.sim.flows_csv import load_flows, save_flows
from fabricviz.sim.units import ParamError
from fabricviz.sim.workloads import (
    Flows,
    all_to_all,
    endpoints,
    incast,
    make_workload,
    parse_size,
    permutation,
    ring_allreduce,
    shift,
)


@pytest.fixture(scope="module")
def ft4():
    return k_ary_fat_tree(4)


def test_patterns(ft4):
    r = endpoints(ft4)                        # GPUs by default
    assert len(r) == 16 and all(ft4.device(int(g)).kind == "gpu" for g in r)
    ring = ring_allreduce(r, 16e6)
    assert len(ring) == 16 * 30 and set(ring.step) == set(range(30))
    assert np.all(ring.bytes == 1e6)
    first = ring.select(ring.step == 0)
    assert np.array_equal(first.dst, np.roll(r, -1))
    a2a = all_to_all(r, 16e6)
    assert len(a2a) == 16 * 15 and not np.any(a2a.src == a2a.dst)
    p = permutation(r, seed=3)
    assert not np.any(p.src == p.dst) and sorted(p.dst) == sorted(r)
    assert np.array_equal(p.dst, permutation(r, seed=3).dst)
    assert not np.array_equal(p.dst, permutation(r, seed=4).dst)
    s = shift(r, 3)
    assert np.array_equal(s.dst, np.roll(r, -3))
    inc = incast(r, 5)
    assert len(inc) == 5 and np.all(inc.dst == r[0])


def test_make_workload_specs_and_errors(ft4):
    assert len(make_workload(ft4, "incast:4")) == 4
    assert len(make_workload(ft4, "shift:2", over="nic")) == 16
    assert make_workload(ft4, "ring:1MB").bytes[0] == pytest.approx(1e6 / 16)
    assert parse_size("1GiB") == 2 ** 30 and parse_size("64MB") == 64e6
    for bad, msg in (("nope", "unknown pattern"), ("shift:x", "integer"), ("incast:99", "at least"),
                     ("ring:-1", "bad size")):
        with pytest.raises(FabricError, match=msg):
            make_workload(ft4, bad)


@pytest.mark.parametrize("call,param,words,flag", [
    (lambda f: endpoints(f, "switches"), "over", "ranks over 'switches' is not one of gpu, nic, auto",
     "--over 'switches' is not one of gpu, nic, auto"),
    (lambda f: make_workload(f, "incast:x"), "workload",
     "workload 'incast:x': incast takes a sender count (incast:8)",
     "--workload 'incast:x': incast takes a sender count (incast:8)"),
    (lambda f: simulate(f, make_workload(f, "incast:2"), model="exact"), "model",
     "model 'exact' is not one of maxmin, fluid", "--model 'exact' is not one of maxmin, fluid"),
])
def test_engine_messages_name_the_parameter_in_words(ft4, call, param, words, flag):
    """The GUI shows engine messages as they are: no CLI flag in them; the CLI maps param → flag."""
    from fabricviz.commands.simulate import FLAGS
    with pytest.raises(ParamError) as e:
        call(ft4)
    assert e.value.param == param and str(e.value) == words and "--" not in words
    assert e.value.with_flag(FLAGS[param]) == flag


def test_csv_round_trip(ft4, tmp_path):
    r = endpoints(ft4)
    flows = Flows(r[:3], r[3:6], bytes=np.array([1e6, np.inf, 5.0]),
                  rate_gbps=np.array([np.inf, 100.0, 1.5]), start_s=np.array([0, 1e-6, 2e-6]),
                  step=np.array([-1, 0, 1]))
    path = tmp_path / "f.csv"
    save_flows(ft4, flows, path)
    back = load_flows(ft4, path)
    for col in ("src", "dst", "bytes", "rate_gbps", "start_s", "step"):
        np.testing.assert_array_equal(getattr(back, col), getattr(flows, col))


@pytest.mark.parametrize("text,msg", [
    ("src,dst\nnode01/gpu0,nosuch\n", r"f\.csv:2: dst 'nosuch': no such device"),
    ("src,dst,bytes\nnode01/gpu0,node02/gpu0,abc\n", r"f\.csv:2: bytes 'abc' is not a number"),
    ("src,dst\nnode01/gpu0,node02/gpu0\nnode01/gpu0\n", r"f\.csv:3: 1 fields"),
    ("src,bytes\nnode01/gpu0,1\n", r"f\.csv:1: missing column 'dst'"),
    ("src,dst,colour\n", r"f\.csv:1: unknown column 'colour'"),
    ("src,dst\nnode01/gpu0,node01/gpu0\n", r"f\.csv:2: src and dst are the same"),
    ("src,dst,rate_gbps\nnode01/gpu0,node02/gpu0,-3\n", r"f\.csv:2: rate_gbps must be"),
])
def test_bad_csv_is_one_line_error(ft4, tmp_path, text, msg):
    path = tmp_path / "f.csv"
    path.write_text(text)
    with pytest.raises(FabricError, match=msg) as e:
        load_flows(ft4, path)
    assert "\n" not in str(e.value)
