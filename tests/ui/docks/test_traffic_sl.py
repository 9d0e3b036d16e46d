"""The Traffic dock's service level: the SM's path SLs (dfsssp on a torus) or one SL for all."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtWidgets

from fabricviz.generate import leaf_spine
from fabricviz.generate.direct import torus
from fabricviz.ib.routing import route
from fabricviz.ui.docks.traffic_sl import FROM_SM

WAIT = 60_000                # a generous deadline: only a hang waits this long


@pytest.fixture
def window(make_window):
    return make_window()


def _run(dock, qtbot):
    with qtbot.waitSignal(dock.result_ready, timeout=WAIT):
        assert dock.run()
    qtbot.waitUntil(lambda: not dock.running, timeout=WAIT)
    return dock.result


def test_sl_choice_only_on_infiniband(window):
    dock = window.traffic_dock
    box = dock.form.sl_box
    assert [box.itemText(i) for i in range(3)] == [FROM_SM, "SL 0", "SL 1"] and box.count() == 17
    window.apply_generated(leaf_spine(2, 1, 2))
    QtWidgets.QApplication.processEvents()
    assert not box.isVisibleTo(dock) and not box.label.isVisibleTo(dock) and dock.form.choice().sl is None
    window.apply_generated(torus((4, 4)))
    QtWidgets.QApplication.processEvents()
    assert box.isVisibleTo(dock) and box.label.isVisibleTo(dock)


def test_dfsssp_paths_keep_their_sl_unless_one_is_chosen(window, qtbot):
    dock = window.traffic_dock
    f = torus((4, 4))
    window.apply_generated(f)
    QtWidgets.QApplication.processEvents()
    dock.configure(workload="alltoall", engine="dfsssp")
    res = _run(dock, qtbot)
    fv = res.flow_vl
    assert fv.source == "path"
    # every flow on the SL the SM's dfsssp gives its path (the SA's answer)
    r = route(window.document.fabric, "dfsssp")
    psl = r.info.path_sl
    lid = {int(d): int(l) for d, l in zip(r.subnet.fabric.ports_t.device[r.subnet.ca_ports].tolist(),
                                           r.lids.ca_lid.tolist(), strict=True)}
    fab = window.document.fabric
    host_of = lambda nic: int(fab.devices_t.parent[nic]) if int(fab.devices_t.parent[nic]) >= 0 else nic  # noqa: E731
    by_host = {host_of(d): l for d, l in lid.items()}
    want = psl.sls(np.array([by_host[host_of(int(s))] for s in res.flows.src]),
                   np.array([by_host[host_of(int(d))] for d in res.flows.dst]))
    assert np.array_equal(np.asarray(fv.sl, np.int64), want)
    sls = sorted(set(want.tolist()))
    assert len(sls) > 1
    assert f" · SLs {', '.join(map(str, sls))} on " in dock.status.text()
    assert "(the SM's path SLs)" in dock.status.text()
    dock.form.sl_box.set_value(2)
    res = _run(dock, qtbot)
    assert res.flow_vl.source == "flows" and set(np.asarray(res.flow_vl.sl).tolist()) == {2}
    assert " · SL" not in dock.status.text()              # one class: nothing to say
