"""The Port Counters dock, View ▸ Colour by and the canvas colours on real ibsim perfquery /
ibqueryerrors output (tests/data/counters), in a real main window."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtWidgets

from fabricviz.check.counters import Metric
from fabricviz.ui.canvas.overlays.counters import PALETTE, levels

DATA = Path(__file__).resolve().parents[2] / "data"
CNT = DATA / "counters"


@pytest.fixture
def window(make_window, tmp_path):
    design = tmp_path / "ibsim.net"
    shutil.copy(DATA / "samples" / "ibsim_net.2sw2path4hca.net", design)
    return make_window(str(design))


def menu_actions(menu):
    return {a.objectName(): a for a in menu.actions()}


def test_load_from_file_menu_lists_the_worst_links(window, monkeypatch):
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileNames",
                        staticmethod(lambda *a, **k: ([str(CNT / "perfquery_t0.txt")], "")))
    window.acts["load_counters"].trigger()
    dock = window.counters_dock
    assert dock.isVisible()
    shown = window.document.session.counters
    assert shown.metric is Metric.ERRORS and shown.report is not None
    rows = [dock.table.topLevelItem(i) for i in range(dock.table.topLevelItemCount())]
    assert [r.text(1).split(":")[0] for r in rows] == ["Switch1 port 3 — Switch2 port 3", "Switch2 port 1 — Hca2 port 1",
                                                       "Switch1 port 5 — Switch2 port 5"]
    assert [r.text(2) for r in rows] == ["disagree"] * 3
    assert "Switch2 → Switch1 direction" in rows[0].toolTip(2)
    assert dock.status.text() == ("perfquery_t0.txt: 20 ports counted, 6 links; 3 with errors (counts); "
                                  "ends disagree on 3")


def test_click_selects_the_cable(window):
    dock = window.counters_dock
    assert dock.open_files([str(CNT / "ibqueryerrors_t0.txt")])
    item = dock.table.topLevelItem(1)
    dock.table.itemClicked.emit(item, 1)
    f = window.fabric
    (cable,) = window.scene.selected_cables
    ends = {f.name_of(int(f.ports_t.device[f.cables_t.port_a[cable]])),
            f.name_of(int(f.ports_t.device[f.cables_t.port_b[cable]]))}
    assert ends == {"Switch2", "Hca2"}


def test_colour_by_menu_and_canvas(window):
    window.counters_dock.open_files([str(CNT / "perfquery_t0.txt")])
    colours = window.counter_colours
    # errors: 3 clean counted cables (green), then 4, 91 and 1,241 errors on a log scale to the worst
    assert sorted(colours.items) == [0, 1, 3, 4]
    assert colours.items[4].pen().color().name() == PALETTE[4]
    acts = menu_actions(window.colour_by_menu)
    assert acts["action_colour_by_errors"].isChecked()
    acts["action_colour_by_xmit_wait"].trigger()
    assert window.document.session.counters.metric is Metric.XMIT_WAIT
    assert window.counters_dock.colour_box.currentText() == "XmitWait"
    assert sorted(colours.items) == [0, 3, 4]        # 5,000 and 123,456 ticks; four cables wait none
    assert window.counters_dock.table.topLevelItemCount() == 2
    acts["action_colour_by_none"].trigger()
    assert colours.items == {} and window.counters_dock.table.topLevelItemCount() == 3   # ranked by errors


def test_levels():
    assert levels(np.array([0.0, 4, 91, 1241])).tolist() == [0, 1, 3, 4]
    assert levels(np.zeros(3)).tolist() == [0, 0, 0]


def test_earlier_snapshot_rates(window):
    dock = window.counters_dock
    dock.open_files([str(CNT / "perfquery_t1.txt")])
    dock.interval_box.setValue(60.0)
    assert dock.open_earlier([str(CNT / "perfquery_t0.txt")])
    rows = [dock.table.topLevelItem(i).text(1) for i in range(dock.table.topLevelItemCount())]
    assert rows[0] == ("Switch2 port 2 — Hca4 port 1: SymbolErrorCounter 1,092/s at Switch2 port 2 (saturated); "
                       "ends disagree: one-sided errors")
    assert len(rows) == 3
    assert dock.status.text().startswith("perfquery_t1.txt since perfquery_t0.txt: 20 ports counted, 6 links; 3 with "
                                         "errors (increase per second over 60.0 s)")


def test_refused_file_changes_nothing(window, tmp_path, monkeypatch):
    dock = window.counters_dock
    dock.open_files([str(CNT / "perfquery_t0.txt")])
    before = window.document.session.counters.report
    bad = tmp_path / "bad.txt"
    bad.write_text("# Port counters: Lid 1 port 3\nSymbolErrorCounter:...x\n")
    said = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "critical", staticmethod(lambda _p, _t, text: said.append(text)))
    assert not dock.open_files([str(bad)])
    assert said == [f"{bad}:2: SymbolErrorCounter: 'x' is not a counter value (0..2^64-1)"]
    assert window.document.session.counters.report is before


def test_design_edit_recomputes_and_new_design_clears(window, qtbot):
    dock = window.counters_dock
    dock.open_files([str(CNT / "perfquery_t0.txt")])
    f = window.fabric
    worst = window.document.session.counters.report.worst()[0]
    assert window.editor.remove([], [worst.cable])          # an undoable edit: the cable is gone
    qtbot.waitUntil(lambda: window.document.session.counters.report.n_cables == int(f.cables_t.n)
                    and worst.cable not in {lk.cable for lk in window.document.session.counters.report.links})
    assert dock.table.topLevelItemCount() == 2
    window.acts["new"].trigger()
    assert window.document.session.counters.report is None and dock.table.topLevelItemCount() == 0
    assert window.counter_colours.items == {}


def test_clicked_link_gets_a_halo(window):
    dock = window.counters_dock
    dock.open_files([str(CNT / "perfquery_t0.txt")])
    dock.table.itemClicked.emit(dock.table.topLevelItem(0), 1)
    halo = window.counter_colours.halo
    assert halo is not None and not halo.path().isEmpty()
    assert halo.zValue() < min(i.zValue() for i in window.counter_colours.items.values())


def test_exported_picture_has_the_counters_legend(window, tmp_path, monkeypatch):
    from fabricviz.ui.canvas import export
    window.counters_dock.open_files([str(CNT / "perfquery_t0.txt")])
    seen = {}

    def fake_render(scene, fabric, path, options, extra_rows=(), **kw):
        seen["rows"] = [(text, colour.name()) for text, colour, _kind in extra_rows]
        return path
    monkeypatch.setattr(export, "render_scene", fake_render)
    window.export_view(str(tmp_path / "x.png"))
    assert seen["rows"] == [("port counters, errors: counted, none", PALETTE[0]),
                            ("port counters, errors: low", PALETTE[1]),
                            ("port counters, errors: high", PALETTE[3]),
                            ("port counters, errors: worst", PALETTE[4])]
