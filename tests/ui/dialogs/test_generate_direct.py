"""Torus and dragonfly from the generator dialog (one undo step), refused inline like the other
generators; the wrap-around cables, as the canvas draws them, have no device on them."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore

from fabricviz.generate import ring, torus
from fabricviz.generate.geometry import device_rects
from fabricviz.ui.canvas.items.cables import cable_anchors
from fabricviz.ui.dialogs.generator import GeneratorDialog

TORUS_TAB, DRAGONFLY_TAB = 3, 4


def type_into(qtbot, edit, text):
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)


def test_torus_from_the_dialog_is_one_undo_step(make_window, qtbot, monkeypatch):
    w = make_window()
    demo = w.fabric.signature()

    def run(dlg):
        dlg.tabs.setCurrentIndex(TORUS_TAB)
        type_into(qtbot, dlg.to_dims, "4x4")
        assert dlg.preview.text() == ("torus 4x4 · 16 switches · 16 hosts · 32 switch cables · "
                                      "5 ports per switch · QM9700")
        qtbot.mouseClick(dlg.ok_button, QtCore.Qt.MouseButton.LeftButton)
        return 1 if dlg.result is not None else 0

    monkeypatch.setattr(GeneratorDialog, "exec", run)
    w.acts["generate"].trigger()
    f = w.fabric
    assert f.counts() == {"server": 16, "gpu": 16, "nic": 16, "ib_switch": 16, "eth_switch": 0, "cables": 48}
    assert f.meta["generator"] == "torus" and f.find("sw-3-3") is not None
    assert w.editor.stack.count() == 1
    w.acts["undo"].trigger()
    assert w.fabric.signature() == demo


def test_dialog_refuses_inline_and_previews_a_dragonfly(qtbot):
    d = GeneratorDialog()
    qtbot.addWidget(d)
    d.tabs.setCurrentIndex(TORUS_TAB)
    type_into(qtbot, d.to_dims, "4x1")
    assert d.error.text() == "Dimensions 4x1: every dimension needs at least 2 switches"   # the field's label
    assert not d.ok_button.isEnabled() and d.preview.text() == ""
    type_into(qtbot, d.to_dims, "8")
    d.to_mesh.setChecked(True)
    assert d.preview.text().startswith("line 8 · 8 switches · 8 hosts · 7 switch cables")
    d.tabs.setCurrentIndex(DRAGONFLY_TAB)
    assert d.preview.text() == ("36 routers · 72 hosts · 54 group cables · 36 global cables (1 per group pair) · "
                                "7 ports per router · balanced · QM9700")
    d.df_global.setValue(1)
    assert d.error.text().startswith("Groups (g) 9: a group of 4 routers × 1 global link reaches at most 5 groups")
    assert not d.ok_button.isEnabled()
    d.df_global.setValue(2)
    d.df_fabric.setCurrentIndex(1)                                   # roce: the Ethernet parts listed
    assert d.df_switch.currentText() == "automatic (by port count)" and d.preview.text().endswith("SN5400")
    qtbot.mouseClick(d.ok_button, QtCore.Qt.MouseButton.LeftButton)
    assert d.result.counts()["eth_switch"] == 36 and d.result.meta["generator"] == "dragonfly"


def on_segment(f, cid, skip):
    """Top-level devices (not ``skip``) that the drawn line of cable ``cid`` runs through."""
    ax, ay, bx, by = (v[0] for v in cable_anchors(f, np.array([cid])))
    t = f.devices_t
    tops = np.flatnonzero(t.alive & (t.parent < 0))
    r = device_rects(f, tops)
    s = np.linspace(0.0, 1.0, 400)
    x, y = ax + (bx - ax) * s, ay + (by - ay) * s
    inside = ((x[None, :] > r[0, :, None] + 1) & (x[None, :] < r[2, :, None] - 1)
              & (y[None, :] > r[1, :, None] + 1) & (y[None, :] < r[3, :, None] - 1)).any(axis=1)
    return {f.name_of(int(d)) for d in tops[inside]} - skip


def end_devices(f, cid):
    """The two devices a cable joins (a NIC, not its server)."""
    ct, pt = f.cables_t, f.ports_t
    return [int(pt.device[ct.port_a[cid]]), int(pt.device[ct.port_b[cid]])]


def wrap_cables(f, dims):
    """(cable id, its two switch names, the dimension) of every wrap-around cable."""
    out = []
    for cid in f.cable_ids():
        ends = [f.name_of(d) for d in end_devices(f, int(cid))]
        if not all(e.startswith("sw-") for e in ends):
            continue
        ca, cb = ([int(v) for v in e.split("-")[1:]] for e in ends)
        for d, n in enumerate(dims):
            if {ca[d], cb[d]} == {0, n - 1} and n >= 3:
                out.append((int(cid), set(ends), d))
    return out


@pytest.mark.parametrize("dims", [(4, 4), (5, 3), (3, 3, 3)])
def test_wrap_around_cables_have_nothing_on_them(dims):
    f = torus(dims)
    wraps = wrap_cables(f, dims)
    n = int(np.prod(dims))
    assert len(wraps) == sum(n // k for k in dims)                # one per row / column / z-line
    for cid, ends, d in wraps:
        hit = on_segment(f, cid, ends)
        if d < 2:
            assert hit == set(), (ends, hit)
        else:           # the z wrap joins neighbouring planes: nothing of a third plane on it
            planes = {e.split("-")[3] for e in ends}
            assert {h.split("-")[3] for h in hit if h.startswith("sw-")} <= planes


def test_a_ring_has_nothing_on_its_switch_cables():
    f = ring(8, hosts_per_switch=2)
    chords = 0
    for cid in f.cable_ids():
        ends = {f.name_of(d) for d in end_devices(f, int(cid))}
        if all(e.startswith("sw-") for e in ends):
            chords += 1
            assert on_segment(f, int(cid), ends) == set()
    assert chords == 8
