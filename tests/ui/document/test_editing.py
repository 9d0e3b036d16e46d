"""Undo/redo of every kind of edit, copy/paste, the generator dialog, files and the close prompt."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtWidgets

from fabricviz.formats.native import load_fabric
from fabricviz.generate import fat_tree
from fabricviz.generate.layout import force_layout, tiered_layout
from fabricviz.model.guid import format_guid


def _internal_cables(f, ids):
    top = lambda d: int(f.devices_t.parent[d]) if f.devices_t.parent[d] >= 0 else d  # noqa: E731
    out = []
    for c in f.cables():
        a, b = top(c.port_a.device.id), top(c.port_b.device.id)
        if a in ids and b in ids:
            out.append(c)
    return out


def test_undo_and_redo_each_kind_of_edit_give_back_identical_models(make_window):
    w = make_window()
    f, ed = w.fabric, w.editor
    states = [f.signature()]

    def step(ok):
        assert ok
        states.append(w.fabric.signature())

    step(ed.add_part("QM9700", 500.0, -600.0) is not None)                     # add device
    step(ed.add_part("DGX-H100", 900.0, 200.0) is not None)                    # add server (+16 children)
    sw = f.find("ibsw1")
    step(ed.add_cable(f.port_id(f"{f.name_of(sw)}:1"), f.port_id("spine01:8"), 20.0) is not None)
    step(ed.remove([f.find("leaf01")], []))                                    # device + its 8 cables
    step(ed.remove([], [f.port("leaf02:5").cable.id]))                         # one cable
    step(ed.move([f.find("spine02"), f.find("node05")], 33.0, -7.0))           # move
    step(ed.rename(f.find("spine03"), "spine-x"))                              # rename
    step(ed.set_guid(f.find("spine04"), 0x248A0703001234A0))                   # GUID
    c = f.port("leaf03:5").cable.id
    step(ed.set_cable(c, length_m=4.0, ctype="dac"))                           # cable type and length
    step(ed.set_port_state(f.port_id("leaf03:6"), "disabled"))                 # port state
    step(len(ed.duplicate([f.find("leaf04"), f.find("node13")])) == 2)         # duplicate with cable
    ids, xs, ys = tiered_layout(f)
    step(ed.set_positions("Tiered layout", ids, xs, ys))                        # layout
    step(w.apply_generated(fat_tree(2, 8, 8)))                                 # generate (replaces)
    g = w.fabric
    step(ed.remove([g.find("leaf01")], []))                                    # edit after generate
    assert len(states) == 15 and len({repr(s) for s in states}) == 15
    stack = ed.stack
    assert stack.count() == 14
    for i in range(14, 0, -1):
        stack.undo()
        assert w.fabric.signature() == states[i - 1], stack.text(i - 1)
    assert w.fabric is f and not w.isWindowModified()
    for i in range(1, 15):
        stack.redo()
        assert w.fabric.signature() == states[i], stack.text(i - 1)
    # the canvas followed: one item per live device, one segment per cable
    w.scene.flush()
    assert set(w.scene.items_by_id) == set(w.fabric.device_ids().tolist())
    assert sum(w.scene.cables.counts().values()) == w.fabric.counts()["cables"]
    assert w.undo_view.stack() is stack and stack.text(12) == "Generate fat-tree-2l-r8-8h (16 cables)"


def test_delete_action_removes_device_and_cables_in_one_step_with_same_ids(make_window):
    w = make_window()
    f = w.fabric
    sig, cables = f.signature(), set(f.cable_ids().tolist())
    w.scene.select_devices([f.find("leaf01"), f.find("node01")])
    w.acts["delete"].trigger()
    assert f.find("leaf01") is None and f.find("node01/gpu0") is None
    assert f.counts()["cables"] == 32 - 8
    assert w.editor.stack.count() == 1
    w.acts["undo"].trigger()
    assert f.signature() == sig and set(f.cable_ids().tolist()) == cables
    w.scene.flush()
    assert sum(w.scene.cables.counts().values()) == 32


def test_copy_paste_keeps_the_cables_between_copied_devices(make_window):
    w = make_window()
    f = w.fabric
    picked = [f.find(n) for n in ("leaf01", "spine01", "spine02", "node01", "node02", "node09")]
    inside = _internal_cables(f, set(picked))
    assert len(inside) == 4          # leaf01 to two spines and two of its hosts; node09 is on leaf03
    before = f.counts()
    w.scene.select_devices(picked)
    w.acts["copy"].trigger()
    w.acts["paste"].trigger()
    new = w.scene.selected_device_ids()
    assert len(new) == 6 and not set(new) & set(picked)
    after = f.counts()
    assert after["cables"] - before["cables"] == 4
    assert after["server"] - before["server"] == 3 and after["gpu"] - before["gpu"] == 3
    copied = _internal_cables(f, set(new))
    assert sorted((c.port_a.name.split(":")[1], c.port_b.name.split(":")[1], c.type, c.length_m)
                  for c in copied) == \
        sorted((c.port_a.name.split(":")[1], c.port_b.name.split(":")[1], c.type, c.length_m) for c in inside)
    assert {f.name_of(d) for d in new} == {"leaf01-2", "spine01-2", "spine02-2", "node01-2", "node02-2",
                                          "node09-2"}
    assert f.device("leaf01-2").x == f.device("leaf01").x + 40
    assert w.editor.stack.count() == 1
    w.acts["undo"].trigger()
    assert f.counts() == before
    w.acts["redo"].trigger()
    assert f.counts() == after and sorted(f.find(f.name_of(d)) for d in new) == sorted(new)


def test_generator_dialog_previews_refuses_inline_and_builds_one_step(make_window, qtbot, monkeypatch):
    from fabricviz.ui.dialogs.generator import GeneratorDialog
    w = make_window()
    demo = w.fabric.signature()
    dlg = GeneratorDialog(w)
    qtbot.addWidget(dlg)
    dlg.ft_levels.setValue(3)
    dlg.ft_radix.setValue(8)
    assert dlg.preview.text() == ("128 hosts · 32 leaves · 32 aggregation · 16 cores · 8 pods · "
                                  "80 switches · 384 cables · blocking 1:1 (max 128 hosts)")
    assert dlg.ok_button.isEnabled()
    dlg.ft_hosts.setValue(200)
    assert dlg.error.text() == ("200 hosts exceed the 128 that a 3-level fat tree of radix-8 switches "
                                "at 4:4 (8 pods × 4 leaves × 4 host ports) allows")
    assert not dlg.ok_button.isEnabled() and dlg.preview.text() == ""
    dlg.ft_hosts.setValue(0)
    dlg.tabs.setCurrentIndex(1)
    dlg.ls_spines.setValue(4)
    dlg.ls_uplinks.setValue(6)
    assert "multiple of 4" in dlg.error.text() and not dlg.ok_button.isEnabled()
    dlg.tabs.setCurrentIndex(0)
    monkeypatch.setattr(GeneratorDialog, "exec", lambda self: (self.ft_levels.setValue(3),
                                                               self.ft_radix.setValue(8), self.accept(),
                                                               self.result is not None)[-1] and 1)
    w.acts["generate"].trigger()
    assert w.fabric.counts() == {"server": 128, "gpu": 128, "nic": 128, "ib_switch": 80,
                                 "eth_switch": 0, "cables": 384}
    assert w.editor.stack.count() == 1
    assert w.count_label.text() == "128 servers · 128 GPUs · 128 NICs · 80 switches · 384 cables"
    w.acts["undo"].trigger()
    assert w.fabric.signature() == demo
    assert len(w.scene.items_by_id) == 56


def test_save_then_reopen_gives_the_same_design_and_title_tracks_changes(make_window, tmp_path, monkeypatch):
    w = make_window()
    w.editor.move([w.fabric.find("spine01")], 10, 0)
    assert w.isWindowModified() and w.windowTitle() == "demo-fat-tree.json[*] \u2014 fabricviz"
    path = tmp_path / "mine.json"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(tmp_path / "mine"), "")))
    assert w.acts["save"].trigger() is None and w.document.path == path     # demo is untitled: Save asks where
    assert not w.isWindowModified() and w.windowTitle() == "mine.json[*] \u2014 fabricviz"
    assert w.files.recent_files() == [str(path.resolve())]
    w2 = make_window(str(path))
    assert w2.fabric.signature() == w.fabric.signature() == load_fabric(path).signature()
    assert [a.text() for a in w2.recent_menu.actions()] == ["mine.json"]
    # Ctrl+S on a named file writes it without asking
    w.editor.rename(w.fabric.find("leaf01"), "leafX")
    w.files.save()
    assert load_fabric(path).find("leafX") is not None


def test_closing_with_unsaved_changes_asks_and_cancel_keeps_the_window(make_window, monkeypatch):
    w = make_window()
    asked = []
    answer = [QtWidgets.QMessageBox.StandardButton.Cancel]

    def warning(parent, title, text, buttons, default):
        asked.append(text)
        return answer[0]
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning", staticmethod(warning))
    assert w.close() is True and asked == []          # nothing changed: no question
    w.show()
    w.editor.add_part("QM9700", 0, 0)
    assert w.close() is False and w.isVisible()
    assert asked == ["demo-fat-tree.json has unsaved changes. Save them?"]
    answer[0] = QtWidgets.QMessageBox.StandardButton.Discard
    assert w.close() is True and len(asked) == 2


def test_layouts_are_undoable_and_place_tiers(make_window):
    w = make_window()
    f = w.fabric
    sig = f.signature()
    w.acts["layout_force"].trigger()
    assert w.editor.stack.count() == 1 and f.signature() != sig
    w.acts["layout_auto"].trigger()
    t = f.devices_t
    leaf_y = {float(t.y[f.find(f"leaf0{i}")]) for i in range(1, 5)}
    spine_y = {float(t.y[f.find(f"spine0{i}")]) for i in range(1, 5)}
    assert len(leaf_y) == len(spine_y) == 1 and min(spine_y) < min(leaf_y)
    assert (t.y[f.device_ids("server")] > min(leaf_y)).all()
    # a server's GPU keeps its place inside the server
    s, g = f.device("node03"), f.device("node03/gpu0")
    assert (g.x - s.x, g.y - s.y) == (0.0, 20.0)
    w.acts["undo"].trigger()
    w.acts["undo"].trigger()
    assert f.signature() == sig


def test_force_layout_is_deterministic_and_keeps_children_offsets():
    f = fat_tree(2, 8, 16)
    ids, xs, ys = force_layout(f, seed=3)
    ids2, xs2, ys2 = force_layout(f, seed=3)
    assert np.array_equal(ids, ids2) and np.array_equal(xs, xs2) and np.array_equal(ys, ys2)
    assert sorted(ids.tolist()) == f.device_ids().tolist()
    pos = {int(d): (x, y) for d, x, y in zip(ids, xs, ys, strict=True)}
    nic = f.device("node01/mlx5_0")
    assert pos[nic.id][1] - pos[nic.parent.id][1] == nic.y - nic.parent.y == -20.0


def test_guid_edit_in_inspector_is_refused_when_not_hex(make_window):
    w = make_window()
    f = w.fabric
    sp = f.find("spine01")
    w.scene.select_devices([sp])
    w.inspector.refresh()
    old = f.device(sp).guid
    assert w.inspector.guid.text() == format_guid(old)
    w.inspector.guid.setText("zz")
    w.inspector.guid.editingFinished.emit()
    assert f.device(sp).guid == old and w.view.message.text() == "GUID 'zz': not a hexadecimal number"
    w.inspector.guid.setText("0x248a0703001234a0")
    w.inspector.guid.editingFinished.emit()
    assert f.device(sp).guid == 0x248A0703001234A0 and w.editor.stack.count() == 1


def test_cable_click_selects_it_and_the_inspector_edits_it(make_window, qtbot):
    w = make_window()
    w.view.fit_all()
    f = w.fabric
    c = f.port("leaf01:5").cable
    mid = w.scene.cables.point_on(c.id)          # on its route through the gutters
    qtbot.mouseClick(w.view.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=w.view.mapFromScene(mid))
    assert w.scene.selected_cables == {c.id}
    w.inspector.refresh()
    assert w.inspector.title.text() == f"<b>Cable</b> {c.port_a.name} ↔ {c.port_b.name}"
    w.inspector.length.setValue(60.0)
    w.inspector.length.editingFinished.emit()
    # 60 m is beyond the multimode NDR optics' 50 m: the catalog picks single-mode optics
    assert (c.length_m, c.part_id) == (60.0, "NDR-DR4")
    w.acts["undo"].trigger()
    assert c.length_m == 15.0
