"""A seeded storm of GUI edits through the undo stack: undo-all and redo-all are byte-exact.

Every edit goes through the entry points the menus, the inspector and the canvas use
(the editor's methods, the window's cut/delete/layout/generate, the inspector's port
toggle). After each sequence, undo-all must give back the native file bytes of the
start and redo-all those of the end; an edit that is refused (or does nothing) must
change neither the bytes nor the undo stack's index and count.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from fabricviz.formats.native import dumps, loads
from fabricviz.generate import fat_tree
from fabricviz.model import Fabric
from fabricviz.model.tech import IB_SPEEDS
from fabricviz.ui.canvas.describe import rate_choices

SEQUENCES = 200
#: the storm runs as SEQUENCES // CHUNK tests of CHUNK seeds each (seeds 0..199 in all, the same
#: sequences as one long test had), so that no single test is long on a loaded machine
CHUNK = 25
PALETTE = ("QM9700", "SN4700", "NODE-1G-NDR", "NODE-1G-HDR", "DGX-H100", "CX7-1P", "H100-SXM5",
           "NDR-DAC", "NOPE")


def start_design(demo_text: str) -> str:
    """The bundled demo (IB fat tree, servers with a GPU bound to a NIC) plus an Ethernet corner."""
    f = loads(demo_text)
    f.add_device("eth_switch", "SN4700", name="eth1", x=600.0, y=-300.0, tier=1)
    for i in range(2):
        s = f.add_device("server", "NODE-1G-NDR", name=f"enode{i + 1}", x=500.0 + 60 * i, y=0.0,
                         mode="400GbE")
        nic = f.find(f"{f.name_of(s)}/mlx5_0")
        f.add_cable(f.port_id(nic, 1), f.port_id("eth1", i + 1), 3.0)
    f.add_device("server", "DGX-H100", name="dgx1", x=-400.0, y=200.0)
    f.add_cable("dgx1/mlx5_0:1", f.port_id(f.find("leaf01"), 8) if f.port("leaf01:8").cable is None
                else "spine01:8", 5.0)
    return dumps(f)


class Storm:
    """Random edits on the window ``w``; each returns a label and whether the editor took it."""

    def __init__(self, w, rng: random.Random) -> None:
        self.w, self.rng = w, rng
        self.n = 0

    @property
    def f(self) -> Fabric:
        return self.w.fabric

    # ---- picking things -------------------------------------------------------------
    def dev(self, kinds=None, top=False) -> int | None:
        ids = self.f.device_ids(kinds)
        if top:
            ids = ids[self.f.devices_t.parent[ids] < 0]
        return int(self.rng.choice(ids.tolist())) if len(ids) else None

    def port(self, free: bool | None = None) -> int | None:
        f = self.f
        pt = f.ports_t
        ids = np.flatnonzero(f.devices_t.alive[pt.device]) if pt.n else np.zeros(0, np.int64)
        if free is not None:
            ids = ids[(pt.cable[ids] < 0) == free]
        return int(self.rng.choice(ids.tolist())) if len(ids) else None

    def cable(self) -> int | None:
        ids = self.f.cable_ids()
        return int(self.rng.choice(ids.tolist())) if len(ids) else None

    # ---- edits -------------------------------------------------------------------------
    def add(self):
        part = self.rng.choice(PALETTE)
        return f"add {part}", self.w.editor.add_part(part, self.rng.uniform(-800, 800),
                                                      self.rng.uniform(-800, 800)) is not None

    def remove(self):
        r = self.rng.random()
        if r < 0.35:                                   # a GPU or NIC inside a server
            d = self.dev(["gpu", "nic"])
            return f"remove inner {d}", d is not None and self.w.editor.remove([d], [])
        if r < 0.6:
            c = self.cable()
            return f"remove cable {c}", c is not None and self.w.editor.remove([], [c])
        d = self.dev(top=True)
        if d is None:
            return "delete nothing", False
        self.w.scene.select_devices([d])
        before = self.w.editor.stack.index()
        self.w.selection.delete()
        return f"delete {d}", self.w.editor.stack.index() != before

    def cut(self):
        d = self.dev()
        if d is None:
            return "cut nothing", False
        self.w.scene.select_devices([d], inner=True)
        before = self.w.editor.stack.index()
        self.w.selection.cut()
        return f"cut {d}", self.w.editor.stack.index() != before

    def cable_edit(self):
        a, b = self.port(free=self.rng.random() < 0.85), self.port(free=True)
        if a is None or b is None:
            return "cable nothing", False
        pt = self.f.ports_t
        same = np.flatnonzero((pt.tech == pt.tech[a]) & (pt.cable < 0) & (pt.device != pt.device[a])
                               & self.f.devices_t.alive[pt.device])
        if len(same) and self.rng.random() < 0.6:      # mostly a port that can take it
            b = int(self.rng.choice(same.tolist()))
        length = self.rng.choice([1.0, 2.5, 3.0, 30.0, 0.0, float("nan")])
        return f"cable {a}-{b} {length}", self.w.editor.add_cable(a, b, length) is not None

    def move(self):
        ids = [d for d in (self.dev(), self.dev(top=True)) if d is not None]
        dx, dy = self.rng.choice([(13.5, -7.25), (0.1, 0.0), (-40.0, 40.0), (float("inf"), 0.0),
                                  (1e39, 0.0), (float("nan"), 1.0)])
        return f"move {ids} {dx},{dy}", self.w.editor.move(ids, dx, dy, merge=self.rng.random() < 0.3)

    def rename(self):
        d = self.dev()
        if d is None:
            return "rename nothing", False
        other = self.dev()
        self.n += 1
        name = self.rng.choice([f"r{self.n}", f"r{self.n}", self.f.name_of(other), "", "a\tb",
                                self.f.name_of(d) + "x"])
        return f"rename {self.f.name_of(d)} -> {name!r}", self.w.editor.rename(d, name)

    def set_guid(self):
        d = self.dev(["nic", "ib_switch", "server"])
        if d is None:
            return "guid nothing", False
        other = self.dev(["nic", "ib_switch"])
        fresh = (self.rng.getrandbits(56) << 4) | (1 << 62)
        g = self.rng.choice([fresh, fresh, fresh, 0, 1 << 64, -5,
                             int(self.f.devices_t.guid[other]) if other is not None else 7])
        return f"guid {self.f.name_of(d)} {g:#x}", self.w.editor.set_guid(d, g)

    def set_rate(self):
        p = self.port()
        if p is None:
            return "rate nothing", False
        choices = rate_choices(self.f, p) + ["400GbE", "4xNDR", "bogus", f"4x{self.rng.choice(IB_SPEEDS)}"]
        rate = self.rng.choice(choices)
        return f"rate {self.f.port_name(p)} {rate}", self.w.editor.set_port_rate(p, rate)

    def set_state(self):
        p = self.port()
        if p is None:
            return "state nothing", False
        on = self.rng.random() < 0.5
        return f"state {self.f.port_name(p)} {on}", self.w.inspector.set_port_enabled(p, on)

    def set_cable(self):
        c = self.cable()
        if c is None:
            return "set cable nothing", False
        tech = self.f.cable(c).rate.tech
        parts = [p.id for p in self.f.catalog.by_kind("cable") if p.tech == tech]
        kw = self.rng.choice([{"length_m": self.rng.choice([0.5, 2.0, 4.0, 50.0, -1.0])},
                              {"length_m": 2.0, "ctype": self.rng.choice(["dac", "aoc", "transceiver"])},
                              {"length_m": 3.0, "part": self.rng.choice(parts + ["NDR-DAC", "QM9700"])}])
        return f"set cable {c} {kw}", self.w.editor.set_cable(c, **kw)

    def paste(self):
        ids = [d for d in (self.dev(top=True), self.dev()) if d is not None]
        if not ids:
            return "paste nothing", False
        if self.rng.random() < 0.5:
            return f"duplicate {ids}", bool(self.w.editor.duplicate(ids))
        self.w.editor.copy(ids)
        return f"paste {ids}", bool(self.w.editor.paste())

    def layout(self):
        before = self.w.editor.stack.index()
        self.w.layout_auto()
        return "auto layout", self.w.editor.stack.index() != before

    def generate(self):
        return "generate", self.w.apply_generated(fat_tree(2, 4, 4))

    EDITS = (("add", 3), ("remove", 3), ("cut", 1), ("cable_edit", 3), ("move", 2), ("rename", 3),
             ("set_guid", 2), ("set_rate", 3), ("set_state", 2), ("set_cable", 2), ("paste", 2),
             ("layout", 1), ("generate", 0.15))

    def step(self):
        names, weights = zip(*self.EDITS, strict=True)
        return getattr(self, self.rng.choices(names, weights)[0])()


def canvas_follows(w) -> bool:
    """One item per live device and one cable segment per live cable."""
    w.scene.flush()
    return set(w.scene.items_by_id) == set(w.fabric.device_ids().tolist()) \
        and sum(w.scene.cables.counts().values()) == w.fabric.counts()["cables"]


def run_sequence(w, start_text: str, seed: int) -> str | None:
    """One sequence; None if exact, else a report naming the seed and the edits."""
    rng = random.Random(seed)
    ed = w.editor
    ed.stack.clear()
    ed.set_fabric(loads(start_text))
    start = dumps(w.fabric)
    storm = Storm(w, rng)
    done: list[str] = []
    try:
        for _ in range(rng.randint(10, 20)):
            # a copy, not the bytes: serialised only when the edit was refused (most are taken)
            was, before = w.fabric.copy(), (ed.stack.index(), ed.stack.count())
            label, ok = storm.step()
            done.append(label + ("" if ok else " (refused)"))
            if not ok and (dumps(w.fabric), ed.stack.index(), ed.stack.count()) != (dumps(was), *before):
                return f"seed {seed}: refused edit changed the design or the stack: {done}"
        end = dumps(w.fabric)
        if dumps(loads(end)) != end:
            return f"seed {seed}: the edited design does not load back to the same bytes: {done}"
        for _ in range(ed.stack.count()):        # bounded: a refused undo does not move the stack
            if not ed.stack.canUndo():
                break
            ed.stack.undo()
        if dumps(w.fabric) != start or ed.stack.index() != 0:
            return f"seed {seed}: undo-all differs from the start (index {ed.stack.index()}): {done}"
        if not canvas_follows(w):
            return f"seed {seed}: after undo-all the canvas does not show the design: {done}"
        for _ in range(ed.stack.count()):
            if not ed.stack.canRedo():
                break
            ed.stack.redo()
        if dumps(w.fabric) != end or ed.stack.index() != ed.stack.count():
            return f"seed {seed}: redo-all differs from the end: {done}"
        if not canvas_follows(w):
            return f"seed {seed}: after redo-all the canvas does not show the design: {done}"
    except Exception as exc:    # reported with the seed and the edits so far: the test fails
        return f"seed {seed}: {type(exc).__name__}: {exc} after {done}"
    return None


@pytest.fixture(scope="module")
def demo_text():
    from fabricviz.ui.main_window import DEMO_FABRIC
    return start_design(DEMO_FABRIC.read_text())


def test_the_storm_chunks_cover_every_seed_once():
    seeds = [s for first in range(0, SEQUENCES, CHUNK) for s in range(first, min(first + CHUNK, SEQUENCES))]
    assert seeds == list(range(SEQUENCES))


@pytest.mark.slow
@pytest.mark.parametrize("first", range(0, SEQUENCES, CHUNK), ids=lambda k: f"seeds{k}-{k + CHUNK - 1}")
def test_undo_all_and_redo_all_are_byte_exact_over_a_seeded_edit_storm(make_window, demo_text, first):
    w = make_window()
    seeds = range(first, min(first + CHUNK, SEQUENCES))
    failures = [r for r in (run_sequence(w, demo_text, seed) for seed in seeds) if r]
    print(f"undo storm, seeds {seeds.start}-{seeds.stop - 1}: {len(seeds) - len(failures)} of {len(seeds)} "
          "sequences exact")
    for r in failures[:int(__import__("os").environ.get("STORM_SHOW", "0"))]:
        print(r)
    assert not failures, f"{len(failures)} of {len(seeds)} failed; first: {failures[0]}"


def _messages(w) -> list[str]:
    got: list[str] = []
    w.editor.message.connect(lambda text, refusal: got.append(text) if refusal else None)
    return got


def test_cut_of_an_inner_nic_undoes_with_its_gpu_binding(make_window, demo_text):
    w = _demo_window(make_window, demo_text)
    f, start = w.fabric, dumps(w.fabric)
    nic = f.find("node10/mlx5_0")
    w.scene.select_devices([nic], inner=True)
    w.selection.cut()
    assert f.find("node10/mlx5_0") is None and f.device("node10/gpu0").nic is None
    end = dumps(f)
    w.acts["undo"].trigger()
    assert dumps(f) == start and f.device("node10/gpu0").nic.name == "node10/mlx5_0"
    w.acts["redo"].trigger()
    assert dumps(f) == end


def test_renaming_a_gpu_undoes_to_its_derived_name(make_window, demo_text):
    w = _demo_window(make_window, demo_text)
    f, start = w.fabric, dumps(w.fabric)
    gpu = f.find("node10/gpu0")
    assert w.editor.rename(gpu, "big-gpu") and '"name": "big-gpu"' in dumps(f)
    w.editor.stack.undo()
    assert dumps(f) == start and f.names.own[gpu] is None and '"node10/gpu0"' not in dumps(f)


def test_set_guid_after_a_nic_turns_infiniband_undoes_to_guid_zero(make_window, demo_text):
    w = _demo_window(make_window, demo_text)
    f, ed = w.fabric, w.editor
    nic = f.find("enode1/mlx5_0")
    assert ed.remove([], [f.port("enode1/mlx5_0:1").cable.id])
    start = dumps(f)
    assert f.device(nic).guid == 0
    assert ed.set_port_rate(f.port_id(nic, 1), "4xNDR") and f.device(nic).is_ib
    assert ed.set_guid(nic, 0x248A070300ABCD00)
    assert ed.stack.index() == 3
    ed.stack.undo()
    ed.stack.undo()
    assert dumps(f) == start and ed.stack.index() == 1 and f.device(nic).guid == 0


def test_an_undo_that_cannot_be_done_is_refused_before_the_stack_moves(make_window, demo_text):
    w = _demo_window(make_window, demo_text)
    ed = w.editor
    f = w.fabric
    got = _messages(w)
    sw = f.find("spine01")
    assert ed.rename(sw, "core-a")
    f.rename(sw, "core-b")                  # an edit outside the undo history
    text = dumps(f)
    w.acts["undo"].trigger()
    assert dumps(f) == text and ed.stack.index() == 1 and ed.stack.count() == 1
    assert got == ["cannot undo Rename spine01 to core-a: the design changed since "
                   "(an edit outside the undo history)"]
    f.rename(sw, "core-a")                  # back to the state the command left: undo works again
    w.acts["undo"].trigger()
    assert ed.stack.index() == 0 and f.name_of(sw) == "spine01"


def test_a_bad_clipboard_is_refused_with_a_sentence_and_changes_nothing(make_window, demo_text):
    w = _demo_window(make_window, demo_text)
    ed = w.editor
    text = dumps(w.fabric)
    got = _messages(w)
    data = {"devices": [{"kind": "server", "part": "NODE-1G-NDR", "name": "x", "x": 0.0, "y": 0.0,
                         "mode": "bogus"}], "cables": []}
    assert ed.paste(data) == []
    bad_cable = {"devices": data["devices"][:1], "cables": [{"a": [0, 0, 1], "b": [5, 0, 1], "length": 1.0,
                                                              "part": "NDR-DAC"}]}
    bad_cable["devices"][0] = dict(data["devices"][0], mode=None)
    assert ed.paste(bad_cable) == []
    assert ed.paste({"devices": [{"kind": "server", "name": "y"}]}) == []
    assert dumps(w.fabric) == text and ed.stack.count() == 0 and canvas_follows(w)
    assert got == ["paste: CX7-1P: mode 'bogus': unknown link rate 'bogus' (use e.g. 4xNDR, 2xHDR, HDR100, "
                   "400GbE)",
                   "paste: cable 1: not a cable between copied devices",
                   "paste: device 1: 'x' is missing or of the wrong type"]


def _demo_window(make_window, demo_text):
    """A main window on the demo design with an empty undo history."""
    w = make_window()
    w.editor.stack.clear()
    w.editor.set_fabric(loads(demo_text))
    return w


def _click_history_row(qtbot, w, row: int) -> None:
    from PySide6 import QtCore
    view = w.undo_view
    rect = view.visualRect(view.model().index(row, 0))
    assert rect.isValid() and not rect.isEmpty(), f"history row {row} is not shown"
    qtbot.mouseClick(view.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=rect.center())


def test_a_click_in_the_history_is_checked_like_undo_and_stops_where_a_step_is_refused(
        qtbot, make_window, demo_text):
    w = _demo_window(make_window, demo_text)
    ed = w.editor
    f = w.fabric
    got = _messages(w)
    start = dumps(f)
    sw, leaf = f.find("spine01"), f.find("leaf01")
    assert ed.rename(sw, "core-a") and ed.rename(leaf, "leaf-a")
    end = dumps(f)
    assert ed.stack.index() == 2 and w.undo_view.currentIndex().row() == 2
    f.rename(sw, "core-b")                  # an edit outside the undo history: step 1 cannot undo
    outside = dumps(f)
    _click_history_row(qtbot, w, 0)         # "<opened>": two steps back
    # the first step (leaf-a) is taken whole, the second is refused before it moves
    assert ed.stack.index() == 1 and f.name_of(leaf) == "leaf01" and f.name_of(sw) == "core-b"
    assert dumps(f) == outside.replace('"leaf-a', '"leaf01')       # names and cable ends
    assert got == ["cannot undo Rename spine01 to core-a: the design changed since "
                   "(an edit outside the undo history)"]
    assert w.undo_view.currentIndex().row() == 1          # the list shows where the stack stopped
    f.rename(sw, "core-a")                  # back to what the command left: the click works now
    _click_history_row(qtbot, w, 0)
    assert ed.stack.index() == 0 and dumps(f) == start and w.undo_view.currentIndex().row() == 0
    _click_history_row(qtbot, w, 2)         # forward again: both redos, checked
    assert ed.stack.index() == 2 and dumps(f) == end and w.undo_view.currentIndex().row() == 2
    assert len(got) == 1


def test_the_undo_action_moves_the_history_selection(qtbot, make_window, demo_text):
    w = _demo_window(make_window, demo_text)
    ed = w.editor
    assert ed.rename(w.fabric.find("spine01"), "core-a")
    assert w.undo_view.currentIndex().row() == 1
    w.acts["undo"].trigger()
    assert ed.stack.index() == 0 and w.undo_view.currentIndex().row() == 0
    ed.stack.setIndex(1)                    # Python callers of setIndex go through the checks too
    assert ed.stack.index() == 1 and w.undo_view.currentIndex().row() == 1


def test_a_click_far_back_in_a_long_history_rebuilds_the_list_once_not_per_step(
        qtbot, make_window, demo_text):
    w = _demo_window(make_window, demo_text)
    ed = w.editor
    f = w.fabric
    start = dumps(f)
    sw = f.find("spine01")
    for k in range(300):
        assert ed.rename(sw, f"core{k}")
    resets = []
    w.undo_view.model().modelReset.connect(lambda: resets.append(1))
    _click_history_row(qtbot, w, 0)         # 300 checked undo steps
    assert ed.stack.index() == 0 and dumps(f) == start and w.undo_view.currentIndex().row() == 0
    assert len(resets) <= 2                 # detached for the walk: not one rebuild per step
