"""The Traffic dock runs in an InfiniBand partition on a multi-plane design: every plane is its own
subnet with the design's partitions, so the run goes per plane inside the partition and is merged
(design and numbers: tests/sim/test_plane_partitions.py)."""

from __future__ import annotations

import numpy as np
from PySide6 import QtWidgets

from fabricviz.sim.plane_merge import PlaneRun
from tests.sim.test_plane_partitions import planes_partitioned

WAIT = 60_000                # a generous deadline: only a hang waits this long


def test_a_partition_run_on_two_planes_goes_per_plane(make_window, qtbot):
    w = make_window()
    dock = w.traffic_dock
    w.apply_generated(planes_partitioned())
    QtWidgets.QApplication.processEvents()
    box = dock.form.partition_box
    assert [box.itemText(i) for i in range(box.count())] == ["Default (0x7fff)", "storage (0x8002)"]
    assert box.isVisibleTo(dock)
    dock.configure(workload="alltoall", arg="", model="maxmin", partition="storage")
    with qtbot.waitSignal(dock.result_ready, timeout=WAIT):
        assert dock.run()
    qtbot.waitUntil(lambda: not dock.running, timeout=WAIT)
    assert dock.error is None, dock.error
    res = dock.result
    assert isinstance(res, PlaneRun) and res.partition == "storage (0x8002)"
    assert len(res.flows) == 4 and len(res.refused) == 2
    assert np.round(res.flow_rates(), 3).tolist() == [220.0] * 4
    assert [dock.planes.box.itemText(i) for i in range(3)] == ["all planes", "plane1", "plane2"]
    text = dock.status.text()
    assert "2 flows refused by the partition: node02/gpu0 → node03/gpu0 (both limited members of storage (0x8002))" \
        in text
    assert "2 planes merged (mean Gb/s per flow: plane1 110.0, plane2 110.0)" in text
    assert "29 hosts unreachable, left out of the run" in text and "(not in partition storage (0x8002))" in text
    dock.planes.set_plane(1)                     # plane 2 alone: its own subnet's run in the partition
    QtWidgets.QApplication.processEvents()
    assert "showing plane2 alone (its own subnet's run)" in dock.status.text()
