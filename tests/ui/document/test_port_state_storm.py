"""Port states through the undo stack (issue 28: "cannot undo Set <port> armed: the design changed
since (an edit outside the undo history)" in 6 of 693 GUI edit storms).

The cause: a new cable brings its ends up (INIT/ACTIVE) and the undo of the addition took the
cable away as a removal does, leaving the ends DOWN — not the state they had before. A port set
ARMED, then cabled, came back DOWN after undoing the cable, so the undo of "Set … armed" found
the port changed and refused. Port states other than "disabled" are not in the native file, so
the design's bytes could not show it; these tests compare the port states too.

The storm runs seeded sequences of the editor's commands — the ones the canvas, the inspector,
the Subnet Manager dock ("Apply to design" of a pulled cable) and the Partitions dock push —
on a real Document and undo stack, then undo all (every step must be taken) and redo all.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from fabricviz.formats.native import dumps, loads
from fabricviz.ib.partitions import META_KEY, Member, Partition, PartitionConfig, to_meta
from fabricviz.model.cabling import PORT_STATES
from fabricviz.ui.document.commands import RemoveCommand
from fabricviz.ui.document.document import Document

pytestmark = pytest.mark.gui

SEQUENCES = 60
PARTS = ("QM9700", "SN4700", "NODE-1G-NDR", "DGX-H100")


@pytest.fixture(scope="module")
def demo_text():
    from fabricviz.ui.main_window import DEMO_FABRIC
    return DEMO_FABRIC.read_text()


def state_of(doc: Document) -> tuple[str, bytes, bytes]:
    """The native bytes and the state of every port of a live device, by port id (only
    "disabled" is in the bytes; the rows of undone additions stay in the tables, dead)."""
    f = doc.fabric
    live = np.flatnonzero(f.devices_t.alive[f.ports_t.device])
    return dumps(f), live.tobytes(), f.ports_t.state[live].tobytes()


class PortStorm:
    """Random edits through the editor; ``touched`` are ports whose state an edit set (the storm
    cables them more often than others, as a user bringing up a port would)."""

    def __init__(self, doc: Document, rng: random.Random) -> None:
        self.doc, self.ed, self.rng = doc, doc.editor, rng
        self.touched: list[int] = []
        self.n = 0

    @property
    def f(self):
        return self.doc.fabric

    def live_ports(self, free: bool | None = None) -> np.ndarray:
        f = self.f
        pt = f.ports_t
        ids = np.flatnonzero(f.devices_t.alive[pt.device])
        return ids if free is None else ids[(pt.cable[ids] < 0) == free]

    def pick(self, ids) -> int | None:
        ids = list(ids)
        return int(self.rng.choice(ids)) if ids else None

    # ---- edits: each returns a label and whether the editor took it
    def port_state(self):
        p = self.pick(self.live_ports(free=self.rng.random() < 0.7))
        if p is None:
            return "state nothing", False
        state = self.rng.choice(PORT_STATES)
        self.touched.append(p)
        return f"set {self.f.port_name(p)} {state}", self.ed.set_port_state(p, state)

    def cable(self):
        f, pt = self.f, self.f.ports_t
        free = set(self.live_ports(free=True).tolist())
        mine = [p for p in self.touched if p in free]
        a = self.pick(mine) if mine and self.rng.random() < 0.7 else self.pick(free)
        if a is None:
            return "cable nothing", False
        same = [p for p in free if pt.tech[p] == pt.tech[a] and pt.device[p] != pt.device[a]]
        b = self.pick([p for p in same if p in mine] or same) if same else self.pick(free)
        if b is None:
            return "cable nothing", False
        length = self.rng.choice([1.0, 2.0, 3.0, 50.0])
        return f"cable {f.port_name(a)}-{f.port_name(b)}", self.ed.add_cable(a, b, length) is not None

    def remove_cable(self):
        c = self.pick(self.f.cable_ids().tolist())
        return f"remove cable {c}", c is not None and self.ed.remove([], [c])

    def pull(self):
        """The Subnet Manager dock's "Apply to design" of a pulled cable: one RemoveCommand."""
        c = self.pick(self.f.cable_ids().tolist())
        if c is None:
            return "pull nothing", False
        cmd = RemoveCommand(self.ed, [], [c])
        cmd.setText(f"Pull cable {self.f.cable(c).label}")
        return f"pull {c}", self.ed.run(cmd)

    def delete(self):
        ids = self.f.device_ids()
        d = self.pick(ids.tolist())
        return f"delete {d}", d is not None and self.ed.remove([d], [])

    def add(self):
        part = self.rng.choice(PARTS)
        return f"add {part}", self.ed.add_part(part, self.rng.uniform(-900, 900), self.rng.uniform(-900, 900)) \
            is not None

    def move(self):
        top = self.f.device_ids()
        top = top[self.f.devices_t.parent[top] < 0]
        ids = sorted({d for d in (self.pick(top.tolist()), self.pick(top.tolist())) if d is not None})
        dx, dy = self.rng.choice([(13.5, -7.25), (0.1, 0.0), (-40.0, 40.0)])
        return f"move {ids}", bool(ids) and self.ed.move(ids, dx, dy, merge=self.rng.random() < 0.3)

    def rate(self):
        p = self.pick(self.live_ports())
        if p is None:
            return "rate nothing", False
        rate = self.rng.choice(["4xNDR", "2xNDR", "4xHDR", "400GbE", "200GbE"])
        return f"rate {self.f.port_name(p)} {rate}", self.ed.set_port_rate(p, rate)

    def rename(self):
        d = self.pick(self.f.device_ids().tolist())
        self.n += 1
        return f"rename {d}", d is not None and self.ed.rename(d, f"dev{self.n}")

    def set_cable(self):
        c = self.pick(self.f.cable_ids().tolist())
        return f"set cable {c}", c is not None and self.ed.set_cable(c, length_m=self.rng.choice([1.0, 2.5, 4.0]))

    def partitions(self):
        f = self.f
        nics = [d for d in f.device_ids(["nic"]).tolist() if f.devices_t.guid[d]]
        if self.rng.random() < 0.25 or not nics:
            return "drop partitions", self.ed.set_meta("Delete partitions", META_KEY, None)
        members = tuple(Member(int(f.ports_t.guid[f.port_id(d, 1)]), "full")
                        for d in self.rng.sample(nics, min(len(nics), self.rng.randint(1, 4))))
        conf = PartitionConfig([Partition("Default", 0x7FFF, True, "full", (Member("ALL", "full"),)),
                                Partition(f"p{self.rng.randint(1, 9)}", self.rng.randint(1, 0x7FFE),
                                          members=members)])
        return "set partitions", self.ed.set_meta("Set partitions", META_KEY, to_meta(conf))

    def duplicate(self):
        d = self.pick(self.f.device_ids(["ib_switch", "server"]).tolist())
        return f"duplicate {d}", d is not None and bool(self.ed.duplicate([d]))

    EDITS = (("port_state", 6), ("cable", 5), ("remove_cable", 2), ("pull", 1), ("delete", 1), ("add", 2),
             ("move", 2), ("rate", 2), ("rename", 1), ("set_cable", 1), ("partitions", 1), ("duplicate", 1))

    def step(self):
        names, weights = zip(*self.EDITS, strict=True)
        return getattr(self, self.rng.choices(names, weights)[0])()


def run_sequence(doc: Document, start_text: str, seed: int, refusals: list[str]) -> str | None:
    """One seeded sequence on ``doc``; None if undo-all and redo-all are exact, else why."""
    rng = random.Random(seed)
    ed = doc.editor
    doc.open(loads(start_text), None, "storm")
    refusals.clear()
    start = state_of(doc)
    storm = PortStorm(doc, rng)
    done = []
    for _ in range(rng.randint(15, 30)):
        label, ok = storm.step()
        done.append(label + ("" if ok else " (refused)"))
    end = state_of(doc)
    refusals.clear()
    while ed.stack.canUndo():
        before = ed.stack.index()
        ed.stack.undo()
        if ed.stack.index() == before:
            return f"seed {seed}: undo stopped at {before}: {refusals[-1]} after {done}"
    if state_of(doc) != start:
        return f"seed {seed}: undo-all differs from the start after {done}"
    while ed.stack.canRedo():
        before = ed.stack.index()
        ed.stack.redo()
        if ed.stack.index() == before:
            return f"seed {seed}: redo stopped at {before}: {refusals[-1]} after {done}"
    if state_of(doc) != end:
        return f"seed {seed}: redo-all differs from the end after {done}"
    return None


def new_document(qapp, text: str) -> tuple[Document, list[str]]:
    doc = Document(loads(text))
    refusals: list[str] = []
    doc.editor.message.connect(lambda msg, refusal: refusals.append(msg) if refusal else None)
    return doc, refusals


@pytest.mark.slow      # 60 sequences: ~3 s of CPU (the minimal cases below run in the fast suite)
def test_undo_all_is_exact_over_a_seeded_storm_of_port_state_edits(qapp, demo_text):
    doc, refusals = new_document(qapp, demo_text)
    failures = [r for r in (run_sequence(doc, demo_text, seed, refusals) for seed in range(SEQUENCES)) if r]
    assert not failures, f"{len(failures)} of {SEQUENCES} sequences failed; first: {failures[0]}"


def test_undo_of_a_cable_gives_its_ends_back_their_states(qapp, demo_text):
    """The minimal case of the storm's refusals: an ARMED port cabled, then both undone."""
    doc, refusals = new_document(qapp, demo_text)
    f, ed = doc.fabric, doc.editor
    a, b = f.port_id("spine01", 5), f.port_id("spine04", 8)
    assert f.port(a).cable is None and f.port(b).cable is None
    start = state_of(doc)
    assert ed.set_port_state(a, "armed") and ed.set_port_state(b, "disabled")
    assert ed.add_cable(a, b, 2.0) is not None
    assert (f.port(a).state, f.port(b).state) == ("init", "disabled")
    end = state_of(doc)
    ed.stack.undo()                                     # the cable goes: the ends as they were
    assert (f.port(a).state, f.port(b).state) == ("armed", "disabled")
    ed.stack.undo()
    ed.stack.undo()
    assert ed.stack.index() == 0 and refusals == [] and state_of(doc) == start
    for _ in range(3):
        ed.stack.redo()
    assert ed.stack.index() == 3 and state_of(doc) == end


def test_a_refused_port_state_undo_changes_nothing(qapp, demo_text):
    doc, refusals = new_document(qapp, demo_text)
    f, ed = doc.fabric, doc.editor
    p = f.port_id("spine01", 5)
    assert ed.set_port_state(p, "armed") and ed.move([f.find("leaf01")], 10.0, 0.0)
    f.set_port_state(p, "active")                       # an edit outside the undo history
    ed.stack.undo()                                     # the move: nothing of the port's
    outside = state_of(doc)
    ed.stack.undo()
    assert refusals == [f"cannot undo Set {f.port_name(p)} armed: the design changed since "
                        "(an edit outside the undo history)"]
    assert ed.stack.index() == 1 and ed.stack.count() == 2 and state_of(doc) == outside
    assert f.port(p).state == "active"
