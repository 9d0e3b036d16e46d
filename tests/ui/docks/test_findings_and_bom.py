"""Findings and Bill-of-materials docks, standalone around a Fabric and wired into the window.

Expected figures: lint findings are compared with ``lint()`` itself and with the
exact spof-leaf finding of tests/check/test_lint.py; BOM counts and prices are
the hand-computed k=8 figures of tests/check/test_bom.py (QM9700-R8 × 80: hypothetical, so
unpriced and out of the totals; NDR-SR4 $1,500 per link = 512 optics at $750; total $6,828,800).
"""

from __future__ import annotations

import csv
import io
import threading

import pytest
from PySide6 import QtCore, QtWidgets

import fabricviz.check.lint as lint_mod
import fabricviz.ui.docks.findings as findings_mod
from fabricviz.check.bom import bill_of_materials
from fabricviz.check.lint import lint
from fabricviz.generate.fattree import k_ary_fat_tree
from fabricviz.generate.leafspine import leaf_spine
from fabricviz.ui.docks.bom import COLUMNS as BOM_COLUMNS
from fabricviz.ui.docks.bom import BomDock
from fabricviz.ui.docks.findings import COLUMNS, FindingsDock
from fabricviz.ui.document.document import Document

WAIT = 60_000                # a generous deadline: only a hang waits this long


def spof_leaf_fabric():
    """IB leaf-spine, 2 leaves × 2 spines, leaf01's link to spine02 removed: spof-leaf error."""
    f = leaf_spine(2, 2, 4, fabric="ib")
    f.remove_cables([f.port("leaf01:6").cable.id])
    return f


def table_rows(view, columns):
    m = view.model()
    return [tuple(m.index(r, c).data() for c in range(len(columns))) for r in range(m.rowCount())]


def click_row(qtbot, view, row):
    idx = view.model().index(row, 2)
    view.scrollTo(idx)
    qtbot.mouseClick(view.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=view.visualRect(idx).center())


def run_checks(qtbot, dock):
    with qtbot.waitSignal(dock.finished, timeout=WAIT):
        qtbot.mouseClick(dock.run_button, QtCore.Qt.MouseButton.LeftButton)


@pytest.fixture
def findings(qtbot):
    def make(fabric):
        dock = FindingsDock(Document(fabric() if callable(fabric) else fabric))
        qtbot.addWidget(dock)
        dock.resize(900, 400)
        dock.show()
        qtbot.waitExposed(dock)
        return dock
    yield make


# --------------------------------------------------------------------------- findings


def test_run_checks_shows_lints_findings_and_a_click_selects_them(qtbot, findings):
    f = spof_leaf_fabric()
    dock = findings(f)
    assert dock.model.rowCount() == 0 and dock.stale
    run_checks(qtbot, dock)
    expected = lint(f).findings
    assert table_rows(dock.table, COLUMNS) == [(x.severity, x.rule, x.where, x.message) for x in expected]
    assert [r[:2] for r in table_rows(dock.table, COLUMNS)] == [
        ("error", "spof-leaf"), ("warning", "oversubscription"), ("warning", "ftree-refused"),
        ("info", "spof-host")]
    assert dock.status.text().startswith("1 error(s), 2 warning(s), 1 info")
    assert not dock.stale and dock.run_button.isEnabled()

    leaf, link = f.find("leaf01"), f.port("leaf01:5").cable.id
    assert dock.model.rows[0].finding.message == ("one link to the rest of the fabric (leaf01:5 – spine01:1): "
                                                  "losing it cuts off the leaf's hosts")
    with qtbot.waitSignal(dock.select_objects, timeout=WAIT) as sig:
        click_row(qtbot, dock.table, 0)
    assert sig.args == [[leaf], [link]]
    # ftree-refused names both leaves and no cable
    with qtbot.waitSignal(dock.select_objects, timeout=WAIT) as sig:
        click_row(qtbot, dock.table, 2)
    assert sig.args == [[leaf, f.find("leaf02")], []]


def test_a_port_finding_selects_the_ports_device(qtbot, findings):
    f = leaf_spine(2, 2, 4, fabric="ib")
    f.remove_cables([f.port("node01/mlx5_0:1").cable.id])
    dock = findings(f)
    run_checks(qtbot, dock)
    (row,) = [i for i, r in enumerate(dock.rows()) if r.finding.rule == "nic-unconnected"]
    assert dock.rows()[row].finding.ports == (f.port_id("node01/mlx5_0:1"),)
    with qtbot.waitSignal(dock.select_objects, timeout=WAIT) as sig:
        click_row(qtbot, dock.table, row)
    assert sig.args == [[f.find("node01/mlx5_0")], []]


def test_severity_filter_and_stale_marker(qtbot, findings):
    f = spof_leaf_fabric()
    dock = findings(f)
    run_checks(qtbot, dock)
    dock.filter_box.setCurrentIndex(2)           # errors only
    assert [r.finding.rule for r in dock.rows()] == ["spof-leaf"]
    dock.filter_box.setCurrentIndex(1)
    assert [r.finding.severity for r in dock.rows()] == ["error", "warning", "warning"]
    f.move([f.find("leaf02")], 10.0, 0.0)        # any model change makes the rows stale
    assert dock.stale and dock.status.text().endswith("the design changed since: run again")


def test_checks_run_off_the_gui_thread_and_a_mid_run_edit_reruns(qtbot, findings, monkeypatch):
    f = spof_leaf_fabric()
    gate, threads = threading.Event(), []

    def slow_lint(fabric, full=False, routes=()):
        threads.append(threading.current_thread())
        if len(threads) == 1:
            assert gate.wait(WAIT / 1000)
        return lint(fabric, full=full, routes=routes)

    monkeypatch.setattr(findings_mod, "lint", slow_lint)
    dock = findings(f)
    qtbot.mouseClick(dock.run_button, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(threads) == 1, timeout=WAIT)
    assert dock.running and not dock.run_button.isEnabled()
    assert threads[0] is not threading.main_thread()
    qtbot.wait(50)                                # the GUI thread keeps running events meanwhile
    # the design changes while the first run is blocked: its result must be discarded
    f.add_cable("leaf01:6", "spine02:1", 15.0)
    with qtbot.waitSignal(dock.finished, timeout=WAIT):
        gate.set()
    assert len(threads) == 2
    assert [r.finding.rule for r in dock.rows()] == [x.rule for x in lint(f).findings] == ["spof-host"]
    assert not dock.stale


def test_routing_rules_follow_lints_size_limit(qtbot, findings, monkeypatch):
    monkeypatch.setattr(lint_mod, "ROUTE_LIMIT", 10)
    f = spof_leaf_fabric()
    dock = findings(f)
    run_checks(qtbot, dock)
    rules = [r.finding.rule for r in dock.rows()]
    assert "routing-skipped" in rules and "ftree-refused" not in rules
    assert dock.skipped == ["ftree-refused", "credit-loop", "ib-unreachable"]
    assert "skipped: ftree-refused, credit-loop, ib-unreachable" in dock.status.text()
    dock.full_box.setChecked(True)
    run_checks(qtbot, dock)
    rules = [r.finding.rule for r in dock.rows()]
    assert "routing-skipped" not in rules and "ftree-refused" in rules and dock.skipped == []


# --------------------------------------------------------------------------- bill of materials


@pytest.fixture
def k8_bom_dock(qtbot):
    f = k_ary_fat_tree(8)
    dock = BomDock(Document(f))
    qtbot.addWidget(dock)
    dock.resize(1100, 500)
    dock.show()
    qtbot.waitExposed(dock)
    return f, dock


def col(name):
    return BOM_COLUMNS.index(name)


def find_row(view, category, part):
    m = view.model()
    for r in range(m.rowCount()):
        if (m.index(r, col("category")).data(), m.index(r, col("part")).data()) == (category, part):
            return r
    raise AssertionError(f"no {category} {part} row")


def edit_price(qtbot, view, row, value):
    idx = view.model().index(row, col("unit price"))
    view.setCurrentIndex(idx)
    view.edit(idx)
    (box,) = [b for b in view.findChildren(QtWidgets.QDoubleSpinBox, "price_editor") if b.isVisible()]
    box.selectAll()
    qtbot.keyClicks(box, str(value))
    qtbot.keyClick(box, QtCore.Qt.Key.Key_Return)


def test_k8_counts_in_the_table(k8_bom_dock):
    f, dock = k8_bom_dock
    got = [r[:4] + r[7:] for r in table_rows(dock.table, BOM_COLUMNS)]
    assert [(c, p, n, e) for c, p, _, n, e in got] == [
        ("server", "NODE-1G-NDR", "128", "est."), ("gpu", "H100-SXM5", "128", ""), ("nic", "CX7-1P", "128", ""),
        ("switch", "QM9700-R8", "80", "hypothetical"), ("cable", "NDR-DAC", "128", "est."),
        ("transceiver", "NDR-SR4", "512", "est."), ("fibre", "NDR-SR4", "128", ""), ("fibre", "NDR-SR4", "128", "")]
    r = find_row(dock.table, "switch", "QM9700-R8")
    m = dock.table.model()
    assert (m.index(r, col("unit price")).data(), m.index(r, col("total")).data()) == (
        "hypothetical — set a price", "—")
    assert m.index(r, col("name")).data() == "hypothetical 8-port model of the QM9700 (Quantum-2)"
    assert "total $6,828,800" in dock.footer.text()
    assert "80 unpriced item(s) not in the total (hypothetical — set a price)" in dock.footer.text()
    assert "per host port (128): $53,350" in dock.footer.text()
    # priced elsewhere: not editable
    ed = QtCore.Qt.ItemFlag.ItemIsEditable
    assert not m.index(find_row(dock.table, "gpu", "H100-SXM5"), col("unit price")).flags() & ed
    assert not m.index(find_row(dock.table, "fibre", "NDR-SR4"), col("unit price")).flags() & ed
    assert m.index(r, col("unit price")).flags() & ed


def test_editing_a_unit_price_reprices_the_part_and_the_export_matches_the_engine(
        qtbot, k8_bom_dock, tmp_path, monkeypatch):
    f, dock = k8_bom_dock
    before = dock.bom.total_price
    r = find_row(dock.table, "switch", "QM9700-R8")
    count = int(dock.table.model().index(r, col("count")).data())
    with qtbot.waitSignal(dock.changed, timeout=WAIT):
        edit_price(qtbot, dock.table, r, 28500)
    # the hypothetical switches were out of the total: now 80 × $28,500 are in it
    assert dock.bom.total_price - before == count * 28500 == 2_280_000
    assert dock.overrides == {"QM9700-R8": {"price_usd": 28500.0}}
    m = dock.table.model()
    assert (m.index(r, col("unit price")).data(), m.index(r, col("total")).data()) == ("$28,500", "$2,280,000")
    assert m.index(r, col("estimate")).data() == ""              # a quoted price is no estimate
    assert "total $9,108,800" in dock.footer.text() and "unpriced" not in dock.footer.text()

    # an optic is half a link: $600 per transceiver sets the link price to $1,200
    t = find_row(dock.table, "transceiver", "NDR-SR4")
    with qtbot.waitSignal(dock.changed, timeout=WAIT):
        edit_price(qtbot, dock.table, t, 600)
    assert dock.overrides["NDR-SR4"] == {"price_usd": 1200.0}
    assert dock.bom.total_price == 9_108_800 + 512 * (600 - 750) == 9_032_000

    out = tmp_path / "k8-bom.csv"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), "")))
    qtbot.mouseClick(dock.export_button, QtCore.Qt.MouseButton.LeftButton)
    engine = bill_of_materials(f, {"QM9700-R8": {"price_usd": 28500}, "NDR-SR4": {"price_usd": 1200}}).to_csv()
    assert out.read_text(encoding="utf-8") == engine
    rows = list(csv.DictReader(io.StringIO(engine)))
    assert [(x["part"], x["unit_price_usd"], x["total_usd"]) for x in rows if x["category"] == "switch"] == [
        ("QM9700-R8", "28500", "2280000")]
    assert not list(tmp_path.glob("*.csv.*"))                    # the atomic save left no temp file

    with qtbot.waitSignal(dock.changed, timeout=WAIT):
        qtbot.mouseClick(dock.reset_button, QtCore.Qt.MouseButton.LeftButton)
    assert dock.overrides == {} and dock.bom.total_price == before


def test_bom_follows_the_design_and_refuses_bad_prices(qtbot, k8_bom_dock, tmp_path):
    from fabricviz.model import FabricError
    f, dock = k8_bom_dock
    with pytest.raises(FabricError, match="price of QM9700-R8: must be between 0"):
        dock.set_price("QM9700-R8", -1.0)
    assert dock.overrides == {}
    f.remove_devices([f.find(name) for name in ("node001", "node002")])
    with qtbot.waitSignal(dock.changed, timeout=WAIT):
        dock.schedule()
    m = dock.table.model()
    assert m.index(find_row(dock.table, "server", "NODE-1G-NDR"), col("count")).data() == "126"
    with pytest.raises(FabricError, match="bom.csv: cannot save: No such file or directory"):
        dock.export_csv(str(tmp_path / "no-such-folder" / "bom.csv"))


# --------------------------------------------------------------------------- wired into the main window


def test_the_window_has_both_docks_and_a_click_selects_on_the_canvas(qtbot, make_window):
    from fabricviz.ui.docks import bom as bom_view
    from fabricviz.ui.docks import findings as fnd
    w = make_window()
    fd, bd = w.findings_dock, w.bom_dock
    assert isinstance(bd, bom_view.BomDock)
    assert w.findChild(QtWidgets.QDockWidget, "findings") is fd is w.findings_dock
    assert w.findChild(QtWidgets.QDockWidget, "bom") is bd is w.bom_dock
    names = [a.objectName() for a in w.acts.menu("view").actions()]
    assert "action_findings" in names and "action_bom" in names
    f = w.editor.fabric
    switch = int(f.device_ids("ib_switch")[0]) if len(f.device_ids("ib_switch")) else int(f.device_ids("eth_switch")[0])
    nic = int(f.device_ids("nic")[0])
    server = int(f.devices_t.parent[nic])
    cable = int(f.cable_ids()[0])
    fd.select_objects.emit([switch, nic], [cable])
    assert w.scene.selected_device_ids() == sorted([switch, nic])      # the NIC itself, not its server
    assert server not in w.scene.selected_device_ids()
    assert w.scene.selected_cables == {cable}
    run_checks(qtbot, fd)
    assert fd.rows() == [fnd.selection_of(f, x) for x in lint(f).findings]
    bd.show()
    qtbot.waitUntil(lambda: bd.bom is not None and not bd._dirty, timeout=WAIT)
    assert bd.bom.to_csv() == bill_of_materials(f).to_csv()


def test_the_bom_strip_shows_a_superpods_lines_whole(qtbot, make_window):
    """A DGX H100 4-SU SuperPOD's BOM in the bottom strip at its first height (1920×1080): compact
    rows and the totals beside the buttons leave room for most of its 11 lines (the style's 30 px
    rows under three lines of totals showed 3, now 6), and part ids are not cut ("UFM-APPLIAN…")."""
    from fabricviz.generate.superpod import superpod
    from fabricviz.ui import layout
    w = make_window()
    w.resize(1920, 1080)
    w.editor.set_fabric(superpod("dgx-h100", 4))
    QtWidgets.QApplication.processEvents()
    layout.reveal(w, w.bom_dock)
    QtWidgets.QApplication.processEvents()
    dock = w.bom_dock
    table = dock.table
    assert dock.height() == layout.BOTTOM_HEIGHT and dock.model.rowCount() == 11
    whole = [r for r in range(dock.model.rowCount())
             if table.visualRect(table.model().index(r, 0)).bottom() < table.viewport().height()]
    assert len(whole) == 6
    part = table.horizontalHeader().sectionSize(col("part"))
    assert part >= table.fontMetrics().horizontalAdvance("UFM-APPLIANCE-3.1")
    assert dock.footer.geometry().bottom() < table.geometry().top()          # totals above the table
    assert f"total ${bill_of_materials(w.editor.fabric).total_price:,.0f}" == "total $55,374,400"
    assert "total $55,374,400" in dock.footer.text()
