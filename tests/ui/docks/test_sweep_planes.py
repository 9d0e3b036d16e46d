"""The Subnet Manager dock on a multi-plane design: a Plane box, and each plane swept by its own SM
(its switches only, the NIC ports of that plane)."""

from __future__ import annotations

from fabricviz.generate import fat_tree

WAIT = 60_000


def test_each_plane_is_swept_by_its_own_sm(sweep_window, qtbot):
    w, d = sweep_window
    assert not d.plane_box.isVisibleTo(d)                      # the demo has one plane
    f = fat_tree(radix=8, planes=2)
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        w.editor.set_fabric(f)
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        d.recompute()
    box = d.plane_box
    assert box.isVisibleTo(d) and [box.itemText(i) for i in range(box.count())] == ["plane1", "plane2"]
    sn = d.timeline.sweep.routing.subnet
    names = {w.editor.fabric.name_of(int(s)) for s in sn.switches.tolist()}
    assert len(names) == 12 and all(n.endswith("-p1") for n in names)
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        box.setCurrentIndex(1)
    sn = d.timeline.sweep.routing.subnet
    assert {w.editor.fabric.name_of(int(s)) for s in sn.switches.tolist()} == {n[:-1] + "2" for n in names}
    assert w.editor.fabric.port_name(int(sn.sm_port)) == "node01/mlx5_0:2"
    assert len(sn.ca_ports) == 32
