"""NVL72 racks' scale-out cables at near zoom (fabricviz.ui.canvas.items.rack_routes, issue 29): a
rack's trays route as one device, so no cable runs through a rack other than a tray's own cables
down the gap at the tray's left and across into its NIC, and none through the room under the frame
that holds an opened rack's switch trays and labels."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtWidgets

from fabricviz.generate.geometry import device_rects
from fabricviz.generate.nvl72 import nvl72
from fabricviz.model.nvlink import nvlink_domains
from fabricviz.ui.canvas.items.cables import cable_anchors, routes_for, top_devices
from fabricviz.ui.canvas.items.gutters import SEGS
from fabricviz.ui.canvas.items.rack_routes import BELOW, FRAME_PAD
from tests.ui.canvas.test_semantic_zoom import open_canvas


@pytest.fixture(scope="module")
def gb200():
    return nvl72(racks=8, system="gb200")


def _inside(seg: np.ndarray, r) -> np.ndarray:
    """Segments ([4, n], axis-parallel) with a part strictly inside rectangle ``r`` (x0, y0, x1, y1)."""
    x0, x1 = np.minimum(seg[0], seg[2]), np.maximum(seg[0], seg[2])
    y0, y1 = np.minimum(seg[1], seg[3]), np.maximum(seg[1], seg[3])
    return (x1 > r[0] + 1e-6) & (x0 < r[2] - 1e-6) & (y1 > r[1] + 1e-6) & (y0 < r[3] - 1e-6)


def test_cables_enter_a_rack_only_down_their_trays_gap(gb200):
    f = gb200
    routes = routes_for(f)
    seg, owner = routes.seg, routes.owner()
    ct, pt = f.cables_t, f.ports_t
    ta = top_devices(f, pt.device[ct.port_a[owner].astype(np.int64)])
    tb = top_devices(f, pt.device[ct.port_b[owner].astype(np.int64)])
    ax, ay, bx, by = cable_anchors(f, owner)
    domains = [d for d in nvlink_domains(f) if d.explicit]
    assert len(domains) == 8 and routes.ids.size == 1152
    inside_total = 0
    for d in domains:
        trays = d.servers
        r = device_rects(f, trays)
        frame = (r[0].min() - FRAME_PAD, r[1].min() - FRAME_PAD, r[2].max() + FRAME_PAD, r[3].max() + FRAME_PAD)
        below = (frame[0], frame[3], frame[2], frame[3] + BELOW)
        assert not _inside(seg, below).any()                    # the switch trays' and labels' room
        hit = np.flatnonzero(_inside(seg, frame))
        inside_total += len(hit)
        # every segment inside the frame is a tray's own: at its NIC's height, or down the gap at its left
        tray = np.where(np.isin(ta[hit], trays), ta[hit], tb[hit])
        assert np.isin(tray, trays).all()
        at_a = ta[hit] == tray
        nic_x, nic_y = np.where(at_a, ax[hit], bx[hit]), np.where(at_a, ay[hit], by[hit])
        tr = r[:, np.argsort(trays)][:, np.searchsorted(np.sort(trays), tray)]
        s = seg[:, hit]
        vertical = s[0] == s[2]
        in_gap = vertical & (s[0] > tr[0] - 8.0) & (s[0] < tr[0]) & (np.maximum(s[1], s[3]) <= nic_y + 1e-6)
        into_nic = (s[1] == s[3]) & np.isclose(s[1], nic_y) & (np.minimum(s[0], s[2]) > tr[0] - 8.0) \
            & (np.maximum(s[0], s[2]) <= nic_x + 1e-6)
        assert (in_gap | into_nic).all(), s[:, ~(in_gap | into_nic)].T[:5]
    assert inside_total == 8 * 72 * 2                          # 576 cables: down the gap, into the NIC
    assert seg.shape[1] == SEGS * 1152


@pytest.mark.gui
def test_an_open_racks_labels_sit_in_the_kept_room(qtbot, gb200):
    view, scene, _ = open_canvas(qtbot, gb200)
    layer = scene.nvlink
    layer.toggle("rack01")
    QtWidgets.QApplication.processEvents()
    frame = layer.blocks["rack01"].rect()
    xs, ys, texts, _ = scene.label_layer._extra
    mine = [(y, t) for y, t in zip(ys, texts, strict=True) if t.startswith(("rack01:", "18 compute", "1,296"))]
    assert [t[:14] for _, t in mine] == ["rack01: NVIDIA", "18 compute tra", "1,296 NVLink 5"]
    trays_bottom = max(i.rect().bottom() for i in layer.extras if type(i) is QtWidgets.QGraphicsRectItem)
    assert all(trays_bottom < y < frame.bottom() + BELOW - 8.0 for y, _ in mine)
