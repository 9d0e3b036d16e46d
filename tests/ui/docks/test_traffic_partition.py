"""The Traffic dock runs in an InfiniBand partition the design carries (P_Key rules)."""

from __future__ import annotations

import pytest
from PySide6 import QtWidgets

from fabricviz.generate import leaf_spine
from tests.ui.partition_helpers import partitioned as _partitioned

WAIT = 60_000                # a generous deadline: only a hang waits this long


@pytest.fixture
def window(make_window):
    return make_window()


def test_partition_choice_shown_only_for_partitioned_ib_designs(window, qtbot):
    dock = window.traffic_dock
    box = dock.form.partition_box
    window.apply_generated(leaf_spine(2, 1, 2))
    QtWidgets.QApplication.processEvents()
    assert box.count() == 0 and not box.isVisibleTo(dock) and not box.label.isVisibleTo(dock)
    assert dock.form.choice().partition == ""
    window.apply_generated(_partitioned())
    QtWidgets.QApplication.processEvents()
    assert [box.itemText(i) for i in range(box.count())] == ["Default (0x7fff)", "storage (0x8002)"]
    assert box.isVisibleTo(dock) and box.label.isVisibleTo(dock)


def test_run_in_storage_refuses_the_limited_pair_and_says_so(window, qtbot):
    dock = window.traffic_dock
    window.apply_generated(_partitioned())
    QtWidgets.QApplication.processEvents()
    dock.configure(workload="alltoall")
    dock.form.partition_box.set_value("storage")
    with qtbot.waitSignal(dock.result_ready, timeout=WAIT):
        assert dock.run()
    qtbot.waitUntil(lambda: not dock.running, timeout=WAIT)
    res = dock.result
    assert res.partition == "storage (0x8002)"
    assert len(res.flows) == 4 and len(res.refused) == 2           # 3 members: 6 pairs, node02↔node03 refused
    text = dock.status.text()
    assert "2 flows refused by the partition: node02/gpu0 → node03/gpu0 (both limited members of storage (0x8002))" \
        in text
    assert "13 hosts unreachable, left out of the run" in text and "(not in partition storage (0x8002))" in text
