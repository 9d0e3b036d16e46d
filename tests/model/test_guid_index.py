"""The index of GUIDs in use (model/guid.py) is exact after any edit and is not rebuilt per addition."""

from __future__ import annotations

import json
import random

import numpy as np

from fabricviz.formats.native import loads
from fabricviz.model import Fabric, FabricError
from fabricviz.model.guid import GuidIndex, Guids


def _fresh_take(f: Fabric, n: int) -> list[int]:
    g = f.copy()
    g.guids.forget_index()             # what the GUIDs would be with no index at all
    return g.guids.take(n).tolist()


def _cached_take(f: Fabric, n: int) -> list[int]:
    return f.copy().guids.take(n).tolist()


def _edit(f: Fabric, rng: random.Random, removed: list) -> str:
    ids = f.device_ids().tolist()
    op = rng.choice(["switch", "nic", "server", "remove", "restore", "guid", "port_guid", "flip", "refused"])
    if op == "switch":
        f.add_devices("ib_switch", rng.randint(1, 3), "QM9700")
    elif op == "nic":
        f.add_devices("nic", rng.randint(1, 3), "CX7-2P", mode=rng.choice(["2xNDR", "200GbE"]))
    elif op == "server":
        f.add_device("server", "DGX-H100")
    elif op == "remove" and ids:
        removed.append(f.remove_devices([rng.choice(ids)]))
    elif op == "restore" and removed:
        r = removed.pop(rng.randrange(len(removed)))
        if f.removal.restore_problem(r) is None:
            f.restore(r)
    elif op == "guid":
        ib = [d for d in ids if f.device(d).is_ib]
        if ib:      # often onto the next GUIDs the index would hand out
            g = _fresh_take(f, 1)[0] + rng.choice([0, 1, 16, 17])
            try:
                f.set_guid(rng.choice(ib), g)
            except FabricError:
                pass
    elif op == "port_guid" and f.ports_t.n:
        p = rng.randrange(f.ports_t.n)
        try:
            f.guids.set_port_guid(p, _fresh_take(f, 2)[-1])
        except FabricError:
            pass
    elif op == "flip":
        nics = f.device_ids("nic").tolist()
        if nics:
            d = f.device(rng.choice(nics))
            p = int(d.port_ids[0])
            if f.ports_t.cable[p] < 0 and d.part.id == "CX7-2P":
                f.set_port_rate(p, "200GbE" if d.is_ib else "2xNDR")
    elif op == "refused":
        try:
            with f.removal.adding():
                f.add_devices("ib_switch", 2, "QM9700")
                raise FabricError("taken back")
        except FabricError:
            pass
    return op


def test_the_index_gives_the_same_guids_as_a_fresh_count_after_any_edit():
    for seed in range(6):
        rng = random.Random(seed)
        f = Fabric()
        removed: list = []
        for step in range(60):
            op = _edit(f, rng, removed)
            assert _cached_take(f, 4) == _fresh_take(f, 4), f"seed {seed} step {step} after {op}"
            used = np.unique(f.guids.used())
            idx = f.guids.index()
            probe = np.concatenate([used, used + np.uint64(1), np.asarray(_fresh_take(f, 3), np.uint64)])
            assert (idx.has(probe) == np.isin(probe, used)).all(), f"seed {seed} step {step} after {op}"


def test_the_index_merges_its_recent_additions_exactly():
    idx = GuidIndex(np.array([5, 1, 9], np.uint64), key=())
    idx.add(np.arange(100, 100 + 5000, dtype=np.uint64))     # over the merge size: into the array
    idx.add(np.array([7], np.uint64))
    probe = np.array([1, 2, 5, 7, 9, 99, 100, 5099, 5100], np.uint64)
    assert idx.has(probe).tolist() == [True, False, True, True, True, False, True, True, False]
    assert len(idx.recent) == 1 and len(idx.base) == 5003


def test_a_file_whose_devices_alternate_kinds_counts_used_guids_once(monkeypatch):
    """8,000 alternating devices without GUIDs took 8.9 s: every addition listed every GUID."""
    calls = []
    real = Guids.used
    monkeypatch.setattr(Guids, "used", lambda self: calls.append(1) or real(self))
    devs = [{"name": f"d{i}", "kind": "ib_switch", "part": "QM9700", "x": i, "y": 0} if i % 2 else
            {"name": f"d{i}", "kind": "nic", "part": "CX7-1P", "x": i, "y": 0} for i in range(2000)]
    f = loads(json.dumps({"format": "fabricviz", "version": 1, "name": "alt", "devices": devs}))
    assert len(f) == 2000 and len(calls) <= 3
    guids = f.guids.used()
    assert len(np.unique(guids)) == len(guids) == 2000 + 1000      # nodes, and one port per CA
