"""Partition marks zoomed out: group boxes (far) and host blocks (middle) carry one badge with a
row per partition of their hosts ("16 in storage (4 full)"), and with a host selected the boxes
are outlined (all reachable), dashed (some) or veiled (none); an open group's hosts are marked
as at near.

Design: k=8 fat tree (8 pods of 4 leaves × 4 hosts, 16 cores) on a 1920×1080 window zoomed out
to far: pod 1 holds node001-node016, pod 2 node017-node032. Partitions: storage (0x8001) with
node001-004 full and node005-032 limited, compute (0x8002) with node017-032 full.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets

from fabricviz.formats.partitions_conf import loads
from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib.partitions import to_meta
from fabricviz.ui.canvas.overlays.partitions import GroupBadge
from tests.ui.zoom_helpers import far_view


def _host(i):
    return f"node{i:03d}"


@pytest.fixture
def far(make_window):
    w = make_window()
    f = k_ary_fat_tree(8)
    guid = {i: int(f.ports_t.guid[f.port(f"{_host(i)}/mlx5_0:1").id]) for i in range(1, 33)}
    conf = ("storage=0x8001 : " + ", ".join(f"0x{guid[i]:x}=full" for i in range(1, 5)) + ", "
            + ", ".join(f"0x{guid[i]:x}" for i in range(5, 33)) + " ;\n"
            "compute=0x8002 : " + ", ".join(f"0x{guid[i]:x}=full" for i in range(17, 33)) + " ;\n")
    f.meta["partitions"] = to_meta(loads(conf, "p"))
    sem = far_view(w, f)
    assert sem.level == "far"
    w.acts["partition_marks"].trigger()
    return w, w.editor.fabric, sem


def _pods(sem):
    names = sem.grouping.names
    return names.index("pod 1"), names.index("pod 2")


def _rect(r):
    return (round(r.x(), 3), round(r.y(), 3), round(r.width(), 3), round(r.height(), 3))


def _boxes(item):
    return sorted(_rect(p.boundingRect()) for p in item.path().toSubpathPolygons())


def test_far_boxes_carry_a_row_per_partition_of_their_hosts(far):
    w, f, sem = far
    marks = w.partition_marks
    p1, p2 = _pods(sem)
    node = sem.node_of()
    assert {int(node[f.device_id(_host(i))]) for i in range(1, 17)} == {p1}
    assert marks.items == {}                          # no host is drawn as itself at far
    assert sorted(marks.badges) == [p1, p2]           # pods 3-8 and the cores hold no member
    assert marks.badges[p1].texts() == ["16 in storage (4 full)"]
    assert marks.badges[p2].texts() == ["16 in storage (limited)", "16 in compute (full)"]
    # each row: the partition's colour, filled when a member is full
    rows = [(c.name(), filled) for c, filled, _t in marks.badges[p2].rows]
    assert rows == [("#1c7ed6", False), ("#e8590c", True)] and marks.badges[p1].rows[0][1] is True
    # the badge sits at the box's top-left corner, a constant size on screen
    r = sem.node_rects(np.array([p1]))[:, 0]
    assert marks.badges[p1].pos() == QtCore.QPointF(float(r[0]), float(r[1]))
    assert marks.badges[p1].flags() & QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations
    assert len([i for i in w.scene.items() if isinstance(i, GroupBadge)]) == 2


def test_a_selected_host_outlines_boxes_it_reaches_all_some_or_none_of(far):
    w, f, sem = far
    marks = w.partition_marks
    p1, p2 = _pods(sem)
    pods = [g for g, name in enumerate(sem.grouping.names) if name.startswith("pod ")]
    rest = {g: (0, 16) for g in pods if g not in (p1, p2)}          # pods 3-8: hosts, no member
    assert sorted(marks.group_rects) == pods                        # boxes holding hosts (not the cores)
    w.scene.select_devices([f.device_id("node005")])  # a limited member of storage only
    QtWidgets.QApplication.processEvents()
    assert {f.name_of(d) for d in marks.peers} == {_host(i) for i in range(1, 5)}
    assert marks.group_reach == {p1: (4, 15), p2: (0, 16), **rest}
    assert marks.badges[p1].texts()[-1] == "can talk to 4 of 15"
    assert _boxes(marks.reach_some) == [_rect(marks.group_rects[p1])]
    assert _boxes(marks.reach) == []
    assert _boxes(marks.veil) == sorted(_rect(marks.group_rects[g]) for g in pods if g != p1)
    assert marks.reach_some.pen().style() == QtCore.Qt.PenStyle.DashLine
    assert marks.status_text == "node005 can talk to 4 hosts (storage)"
    # a full member of compute: every other host of pod 2, and pod 1's four full storage members
    w.scene.select_devices([f.device_id("node017")])
    QtWidgets.QApplication.processEvents()
    assert marks.group_reach == {p1: (4, 16), p2: (15, 15), **rest}
    assert _boxes(marks.reach) == [_rect(marks.group_rects[p2])]
    assert _boxes(marks.reach_some) == [_rect(marks.group_rects[p1])]
    assert marks.badges[p2].texts()[-1] == "can talk to 15 of 15"
    w.scene.clearSelection()
    assert marks.group_reach == {} and marks.badges[p2].texts() == ["16 in storage (limited)",
                                                                     "16 in compute (full)"]


def test_middle_blocks_and_an_open_group(far):
    w, f, sem = far
    marks = w.partition_marks
    p1, p2 = _pods(sem)
    sem.expand(p1)                                    # pod 1's hosts drawn as themselves
    QtWidgets.QApplication.processEvents()
    assert sorted(marks.badges) == [p2]
    assert sorted(marks.items) == [(1, False), (1, True)]
    assert len(marks.items[(1, True)].path().toSubpathPolygons()) == 4
    assert len(marks.items[(1, False)].path().toSubpathPolygons()) == 12
    sem.collapse(p1)
    # zoom in to middle: one host block per leaf, the badge under it
    scale = next(s for s in np.geomspace(0.01, 4.0, 400) if sem.level_for(float(s)) == "middle")
    w.view.zoom_by(float(scale) * 1.05 / w.view.scale_factor())
    QtWidgets.QApplication.processEvents()
    sem.refresh()
    assert sem.level == "middle"
    g = sem.grouping
    assert len(marks.badges) == 8 and all(n >= g.n_groups for n in marks.badges)   # 8 leaves' blocks
    texts = sorted(tuple(b.texts()) for b in marks.badges.values())
    assert texts == sorted([("4 in storage (full)",), ("4 in storage (limited)",), ("4 in storage (limited)",),
                            ("4 in storage (limited)",)] + [("4 in storage (limited)", "4 in compute (full)")] * 4)
    n = next(iter(marks.badges))
    r = sem.node_rects(np.array([n]))[:, 0]
    assert marks.badges[n].pos() == QtCore.QPointF(float(r[0]), float(r[3]))   # under the block
    # near: the boxes go, every host's own squares come back
    w.view.fit_all()
    w.view.zoom_by(40.0)
    QtWidgets.QApplication.processEvents()
    sem.refresh()
    assert sem.level == "near" and marks.badges == {}
    assert sorted(marks.items) == [(1, False), (1, True), (2, True)]
