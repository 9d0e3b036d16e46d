"""NVL72 racks' scale-out cables at near zoom (fabricviz.ui.canvas.items.rack_routes, issue 29): a
rack's trays route as one device, so no cable runs through a rack other than a tray's own cables
down the gap at the tray's left and across into its NIC, and none through the room under the frame
that holds an opened rack's switch trays and labels. A host block in two rows or more (a 3-level
fat tree's leaf of 2 × 4 servers) routes the same way: no lane along its name rows or between its
servers on the way to another row."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtWidgets

from fabricviz.generate import k_ary_fat_tree
from fabricviz.generate.geometry import device_rects
from fabricviz.generate.groups import find_groups
from fabricviz.generate.nvl72 import nvl72
from fabricviz.model.nvlink import nvlink_domains
from fabricviz.ui.canvas.items.cables import cable_anchors, routes_for, top_devices
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


def _inside_only_own_gap(f, groups, pad: float, below: float = 0.0) -> int:
    """Segments of the near routes of ``f`` inside each of ``groups`` (arrays of servers, padded by
    ``pad``), each checked to be its server's own (down the gap at its left, or across into its NIC)."""
    routes = routes_for(f)
    seg, owner = routes.seg, routes.owner()
    ct, pt = f.cables_t, f.ports_t
    ta = top_devices(f, pt.device[ct.port_a[owner].astype(np.int64)])
    tb = top_devices(f, pt.device[ct.port_b[owner].astype(np.int64)])
    ax, ay, bx, by = cable_anchors(f, owner)
    total = 0
    for servers in groups:
        servers = np.sort(servers)
        r = device_rects(f, servers)
        frame = (r[0].min() - pad, r[1].min() - pad, r[2].max() + pad, r[3].max() + pad)
        if below:
            assert not _inside(seg, (frame[0], frame[3], frame[2], frame[3] + below)).any()  # the labels' room
        hit = np.flatnonzero(_inside(seg, frame))
        total += len(hit)
        srv = np.where(np.isin(ta[hit], servers), ta[hit], tb[hit])
        assert np.isin(srv, servers).all()
        at_a = ta[hit] == srv
        nic_x, nic_y = np.where(at_a, ax[hit], bx[hit]), np.where(at_a, ay[hit], by[hit])
        left = r[0, np.searchsorted(servers, srv)]
        s = seg[:, hit]
        in_gap = (s[0] == s[2]) & (s[0] > left - 8.0) & (s[0] < left) & (np.maximum(s[1], s[3]) <= nic_y + 1e-6)
        into_nic = (s[1] == s[3]) & np.isclose(s[1], nic_y) & (np.minimum(s[0], s[2]) > left - 8.0) \
            & (np.maximum(s[0], s[2]) <= nic_x + 1e-6)
        assert (in_gap | into_nic).all(), s[:, ~(in_gap | into_nic)].T[:5]
    return total


def test_cables_enter_a_rack_only_down_their_trays_gap(gb200):
    domains = [d for d in nvlink_domains(gb200) if d.explicit]
    assert len(domains) == 8 and routes_for(gb200).ids.size == 1152
    inside = _inside_only_own_gap(gb200, [d.servers for d in domains], FRAME_PAD, BELOW)
    assert inside == 8 * 72 * 2                          # 576 cables: down the gap, into the NIC


def test_cables_enter_a_two_row_host_block_only_down_their_servers_gap():
    f = k_ary_fat_tree(16)
    g = find_groups(f)
    top = np.flatnonzero(f.devices_t.alive & (f.devices_t.parent < 0) & (g.block >= 0))
    blocks = [top[g.block[top] == b] for b in range(g.n_blocks)]
    assert len(blocks) == 128 and {len(b) for b in blocks} == {8}
    inside = _inside_only_own_gap(f, blocks, 0.0)
    # each server's cable across into its NIC (1,024), and down the gap at its left but in the first
    # column, whose gap is left of the block (1,024 - 128 blocks × 2 rows)
    assert inside == 1024 + 1024 - 256


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
