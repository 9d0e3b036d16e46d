"""File ▸ Import/Export Partitions: an OpenSM partitions.conf into the design (one undo step, exact)
and back out; a refused file changes nothing."""

from __future__ import annotations

import pytest
from PySide6 import QtWidgets

from fabricviz.formats.native import fabric_to_dict
from fabricviz.formats.partitions_conf import load as load_conf
from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib.partitions import design_partitions


@pytest.fixture
def window(make_window, monkeypatch):
    shown = []
    for kind in ("critical", "information"):
        monkeypatch.setattr(QtWidgets.QMessageBox, kind,
                            staticmethod(lambda *a, _k=kind, **k: shown.append((_k, a[2]))))
    w = make_window()
    w.apply_generated(k_ary_fat_tree(4))
    QtWidgets.QApplication.processEvents()
    w.shown = shown
    return w


def _guid(f, name):
    return int(f.ports_t.guid[f.port(f"{name}/mlx5_0:1").id])


def test_import_is_one_undo_step_that_gives_back_the_design_to_the_byte(window, tmp_path):
    w = window
    f = w.editor.fabric
    before = fabric_to_dict(f)
    conf = tmp_path / "partitions.conf"
    conf.write_text("Default=0x7fff, ipoib : ALL=full ;\n"
                    f"storage=0x8002 : 0x{_guid(f, 'node01'):x}=full, 0x{_guid(f, 'node02'):x} ;\n")
    steps = w.editor.stack.count()
    assert w.files.import_partitions(str(conf))
    assert w.editor.stack.count() == steps + 1
    assert w.editor.stack.undoText() == "Import partitions from partitions.conf (2 partitions)"
    got = design_partitions(f.meta)
    assert [(p.name, p.pkey) for p in got.statements] == [("Default", 0x7FFF), ("storage", 0x0002)]
    # the Traffic dock offers the new partition at once
    box = w.traffic_dock.form.partition_box
    assert [box.itemText(i) for i in range(box.count())] == ["Default (0x7fff)", "storage (0x8002)"]
    w.editor.stack.undo()
    assert fabric_to_dict(f) == before and "partitions" not in f.meta
    assert box.count() == 0
    w.editor.stack.redo()
    assert design_partitions(f.meta).statements == got.statements
    # export writes what OpenSM reads back as the same partitions
    out = tmp_path / "out.conf"
    assert w.files.export_partitions(str(out))
    back = load_conf(out)
    assert [(p.name, p.pkey, p.members) for p in back.statements] == \
        [(p.name, p.pkey, p.members) for p in got.statements]


def test_a_refused_file_is_one_line_and_changes_nothing(window, tmp_path):
    w = window
    f = w.editor.fabric
    before, steps = fabric_to_dict(f), w.editor.stack.count()
    bad = tmp_path / "bad.conf"
    bad.write_text("Default=0x7fff : ALL=full ;\nbroken=0x1ffff : ALL ;\n")
    assert not w.files.import_partitions(str(bad))
    kind, msg = w.shown[-1]
    assert kind == "critical" and msg.startswith(f"{bad}:2:") and "\n" not in msg
    assert fabric_to_dict(f) == before and w.editor.stack.count() == steps


def test_export_without_partitions_says_so_and_writes_nothing(window, tmp_path):
    w = window
    out = tmp_path / "none.conf"
    assert not w.files.export_partitions(str(out))
    assert not out.exists() and w.shown[-1][0] == "information"
    file_menu = w.menuBar().actions()[0].menu()
    assert [a.objectName() for a in file_menu.actions() if "partitions" in a.objectName()] == \
        ["action_import_partitions", "action_export_partitions"]
