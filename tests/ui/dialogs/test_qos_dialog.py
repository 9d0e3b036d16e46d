"""Design ▸ QoS Settings: the design's OpenSM QoS options edited as one undo step, checked with the
opensm.conf reader's rules; a refused field changes nothing."""

from __future__ import annotations

from PySide6 import QtWidgets

from fabricviz.formats.native import fabric_to_dict
from fabricviz.formats.opensm_conf import loads
from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib.qos_meta import design_qos
from fabricviz.ib.sweep import heavy_sweep


def _window(make_window):
    w = make_window()
    w.apply_generated(k_ary_fat_tree(4))
    QtWidgets.QApplication.processEvents()
    return w


def test_ok_stores_the_options_one_undo_step_and_the_sweep_programs_them(make_window):
    w = _window(make_window)
    f = w.editor.fabric
    before, steps = fabric_to_dict(f), w.editor.stack.count()
    dlg = w.qos_settings()
    assert not dlg.enabled.isChecked() and dlg.sl2vl.text() == "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7"  # OpenSM's defaults
    dlg.enabled.setChecked(True)
    dlg.max_vls.setCurrentIndex(dlg.max_vls.findData(3))             # 4 data VLs
    dlg.sl2vl.setText("0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3")
    dlg.low.setText("0:32,1:16,2:8,3:4")
    dlg.accept()
    assert w.editor.stack.count() == steps + 1
    assert w.editor.stack.undoText() == "QoS settings: on, 4 data VLs"
    opts = design_qos(f.meta)
    want = loads("qos TRUE\nmax_op_vls 3\nqos_sl2vl 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3\n"
                 "qos_vlarb_high 0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0\n"
                 "qos_vlarb_low 0:32,1:16,2:8,3:4\nqos_high_limit 0\n", "o")
    assert opts == want
    assert len([e for e in heavy_sweep(f).events if e.kind == "qos_tables"]) == 36     # 20 switches + 16 CAs
    w.editor.stack.undo()
    assert fabric_to_dict(f) == before


def test_a_bad_field_is_refused_with_its_name_and_changes_nothing(make_window, tmp_path):
    w = _window(make_window)
    f = w.editor.fabric
    before, steps = fabric_to_dict(f), w.editor.stack.count()
    dlg = w.qos_settings()
    dlg.enabled.setChecked(True)
    dlg.sl2vl.setText("0,1,2")
    dlg.accept()
    assert dlg.isVisible() and dlg.problem.text() == "SL → VL: 3 VLs listed, need 16 (one per SL)"
    assert fabric_to_dict(f) == before and w.editor.stack.count() == steps
    # an opensm.conf fills the fields (its per-port-type sets kept); a broken one says why
    conf = tmp_path / "opensm.conf"
    conf.write_text("qos TRUE\nqos_ca_sl2vl 0,0,1,1,2,2,3,3,0,0,1,1,2,2,3,3\nqos_sl2vl 7,6,5,4,3,2,1,0,7,6,5,4,3,2,1,0\n")
    assert dlg.import_conf(str(conf))
    assert dlg.sl2vl.text() == "7,6,5,4,3,2,1,0,7,6,5,4,3,2,1,0" and dlg.enabled.isChecked()
    dlg.accept()
    got, want = design_qos(f.meta), loads(conf.read_text(), "o")
    # fields shown with OpenSM's defaults are stored explicitly: the same tables get programmed
    assert (got.qos, got.max_op_vls) == (want.qos, want.max_op_vls)
    assert all(got.resolved(t) == want.resolved(t) for t in ("ca", "sw0", "swe", "rtr"))
    assert got.resolved("ca").sl2vl == (0, 0, 1, 1, 2, 2, 3, 3, 0, 0, 1, 1, 2, 2, 3, 3)   # qos_ca_* kept
    bad = tmp_path / "bad.conf"
    bad.write_text("qos TRUE\nqos_sl2vl 0,1\n")
    assert not dlg.import_conf(str(bad)) and dlg.problem.text().startswith(f"{bad}:2")
