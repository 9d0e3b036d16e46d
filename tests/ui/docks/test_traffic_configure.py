"""The Traffic dock's configure() sets the Partition and Service level pickers too (scripts, lessons):
names or labels, "sm" or an SL; an unknown choice raises and changes nothing; controls() round-trips."""

from __future__ import annotations

import pytest
from PySide6 import QtWidgets

from fabricviz.formats.partitions_conf import loads as conf_loads
from fabricviz.generate import k_ary_fat_tree, leaf_spine
from fabricviz.ib.partitions import to_meta
from fabricviz.model import FabricError


def _partitioned():
    f = k_ary_fat_tree(4)
    f.meta["partitions"] = to_meta(conf_loads("Default=0x7fff : ALL=full ;\nstorage=0x8002 : ALL=full ;\n", "p"))
    return f


def test_configure_sets_partition_and_sl_and_controls_round_trip(make_window):
    w = make_window()
    dock = w.traffic_dock
    w.apply_generated(_partitioned())
    QtWidgets.QApplication.processEvents()
    dock.configure(workload="alltoall", partition="storage", sl=5)
    assert dock.form.partition_box.value() == "storage" and dock.form.sl_box.value() == 5
    assert dock.form.choice().partition == "storage"
    got = dock.form.controls()
    assert got["partition"] == "storage" and got["sl"] == 5
    dock.configure(partition="storage (0x8002)", sl="sm")          # the label a run reports; the SM's SLs
    assert dock.form.partition_box.value() == "storage" and dock.form.sl_box.value() is None
    dock.configure(partition="", sl="SL 2")                          # the Default partition
    assert dock.form.partition_box.currentText() == "Default (0x7fff)" and dock.form.sl_box.value() == 2
    dock.configure(**got)
    assert dock.form.controls() == got
    for bad in ({"partition": "compute"}, {"sl": 16}, {"sl": "gold"}, {"workload": "alltoall", "partition": "x"}):
        with pytest.raises(FabricError):
            dock.configure(**{"model": "fluid", **bad})
        assert dock.form.controls() == got                                # nothing changed


def test_no_partitions_default_is_accepted(make_window):
    w = make_window()
    dock = w.traffic_dock
    w.apply_generated(leaf_spine(2, 1, 2))
    QtWidgets.QApplication.processEvents()
    dock.configure(partition="")
    assert dock.form.partition_box.count() == 0 and dock.form.controls()["partition"] == ""
    with pytest.raises(FabricError, match="traffic partition 'storage'"):
        dock.configure(partition="storage")
