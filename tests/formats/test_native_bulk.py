"""The column reader of native files (formats/native_bulk.py): the design it builds is the one in
memory that was saved, and the record reader's row for row; what it gives way on, the record
reader reads with the same verdict and message."""

import json

import numpy as np
import pytest

from fabricviz.formats import native, native_records
from fabricviz.formats.limits import parse_json
from fabricviz.formats.native_bulk import load_columns
from fabricviz.generate import fat_tree, rail_optimized
from fabricviz.model import Fabric
from tests.formats.fuzzing import mutant


def _live_columns(f: Fabric) -> dict:
    """Every column of the live rows, ids renumbered in id order (a file keeps no ids, only the
    order), references (parent, NIC, port, cable, part) through the renumbering."""
    t, pt, ct = f.devices_t, f.ports_t, f.cables_t
    dev, cab = f.device_ids(), f.cable_ids()
    ports = np.flatnonzero(t.alive[pt.device])

    def renumber(live, n):
        new = np.full(n + 1, -1)        # index -1 (no parent, no cable) stays -1
        new[live] = np.arange(len(live))
        return lambda ids: new[ids].tolist()
    d_, p_, c_ = renumber(dev, t.n), renumber(ports, pt.n), renumber(cab, ct.n)
    return {
        "devices": {"id": d_(dev), "name": [f.name_of(int(d)) for d in dev], "kind": t.kind[dev].tolist(),
                    "part": [f.part_id_of(int(d)) for d in dev], "parent": d_(t.parent[dev]),
                    "local": t.local[dev].tolist(), "x": _mm(t.x[dev]), "y": _mm(t.y[dev]),
                    "tier": t.tier[dev].tolist(), "guid": t.guid[dev].tolist(), "nic": d_(t.bound[dev]),
                    "nports": t.nports[dev].tolist(),
                    "first_port": np.where(t.nports[dev] > 0, p_(t.first_port[dev]), -1).tolist()},
        "ports": {"device": d_(pt.device[ports]), "num": pt.num[ports].tolist(),
                  "rate": [str(f.port_rate(int(p))) for p in ports], "state": pt.state[ports].tolist(),
                  "guid": pt.guid[ports].tolist(), "cable": c_(pt.cable[ports])},
        "cables": {"a": p_(ct.port_a[cab]), "b": p_(ct.port_b[cab]), "type": ct.ctype[cab].tolist(),
                   "length": ct.length[cab].tolist(), "part": [f.parts.ids[i] for i in ct.part[cab]],
                   "rate": [str(f.cable_rate(int(c))) for c in cab]},
    }


def _mm(xs) -> list[float]:
    """Positions as the file keeps them: to 3 decimals."""
    return np.round(xs.astype(np.float64), 3).tolist()


def _rows(f: Fabric) -> list:
    """Every byte of the three tables and the name and part bookkeeping (exact equality)."""
    out: list = [f.names.own, f.names.by_name, f.parts.ids, f.names.auto, f.guids.next, f.name, f.meta]
    for t in (f.devices_t, f.ports_t, f.cables_t):
        out.append({c: t.column(c).tobytes() for c in t._cols})
    return out


def _hand_edited() -> Fabric:
    """A small IB fat tree of DGX servers after the edits a user makes: a server deleted (its
    ids are not reused), a cable pulled, moves, a port disabled and one slowed, a RoCE NIC of
    its own with an Ethernet switch, a given GUID, a GPU bound to another NIC."""
    f = fat_tree(levels=2, radix=8, hosts=32, servers="dgx")
    f.remove_devices([int(f.device_ids("server")[2])])
    f.remove_cables([int(f.cable_ids()[-1])])
    switches = f.device_ids("ib_switch")
    f.move([int(switches[-1])], 12.5, -3.25)
    leaf = f.name_of(int(switches[0]))
    f.set_port_state(f.port_id(f"{leaf}:8"), "disabled")
    f.set_port_rate(f.port_id(f"{leaf}:7"), "2xNDR")
    f.add_device("nic", "CX7-1P", name="roce-nic", mode="400GbE", x=-50)
    f.add_device("eth_switch", "SN5600", name="eth1", x=-50, y=-200, tier=1)
    f.add_cable("roce-nic:1", "eth1:3", 1.5)
    f.set_guid(int(switches[-2]), 0x0002C90300001234)
    server = f.name_of(int(f.device_ids("server")[0]))
    f.bind(f.find(f"{server}/gpu0"), f.find(f"{server}/mlx5_5"))
    return f


DESIGNS = {
    "ft3-r8": lambda: fat_tree(levels=3, radix=8),
    "rail-1su": lambda: rail_optimized(units=1),
    "hand-edited": _hand_edited,
}


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_columns_are_the_saved_design_and_the_record_readers(name):
    f = DESIGNS[name]()
    text = native.dumps(f)
    g = load_columns(json.loads(text), "mem", None)
    assert g is not None                          # read by columns, not handed to the record reader
    assert g.signature() == f.signature()
    assert _live_columns(g) == _live_columns(f)
    assert g.device_ids().tolist() == list(range(len(f)))      # renumbered densely, in file order
    assert _rows(g) == _rows(native_records.RecordLoader("mem", None).load(json.loads(text)))
    assert native.dumps(g) == text
    assert native.loads(native.dumps(g)).signature() == f.signature()


def test_the_hand_edited_design_keeps_its_edits_by_columns():
    g = load_columns(json.loads(native.dumps(_hand_edited())), "mem", None)
    assert g.counts() == {"server": 3, "gpu": 24, "nic": 25, "ib_switch": 12, "eth_switch": 1, "cables": 56}
    server = g.name_of(int(g.device_ids("server")[0]))
    assert g.device(f"{server}/gpu0").nic.name == f"{server}/mlx5_5"
    assert int(g.devices_t.guid[g.device_ids("ib_switch")[-2]]) == 0x0002C90300001234
    assert str(g.port("roce-nic:1").rate) == "400GbE" and g.port("roce-nic:1").cable is not None


def _verdict(text: str):
    """(took the column path, outcome) of native.loads; outcome is the record reader's too."""
    try:
        data = json.loads(text)
    except Exception:                           # not JSON, or nested past what json.loads takes
        data = None
    by_columns = data is not None and load_columns(data, "W", None) is not None
    try:
        new = ("accepted", _rows(native.loads(text, "W")))
    except Exception as e:                       # any refusal: its type and exact message
        new = (type(e).__name__, str(e))
    try:
        old = ("accepted", _rows(native_records.RecordLoader("W", None).load(parse_json(text, "W"))))
    except Exception as e:
        old = (type(e).__name__, str(e))
    assert new == old
    return by_columns, new[0] if new[0] == "accepted" else new[1]


def _edit(f: Fabric, change) -> str:
    data = json.loads(native.dumps(f))
    change(data)
    return json.dumps(data)


def _small() -> Fabric:
    """Records in id order: servers n1-n3 [0-2], their GPUs [3-5] and NICs [6-8], sw1 [9], sw2 [10];
    cables: n1-n3 to sw1:1-3 [0-2], sw1:33 - sw2:33 [3]."""
    f = Fabric(name="small")
    f.add_servers("NODE-1G-NDR", ["n1", "n2", "n3"], [0, 40, 80], [0, 0, 0])
    f.add_device("ib_switch", "QM9700", name="sw1", x=0, y=-200)
    f.add_device("ib_switch", "QM9700", name="sw2", x=80, y=-200)
    for i in (1, 2, 3):
        f.add_cable(f"n{i}/mlx5_0:1", f"sw1:{i}", 2.0)
    f.add_cable("sw1:33", "sw2:33", 5.0)
    return f


def _set(i: int, **fields):
    return lambda d: d["devices"][i].update(fields)


@pytest.mark.parametrize("change, by_columns, outcome", [
    (lambda d: None, True, "accepted"),
    # spellings the column reader leaves to the record reader, which accepts them
    (lambda d: d["cables"][0].update(b="sw1:01"), False, "accepted"),
    (_set(3, name="my-gpu"), False, "accepted"),
    # as users type them: names stored stripped, a NIC named with spaces around it; extras
    (_set(0, name=" n1 "), True, "accepted"),
    (_set(3, nic=" n1/mlx5_0 "), True, "accepted"),
    (_set(0, local=7), True, "accepted"),                        # read on GPUs and NICs only
    (lambda d: d["devices"].append({"name": "loose", "kind": "gpu", "x": 1, "y": 2}), True, "accepted"),
    # refusals: the record reader's message, word for word (the test's _verdict), naming the record
    (_set(10, name="sw1"), False, "W: devices[10].name: name 'sw1' is used twice"),
    (_set(10, name="n1/gpu0"), False, "W: devices[10].name: name 'n1/gpu0' is already used by another device"),
    (lambda d: d["devices"].append(d["devices"].pop(0)), False,
     "W: devices[2].parent: no server named 'n1' before this record"),
    (_set(3, x=True), False, "W: devices[3].x: expected a number, got true"),
    (_set(3, nic="n1/gpu0"), False, "W: devices[3].nic: "),
    (lambda d: d["cables"][1].update(length_m=0), False, "W: cables[1]: n2/mlx5_0:1 – sw1:2: "),
    (lambda d: d["cables"][1].update(a="n1/mlx5_0:1"), False, "W: cables[1]: n1/mlx5_0:1 is already cabled"),
    (lambda d: d["meta"].update(deep=json.loads("[" * 62 + "]" * 62)), True, "accepted"),   # 64 deep in all
    (lambda d: d["meta"].update(deep=json.loads("[" * 63 + "]" * 63)), False,
     "W:1: lists and objects nested deeper than 64"),
])
def test_what_the_column_reader_gives_way_on_gets_the_record_readers_verdict(change, by_columns, outcome):
    took_columns, got = _verdict(_edit(_small(), change))
    assert took_columns == by_columns and got.startswith(outcome)


@pytest.mark.slow
def test_mutants_get_the_same_verdict_and_design_from_both_readers():
    """Seeded mutants of the fuzzer's native seeds: the same refusal message, or the same rows."""
    seen = {True: 0, False: 0}
    accepted = 0
    for i in range(300):
        m = mutant("native", 13, i)
        if len(m.data) > 1 << 20:               # the fuzzer's huge files are its own tests' business
            continue
        by_columns, outcome = _verdict(m.data.decode("utf-8", errors="replace"))
        seen[by_columns] += 1
        accepted += outcome == "accepted"
    assert seen[True] > 30 and seen[False] > 200 and accepted >= seen[True]
