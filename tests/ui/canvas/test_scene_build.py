"""Building the canvas for a whole design at once (FabricScene._add_devices): GPUs and NICs sit
where the model has them, and each server's frame wraps them exactly as _fit_server does."""

from __future__ import annotations

from fabricviz.generate import fat_tree
from fabricviz.ui.canvas.scene import FabricScene


def _frames(scene: FabricScene, ids) -> list[tuple[float, float, float, float]]:
    return [scene.items_by_id[d].rect().getRect() for d in ids]


def test_children_sit_where_the_model_has_them_and_frames_wrap_them(qtbot):
    f = fat_tree(levels=2, radix=8, hosts=32, servers="dgx")      # 4 DGX: 8 GPUs, 8 NICs each
    f.add_servers("DGX-H100", ["late"], [500.0], [77.25])         # added after the layout
    scene = FabricScene()
    scene.set_fabric(f)
    t = f.devices_t
    kids = [int(d) for d in f.device_ids(("gpu", "nic"))]
    assert len(kids) == 80
    for d in kids:
        pos = scene.items_by_id[d].scenePos()
        assert (pos.x(), pos.y()) == (float(t.x[d]), float(t.y[d]))
        assert scene.items_by_id[d].parentItem() is scene.items_by_id[int(t.parent[d])]
    servers = [int(d) for d in f.device_ids("server")]
    built = _frames(scene, servers)
    # the DGX's 8 GPUs (y + 20) and 8 NICs (y - 20) at a 24-unit pitch, 18×12 each, margin 4
    assert built[-1] == (-84.0 - 9 - 4, -20.0 - 6 - 4, 168 + 18 + 8, 40 + 12 + 8)
    for s in servers:
        scene._fit_server(s)
    assert _frames(scene, servers) == built


def test_children_added_to_a_server_on_the_canvas_refit_its_frame(qtbot):
    f = fat_tree(levels=2, radix=4, hosts=2)
    scene = FabricScene()
    scene.set_fabric(f)
    s = int(f.device_ids("server")[0])
    before = _frames(scene, [s])[0]
    x, y = float(f.devices_t.x[s]), float(f.devices_t.y[s])
    f.add_devices("gpu", 2, "H100-SXM5", None, [x + 100.0, x + 130.0], [y, y], parents=[s, s],
                  locals_=[7, 8])                                 # one bulk event, two children
    after = _frames(scene, [s])[0]
    assert after[0] == before[0] and after[0] + after[2] == 130.0 + 9 + 4
