"""File ▸ Compare with Discovered… in a real window: the design opened from a file, compared with an
edited copy of its own ibnetdiscover export; the Differences dock's rows, the overlay's items on
the canvas and the selection after a click on a row."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtWidgets

from fabricviz.formats.ibnetdiscover import export_ibnetdiscover, loads, save_ibnetdiscover
from fabricviz.formats.native import save_fabric
from fabricviz.generate.fattree import fat_tree
from fabricviz.ui.canvas.overlays.diff import FOUND_COLOR, MISSING_COLOR, ROLE
from fabricviz.ui.docks.diff import COLUMNS
from tests.ui.canvas.test_near_routes import crossings, device_rects_on_canvas, path_segments


@pytest.fixture
def files(tmp_path):
    """design.json (fat tree radix 8, 6 hosts) and edited.ibnd: its export with leaf01:5's uplink
    missing, node01 on leaf02:3 (wrong peer) and node05 on leaf02:4 (wrong port)."""
    design = fat_tree(levels=2, radix=8, hosts=6)
    save_fabric(design, tmp_path / "design.json")
    f = loads(export_ibnetdiscover(design), "x.ibnd")
    f.remove_cables([f.port("leaf01:5").cable.id])
    for port, to in (("leaf01:1", "leaf02:3"), ("leaf02:1", "leaf02:4")):
        p = f.port(port)
        far = p.peer.name
        f.remove_cables([p.cable.id])
        f.add_cable(far, to)
    save_ibnetdiscover(f, tmp_path / "edited.ibnd")
    return tmp_path / "design.json", tmp_path / "edited.ibnd"


def rows(view):
    m = view.model()
    return [tuple(m.index(r, c).data() for c in range(len(COLUMNS))) for r in range(m.rowCount())]


def overlay_items(w):
    return sorted((it.data(4), it.data(3), it.pen().color().getRgb()[:3], it.pen().style().name)
                  for it in w.scene.items() if it.data(2) == ROLE)


def test_compare_lists_draws_and_selects_the_differences(make_window, files, qtbot):
    design, edited = files
    w = make_window(str(design))
    assert w.files.compare_discovered(str(edited))
    dock = w.diff_dock
    assert dock.isVisible()
    assert rows(dock.table) == [
        ("missing cable", "leaf01:5 – spine01:1"),
        ("wrong port", "leaf02:1 – node05/mlx5_0:1: node05/mlx5_0:1 is cabled to leaf02:4 instead of leaf02:1"),
        ("wrong peer", "leaf01:1 – node01/mlx5_0:1: node01/mlx5_0:1 goes to leaf02:3 instead of leaf01:1"),
    ]
    assert dock.status.text() == ("compared with edited.ibnd: 12 of 12 design devices matched (12 by GUID), "
                                  "11 cables as designed: 1 missing cable, 1 wrong port, 1 wrong peer")
    dashed, solid = "DashLine", "SolidLine"
    assert overlay_items(w) == [
        (0, "missing cable", MISSING_COLOR, dashed),
        (1, "wrong port", FOUND_COLOR, solid), (1, "wrong port", MISSING_COLOR, dashed),
        (2, "wrong peer", FOUND_COLOR, solid), (2, "wrong peer", MISSING_COLOR, dashed),
    ]
    red = next(it for it in w.scene.items() if it.data(2) == ROLE and it.data(4) == 2
               and it.pen().color().getRgb()[:3] == FOUND_COLOR)
    assert "goes to leaf02:3" in red.toolTip()          # the actual peer, in the tooltip
    f = w.fabric
    # the red line runs from node01's NIC port to leaf02:3, where the design draws those ports,
    # through the gutters like a cable: at right angles, across no device (issue 29: it was one
    # straight line over node02 and node03)
    p = red.path()
    a, b = p.elementAt(0), p.elementAt(p.elementCount() - 1)
    nic, leaf = f.device("node01/mlx5_0"), f.device("leaf02")
    if abs(a.x - nic.x) >= 20:
        a, b = b, a
    assert abs(a.x - nic.x) < 20 and abs(a.y - nic.y) < 20
    assert abs(b.x - leaf.x) < 60 and abs(b.y - leaf.y) < 20 and b.x < leaf.x   # port 3 of 8: left half
    seg = path_segments(p)
    assert seg.shape[1] >= 3 and ((seg[0] == seg[2]) | (seg[1] == seg[3])).all()
    assert crossings(seg, device_rects_on_canvas(w.scene)) == 0

    idx = dock.table.model().index(2, 1)
    qtbot.mouseClick(dock.table.viewport(), QtCore.Qt.MouseButton.LeftButton,
                     pos=dock.table.visualRect(idx).center())
    assert w.document.session.diff.pick == 2
    assert sorted(f.name_of(d) for d in w.scene.selected_device_ids()) == ["leaf01", "leaf02", "node01/mlx5_0"]
    assert [f.cable(c).label for c in w.scene.selected_cables] == ["node01/mlx5_0:1 – leaf01:1"]
    assert red.pen().widthF() == 8.0 and all(
        it.pen().widthF() == 4.0 for it in w.scene.items() if it.data(2) == ROLE and it.data(4) != 2)

    # an edit of the design: the report described a design that is gone
    w.editor.move([f.find("leaf01")], 10.0, 0.0)      # moved: drawn again where it is now
    assert len(overlay_items(w)) == 5
    assert w.editor.remove([], [f.port("leaf01:6").cable.id])
    assert w.document.session.diff.report is None
    assert rows(dock.table) == [] and overlay_items(w) == []
    assert dock.status.text() == "the design changed since the comparison: compare again"


def test_a_refused_file_says_one_line_and_shows_nothing(make_window, files, monkeypatch, tmp_path):
    design, _edited = files
    w = make_window(str(design))
    said = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "critical", staticmethod(lambda _p, _t, text: said.append(text)))
    bad = tmp_path / "bad.ibnd"
    bad.write_text('Switch 8 "S-1"\n[1] "node-a"[1]\n')     # a peer with no block and no GUID id
    assert not w.files.compare_discovered(str(bad))
    assert len(said) == 1 and said[0].startswith(str(bad)) and "\n" not in said[0]
    assert w.document.session.diff.report is None and overlay_items(w) == []
    assert w.editor.stack.count() == 0          # the design is not touched


def test_the_menu_entry_and_the_dock_toggle_exist(make_window, files):
    w = make_window(str(files[0]))
    act = w.acts["compare_discovered"]
    assert act.text() == "Compare with &Discovered…" and act in w.acts.menu("file").actions()
    assert w.findChild(QtWidgets.QDockWidget, "diff_dock") is w.diff_dock
