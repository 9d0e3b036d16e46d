"""The workspace as a new user meets it: first-launch layout, a new session per design, the
shortcuts users expect (Find, Select All with cables, paste at the pointer, F to fit)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets  # noqa: F401

from fabricviz.generate.fattree import k_ary_fat_tree

ROOT = Path(__file__).resolve().parents[2]

FIRST_LAUNCH = """
import json, sys
from PySide6 import QtWidgets
app = QtWidgets.QApplication(["fabricviz"])
from fabricviz.ui import MainWindow, layout
w = MainWindow()
w.show()
for _ in range(20):
    app.processEvents()
visible = sorted(d.objectName() for d in layout.docks(w) if d.isVisible())
print(json.dumps({"maximized": w.isMaximized(), "size": [w.width(), w.height()],
                  "share": layout.canvas_share(w), "visible": visible}))
"""


def test_first_launch_on_a_1920x1080_desktop_gives_the_canvas_most_of_the_window(tmp_path):
    """A fresh HOME, a 1920×1080 screen: the window is maximised and the canvas has ≥ 60 %."""
    screen = tmp_path / "screen.json"
    screen.write_text(json.dumps({"screens": [{"name": "s", "x": 0, "y": 0, "width": 1920, "height": 1080,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    home = tmp_path / "home"
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), PYTHONPATH=str(ROOT),
               QT_QPA_PLATFORM=f"offscreen:configfile={screen}")
    out = subprocess.run([sys.executable, "-c", FIRST_LAUNCH], env=env, capture_output=True, text=True,
                         timeout=120, cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["maximized"] and got["size"][0] >= 1900 and got["size"][1] >= 1050
    assert got["share"] >= 0.60, got
    assert got["visible"] == ["history", "inspector", "palette"]      # findings/BOM wait for content


def test_opening_another_design_mid_lesson_resets_the_session(make_window, qtbot, tmp_path):
    w = make_window()
    assert w.open_lesson("5")
    w.lesson_dock.wait()
    qtbot.waitUntil(lambda: w.lesson_dock.results is not None, timeout=60_000)
    w.lesson_dock.go(3)
    w.scene.set_selected_cables({int(w.editor.fabric.cable_ids()[0])})
    resets = w.document.session.resets
    path = tmp_path / "k4.json"
    from fabricviz.formats.native import save_fabric
    save_fabric(k_ary_fat_tree(4), path)
    assert w.files.open_path(str(path))
    assert w.document.session.resets == resets + 1
    assert w.lesson_dock.lesson is None and not w.lesson_stage.following
    assert w.lesson_dock.lesson_title.text() == "No lesson open — pick one from the Lessons menu"
    assert not w.lesson_dock.next_button.isEnabled()
    w.lesson_dock.next()                                  # Next narrates nothing over the new fat tree
    assert w.lesson_dock.say.text() == ""
    assert w.traffic_dock.result is None and w.sweep_dock.timeline is None
    assert w.scene.selected_cables == set() and w.scene.selected_device_ids() == []
    assert w.document.display_name == "k4.json" and w.editor.stack.count() == 0


def test_select_all_takes_the_cables_too_and_delete_removes_everything(make_window):
    w = make_window()
    f = w.editor.fabric
    w.acts["select_all"].trigger()
    assert w.scene.selected_cables == {int(c) for c in f.cable_ids()} and len(f.cable_ids()) == 32
    tops = [int(d) for d in f.device_ids() if f.devices_t.parent[d] < 0]
    assert w.scene.selected_device_ids() == sorted(tops)
    w.acts["delete"].trigger()
    assert len(f.cable_ids()) == 0 and len(f.device_ids()) == 0
    w.acts["undo"].trigger()
    assert len(f.cable_ids()) == 32


def test_paste_lands_centred_on_the_pointer(make_window, qtbot):
    w = make_window()
    f = w.editor.fabric
    leaf = f.find("leaf01")
    w.scene.select_devices([leaf])
    w.acts["copy"].trigger()
    target = w.view.viewport().rect().center() + QtCore.QPoint(37, 23)
    qtbot.mouseMove(w.view.viewport(), target)
    want = w.view.mapToScene(target)
    w.acts["paste"].trigger()
    (new,) = w.scene.selected_device_ids()
    assert new != leaf and f.name_of(new) != "leaf01"
    assert (round(float(f.devices_t.x[new]), 3), round(float(f.devices_t.y[new]), 3)) == \
        (round(want.x(), 3), round(want.y(), 3))


def test_find_by_name_guid_and_lid_centres_and_selects(make_window):
    from fabricviz.ib.routing import route
    from fabricviz.ui.dialogs.find import find_device
    w = make_window()
    f = w.editor.fabric
    doc = w.document
    spine = f.find("spine02")
    assert find_device(doc, "SPINE02") == (spine, "name spine02")
    assert find_device(doc, f"{int(f.devices_t.guid[spine]):#018x}") == (spine, f"GUID {int(f.devices_t.guid[spine]):#018x}")
    r = route(f)
    lid = int(r.lids.sw_lid[r.subnet.sw_index[spine]])
    assert find_device(doc, str(lid)) == (spine, f"LID {lid}")
    assert find_device(doc, "leaf")[0] is None and "4 devices match" in find_device(doc, "leaf")[1]
    assert find_device(doc, "nosuch") == (None, "no device named 'nosuch', and no LID or GUID nosuch")
    w.selection.show_device(spine)
    assert w.scene.selected_device_ids() == [spine]
    c = w.view.mapToScene(w.view.viewport().rect().center())
    assert abs(c.x() - float(f.devices_t.x[spine])) < 2 and abs(c.y() - float(f.devices_t.y[spine])) < 2
    assert QtGui.QKeySequence(QtGui.QKeySequence.StandardKey.Find) in w.acts["find"].shortcuts()


def test_f_and_ctrl_0_fit_and_a_dock_opened_from_the_view_menu_is_shown_in_front(make_window):
    w = make_window()
    keys = {k.toString() for k in w.acts["fit"].shortcuts()}
    assert keys == {"Ctrl+0", "F"}
    w.view.zoom_by(8.0)
    w.acts["fit"].trigger()
    content = w.scene.content_rect()
    shown = w.view.mapToScene(w.view.viewport().rect()).boundingRect()
    assert shown.contains(content)
    for name in ("action_traffic", "action_findings", "action_bom", "action_charts"):
        act = w.findChild(QtGui.QAction, name)
        act.trigger()
        QtWidgets.QApplication.processEvents()
        dock = {"action_traffic": w.traffic_dock, "action_findings": w.findings_dock,
                "action_bom": w.bom_dock, "action_charts": w.charts_dock}[name]
        assert dock.isVisible() and not dock.visibleRegion().isEmpty(), name     # in front, not a hidden tab


def test_a_rubber_band_selects_the_cables_between_the_devices_it_takes(make_window, qtbot):
    w = make_window()
    f = w.editor.fabric
    view = w.view
    leaves = [f.find(f"leaf0{i}") for i in (1, 2)]
    hosts = [d for d in f.device_ids("server") if f.devices_t.x[d] < max(f.devices_t.x[leaves]) + 60]
    xs = f.devices_t.x[leaves + hosts]
    ys = f.devices_t.y[leaves + hosts]
    # the band's right edge halfway between the last chosen host and what comes next (the third
    # leaf's outline, the next host's frame)
    right = max(w.scene.items_by_id[d].sceneBoundingRect().right() for d in leaves + hosts)
    nxt = min(w.scene.items_by_id[d].sceneBoundingRect().left() for d in
              [f.find("leaf03")] + [d for d in f.device_ids("server") if d not in hosts])
    assert nxt - right > 4
    tl = view.mapFromScene(QtCore.QPointF(float(xs.min()) - 60, float(ys.min()) - 40))
    br = view.mapFromScene(QtCore.QPointF((right + nxt) / 2, float(ys.max()) + 80))
    left = QtCore.Qt.MouseButton.LeftButton
    qtbot.mousePress(view.viewport(), left, pos=tl)
    for k in range(1, 6):
        qtbot.mouseMove(view.viewport(), tl + (br - tl) * (k / 5))
    qtbot.mouseRelease(view.viewport(), left, pos=br)
    picked = set(w.scene.selected_device_ids())
    assert set(leaves) <= picked and not any(f.device(d).kind == "ib_switch" and d not in leaves for d in picked)
    ct, pt, t = f.cables_t, f.ports_t, f.devices_t

    def top(p):
        d = int(pt.device[p])
        return int(t.parent[d]) if t.parent[d] >= 0 else d
    want = {int(c) for c in f.cable_ids() if top(int(ct.port_a[c])) in picked and top(int(ct.port_b[c])) in picked}
    assert len(want) >= 8 and w.scene.selected_cables == want     # leaf↔host cables; no leaf↔spine cable


def test_quitting_with_a_job_running_never_waits_for_it(make_window):
    """Ctrl+Q closes at once: a running job is cancelled and its daemon thread is left behind."""
    import threading
    w = make_window()
    gate, started = threading.Event(), threading.Event()

    def slow(progress):
        started.set()
        gate.wait(30)
        progress(0.5)                     # raises Cancelled once the job was cancelled
        return "done"
    got = []
    job = w.document.jobs.submit("slow", slow, on_done=got.append)
    assert started.wait(10)
    worker = [t for t in threading.enumerate() if t.name == "fabricviz-slow"]
    assert len(worker) == 1 and worker[0].daemon
    w.acts["quit"].trigger()
    assert not w.isVisible() and job.cancelled and not w.document.jobs.active
    gate.set()
    assert job.wait(10)
    QtWidgets.QApplication.processEvents()
    assert got == []                      # a cancelled job delivers nothing


def test_after_a_lesson_the_traffic_controls_are_the_users_own_again(make_window, qtbot):
    w = make_window()
    dock = w.traffic_dock
    dock.configure(workload="ring", arg="", model="maxmin", routing="adaptive", engine="updn", duration="1ms",
                   seed=7)
    own = dock.form.controls()
    assert w.open_lesson("5")
    qtbot.waitUntil(lambda: w.lesson_dock.results is not None, timeout=60_000)
    QtWidgets.QApplication.processEvents()
    assert dock.result is not None and dock.form.controls() != own        # the lesson's run and settings
    w.files.new_design()
    assert dock.result is None and dock.form.controls() == own
    assert not w.lesson_dock.isVisible() and not w.charts_dock.isVisible()


def test_opening_findings_checks_the_design(make_window, qtbot):
    from fabricviz.check.lint import lint
    from fabricviz.ui.docks.findings import selection_of
    w = make_window()
    fd = w.findings_dock
    assert not fd.isVisible() and fd.stale
    with qtbot.waitSignal(fd.finished, timeout=60_000):
        w.findChild(QtGui.QAction, "action_findings").trigger()
    f = w.editor.fabric
    assert not fd.stale and fd.rows() == [selection_of(f, x) for x in lint(f).findings]


def test_the_next_start_restores_the_window_and_its_docks(qtbot):
    """Closing saves geometry and docks; the next window comes back the same, not maximised."""
    from fabricviz.ui import MainWindow
    w = MainWindow()
    qtbot.addWidget(w)
    w.setWindowState(QtCore.Qt.WindowState.WindowNoState)
    w.resize(760, 560)                                   # inside the offscreen screen
    w.show()
    qtbot.waitExposed(w)
    w.findChild(QtGui.QAction, "action_bom").trigger()
    w.palette_dock.hide()
    QtWidgets.QApplication.processEvents()
    shown = sorted(d.objectName() for d in w.findChildren(QtWidgets.QDockWidget) if d.isVisible())
    size = (w.width(), w.height())
    w.close()
    again = MainWindow()
    qtbot.addWidget(again)
    again.show()
    qtbot.waitExposed(again)
    QtWidgets.QApplication.processEvents()
    assert not again.isMaximized() and (again.width(), again.height()) == size
    assert sorted(d.objectName() for d in again.findChildren(QtWidgets.QDockWidget) if d.isVisible()) == shown
    assert "bom" in shown and "palette" not in shown
    again.acts["reset_layout"].trigger()                  # View ▸ Reset Layout: the first-start docks
    QtWidgets.QApplication.processEvents()
    assert sorted(d.objectName() for d in again.findChildren(QtWidgets.QDockWidget) if d.isVisible()) == \
        ["history", "inspector", "palette"]
    again.close()


def test_long_runs_can_be_cancelled_from_their_docks(make_window, qtbot):
    """A fluid run on a k=16 tree and the checks: Cancel stops them, nothing half-shown, Run again works."""
    from fabricviz.generate.fattree import fat_tree
    w = make_window()
    w.editor.set_fabric(fat_tree(levels=3, radix=8))
    dock = w.traffic_dock
    w.findChild(QtGui.QAction, "action_traffic").trigger()
    QtWidgets.QApplication.processEvents()
    dock.configure(workload="alltoall", model="fluid", duration="50ms")
    assert not dock.cancel_button.isEnabled()
    assert dock.run()
    assert dock.running and dock.cancel_button.isEnabled()
    qtbot.mouseClick(dock.cancel_button, QtCore.Qt.MouseButton.LeftButton)
    assert not dock.running and dock.run_button.isEnabled() and not dock.cancel_button.isEnabled()
    assert dock.result is None and dock.status.text() == "run cancelled"
    assert not w.document.jobs.active
    qtbot.wait(200)
    QtWidgets.QApplication.processEvents()
    assert dock.result is None                                  # the cancelled run never arrives
    fd = w.findings_dock
    fd.full_box.setChecked(True)
    w.findChild(QtGui.QAction, "action_findings").trigger()      # opening it starts the checks
    QtWidgets.QApplication.processEvents()
    assert fd.running and fd.cancel_button.isEnabled()
    qtbot.mouseClick(fd.cancel_button, QtCore.Qt.MouseButton.LeftButton)
    assert not fd.running and fd.status.text() == "checks cancelled" and fd.rows() == []
    qtbot.wait(200)
    QtWidgets.QApplication.processEvents()
    assert fd.rows() == [] and fd.stale
