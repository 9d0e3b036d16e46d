"""File ▸ Record Animation…: the dialog records the sweep as an MP4 with its bar reaching 100 %,
a traffic run as a GIF, and Cancel midway leaves no file; the window's design is untouched."""

from __future__ import annotations

import imageio.v2 as iio2
import imageio.v3 as iio
import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets

from fabricviz.formats.native import save_fabric
from fabricviz.generate import fat_tree


@pytest.fixture
def window(make_window, tmp_path):
    path = tmp_path / "tiny.json"
    save_fabric(fat_tree(levels=2, radix=4, hosts=4, name="tiny"), path)
    return make_window(str(path))


def open_dialog(w, out, what="sweep", fps=10, width=320, seconds=1.0):
    w.findChild(type(w.acts["fit"]), "action_record").trigger()          # File ▸ Record Animation…
    dlg = w.record_dialog
    assert dlg.isVisible()
    dlg.what_box.setCurrentIndex(dlg.what_box.findData(what))
    dlg.path_edit.setText(str(out))
    dlg.path_edit.editingFinished.emit()
    dlg.fps_box.setValue(fps)
    dlg.width_box.setValue(width)
    dlg.duration_box.setValue(seconds)
    return dlg


def test_file_menu_has_record_animation(window):
    menu = window.menuBar().actions()[0].menu()
    names = [a.objectName() for a in menu.actions()]
    assert names.index("action_record") == names.index("action_export_image") + 1


def test_dialog_records_the_sweep_as_mp4(window, qtbot, tmp_path):
    w = window
    fabric, items, undo = w.editor.fabric, len(w.scene.items()), w.editor.stack.count()
    out = tmp_path / "sweep.mp4"
    dlg = open_dialog(w, out, "sweep", fps=10, width=320, seconds=1.0)
    seen = []
    dlg.progress.valueChanged.connect(seen.append)
    with qtbot.waitSignal(dlg.recorded, timeout=30_000) as sig:
        dlg.findChild(QtWidgets.QPushButton, "record_start").click()
    assert sig.args == [str(out)]
    assert dlg.progress.value() == 100 and seen == sorted(seen) and len(seen) >= 10
    assert dlg.status.text().startswith(f"wrote {out} (10 frames, ")
    reader = iio2.get_reader(out, format="FFMPEG")
    try:
        frames = [np.asarray(f) for f in reader]
        size = reader.get_meta_data()["size"]
    finally:
        reader.close()
    assert (len(frames), size) == (10, (320, 320))
    assert not np.array_equal(frames[0], frames[-1])
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix in (".mp4", ".gif")) == ["sweep.mp4"]
    # the window's design, history and canvas are as they were
    assert w.editor.fabric is fabric and w.editor.stack.count() == undo and len(w.scene.items()) == items
    assert dlg.record_button.isEnabled() and not dlg.cancel_button.isEnabled()


def test_dialog_records_the_traffic_docks_run_as_gif(window, qtbot, tmp_path):
    w = window
    w.traffic_dock.configure(workload="incast", arg="3", model="fluid", duration="1ms")
    out = tmp_path / "incast.gif"
    dlg = open_dialog(w, out, "traffic", fps=10, width=240, seconds=2.0)
    assert dlg.format_box.currentData() == ".gif"
    assert dlg.detail.text().startswith("incast:3, fluid model, default routing")
    with qtbot.waitSignal(dlg.recorded, timeout=30_000):
        dlg.record_button.click()
    frames = iio.imread(out, index=None)
    assert frames.shape == (20, 240, 240, 3)
    assert w.traffic_dock.result is None               # the dock's own run is not replaced


def test_cancel_midway_leaves_no_file(window, qtbot, tmp_path):
    out = tmp_path / "long.mp4"
    dlg = open_dialog(window, out, "sweep", fps=10, width=320, seconds=30.0)
    dlg.record_button.click()
    qtbot.waitUntil(lambda: dlg.painted >= 5, timeout=30_000)
    assert dlg.cancel_button.isEnabled() and dlg.painted < len(dlg.shots) == 300
    dlg.cancel_button.click()
    assert dlg.wait(30.0)
    qtbot.wait(50)
    assert dlg.status.text() == "recording cancelled" and dlg.progress.value() == 0
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".mp4"] == []
    assert dlg.record_button.isEnabled()
    with qtbot.waitSignal(dlg.recorded, timeout=30_000):     # and it records again after a cancel
        dlg.duration_box.setValue(0.5)
        dlg.record_button.click()
    assert out.is_file()


def test_dialog_records_the_open_lesson(qtbot, make_window, tmp_path, shared_runs):
    from tests.ui.lesson_helpers import open_lesson
    w = make_window()
    dock, _stage = open_lesson(qtbot, w, 1, sweep_seconds=0.05)
    shown = w.editor.fabric
    out = tmp_path / "lesson.gif"
    dlg = open_dialog(w, out, "lesson", fps=10, width=240, seconds=1.0)
    assert dlg.what_box.currentText() == f"Lesson: {dock.lesson.title}"
    with qtbot.waitSignal(dlg.recorded, timeout=30_000):
        dlg.record_button.click()
    frames = iio.imread(out, index=None)
    assert frames.shape[0] == 10 and frames.shape[2] == 240          # 7 steps in 10 frames
    assert w.editor.fabric is shown                                    # the canvas still follows the lesson


def test_traffic_recording_runs_in_the_chosen_partition(make_window, qtbot, tmp_path):
    from tests.ui.partition_helpers import partitioned as _partitioned
    w = make_window()
    w.apply_generated(_partitioned())
    QtWidgets.QApplication.processEvents()
    w.traffic_dock.configure(workload="alltoall", model="fluid", duration="1ms")
    w.traffic_dock.form.partition_box.set_value("storage")
    dlg = open_dialog(w, tmp_path / "p.gif", "traffic", fps=5, width=240, seconds=0.4)
    clips = []
    begin = dlg._begin
    dlg._begin = lambda c, *a: (clips.extend(c), begin(c, *a))
    with qtbot.waitSignal(dlg.recorded, timeout=30_000):
        dlg.record_button.click()
    res = clips[0].traffic
    assert res.partition == "storage (0x8002)" and len(res.flows) == 4 and len(res.refused) == 2


def test_closing_the_dialog_or_the_window_midway_deletes_the_partial(window, qtbot, tmp_path):
    w = window
    for close in ("dialog", "window"):
        out = tmp_path / f"{close}.mp4"
        dlg = open_dialog(w, out, "sweep", fps=10, width=320, seconds=30.0)
        dlg.record_button.click()
        qtbot.waitUntil(lambda dlg=dlg: dlg.painted >= 5 and dlg.partial.exists(), timeout=30_000)
        part = dlg.partial
        (dlg if close == "dialog" else w).close()
        assert not part.exists() and not out.exists()          # at once: no job is waited for later
        if close == "dialog":
            QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
            assert w.record_dialog is None                     # the deleted dialog is not kept
