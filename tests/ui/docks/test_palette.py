"""The palette's filter box narrows the parts list as one types (id, description, kind)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6 import QtCore, QtWidgets

from fabricviz.generate.common import pick_switch, use_part
from fabricviz.model import Catalog, Fabric
from fabricviz.ui.canvas.view import PART_MIME
from fabricviz.ui.docks.palette import GROUPS, Palette


@pytest.fixture
def palette(qtbot):
    p = Palette(Catalog.default())
    qtbot.addWidget(p)
    p.show()
    qtbot.waitExposed(p)
    return p


def type_filter(qtbot, palette, text):
    palette.filter.clear()
    qtbot.keyClicks(palette.filter, text)


def groups(palette):
    tree = palette.tree
    return [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())
            if not tree.topLevelItem(i).isHidden()]


def test_filter_by_id_description_and_kind_as_you_type(qtbot, palette):
    everything = palette.visible_parts()
    racks = [x for x in everything if x.startswith("nvlink:")]             # NVLink racks: their own group
    assert racks == ["nvlink:GB200-NVL72", "nvlink:GB300-NVL72"]
    assert len(everything) == len([p for p in Catalog.default() if p.kind in GROUPS]) + 2   # no NVLink trays
    type_filter(qtbot, palette, "qm97")                       # part id, any case
    assert palette.visible_parts() == ["QM9700"]
    assert groups(palette) == ["InfiniBand switches (1 of 5)"]
    type_filter(qtbot, palette, "ConnectX-7")                 # description (the part's name)
    assert palette.visible_parts() == ["NODE-1G-NDR", "CX7-1P", "CX7-2P"]
    type_filter(qtbot, palette, "ethernet SWITCH")            # kind: every word must match
    assert palette.visible_parts() == ["SN2700", "SN3700", "SN4700", "SN5400", "SN5600"]
    type_filter(qtbot, palette, "no such part")
    assert palette.visible_parts() == [] and groups(palette) == []
    palette.filter.clear()
    assert palette.visible_parts() == everything
    assert "InfiniBand switches (5)" in groups(palette)


def test_filter_survives_a_new_catalog_and_marks_hypothetical_parts(qtbot, palette):
    f = Fabric()
    use_part(f, pick_switch(f.catalog, "ib", 16))             # QM9700-R16, hypothetical
    type_filter(qtbot, palette, "hypothetical")
    assert palette.visible_parts() == []
    palette.set_catalog(f.catalog)                            # another design opened: filter kept
    assert palette.visible_parts() == ["QM9700-R16"]
    assert palette.part_item("QM9700-R16").text(0) == "QM9700-R16 (hypothetical)"
    assert palette.filter.text() == "hypothetical"
    # the drag still carries the part id
    mime = palette.tree.mimeData([palette.part_item("QM9700-R16")])
    assert bytes(mime.data(PART_MIME)).decode() == "QM9700-R16"
    assert palette.part_item("QM9700-R16").flags() & QtCore.Qt.ItemFlag.ItemIsDragEnabled



def test_the_dock_is_as_wide_as_its_widest_entry_closed_groups_too(qtbot, palette):
    """Cable types and GPUs start closed; their names count for the width all the same (issue 29:
    they were cut): a user's hypothetical splitter cable, the longest name, fits, and with every
    group open Qt's own measure of the widest row fits."""
    base = Catalog.default()
    long = replace(base.get("XDR-ACC-NIC"), id="XDR-ACC-NIC-2xNDR-splitter", hypothetical=True)
    palette.set_catalog(base.with_parts([long]))
    tree = palette.tree
    closed = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount()) if not tree.topLevelItem(i).isExpanded()]
    assert sorted(g.text(0).split(" (")[0] for g in closed) == ["Cable types", "GPUs"]
    bar = tree.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_ScrollBarExtent)
    room = tree.minimumWidth() - bar - 2 * tree.frameWidth() - 4
    tree.expandAll()
    QtWidgets.QApplication.processEvents()
    item = palette.part_item("XDR-ACC-NIC-2xNDR-splitter")
    assert item is not None and item.text(0) == "XDR-ACC-NIC-2xNDR-splitter (hypothetical)"
    assert tree.sizeHintForColumn(0) <= room, (tree.sizeHintForColumn(0), room)
