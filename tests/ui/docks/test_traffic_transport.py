"""Traffic dock: the Transport and Congestion choices (``simulate --transport`` / ``--cc``), and the
InfiniBand vs RoCE comparison's transport row.

Expected numbers are those of ``fabricviz simulate`` on the same design saved to a file (its
``--json`` summary) and of ``run_workload``, the engine call both make. On the 16-host radix-8 RoCE
fat tree with ConnectX-7 NICs (out-of-order placement: the default costs nothing) a permutation
under adaptive routing gets 6,400 Gb/s; asking for go-back-N it resends 37 % of what it delivers
and gets 4,668.4 Gb/s (max-min). An 4:1 incast without DCQCN (PFC only) pauses 8 links in 0.2 ms.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate import fat_tree
from fabricviz.model import FabricError
from fabricviz.model.fabric import KIND_CODE
from fabricviz.sim.compare import compare_techs, format_comparison, run_workload
from fabricviz.sim.reach import host_reach
from fabricviz.sim.units import ParamError
from fabricviz.sim.workloads import make_workload
from fabricviz.ui.dialogs.compare import TechCompareWindow
from fabricviz.ui.docks.traffic import TrafficDock
from fabricviz.ui.docks.traffic_transport import TRANSPORT_TIPS
from fabricviz.ui.document.document import Document

WAIT = 60_000                # a generous deadline: only a hang waits this long
NAMES = ["InfiniBand", "RoCE go-back-N", "RoCE out-of-order placement", "EQDS: spraying + trimming",
         "NDP: spraying + trimming, windowed", "HPCC over lossless ECMP"]


def ib_tree():
    return fat_tree(2, 8, hosts=16)


def cx7_tree():
    return fat_tree(2, 8, fabric="roce", hosts=16)                                   # 400GbE: ConnectX-7


def cx6_tree():
    return fat_tree(2, 8, fabric="roce", speed="100GbE", switch="SN4700", hosts=16)  # ConnectX-6


def nic_parts(f):
    t = f.devices_t
    return {f.part_id_of(int(d)) for d in np.flatnonzero(t.alive & (t.kind == KIND_CODE["nic"]))}


def make_dock(qtbot, f):
    dock = TrafficDock(Document(f))
    qtbot.addWidget(dock)
    return dock


def entries(dock):
    box = dock.form.transport_box
    return [box.itemText(k) for k in range(box.count())], [box.model().item(k).isEnabled() for k in range(box.count())]


def run(qtbot, dock, **controls):
    dock.configure(**controls)
    with qtbot.waitSignal(dock.result_ready, timeout=WAIT):
        assert dock.run()
    qtbot.waitUntil(lambda: not dock.running, timeout=WAIT)
    assert dock.error is None and dock.progress.value() == 100
    return dock.result


def cli_json(capsys, *args):
    assert main([str(a) for a in args]) == 0
    out, _ = capsys.readouterr()
    return json.loads(out)


def test_the_entries_follow_the_design_and_its_nic_parts(qtbot):
    ib, cx6, cx7 = ib_tree(), cx6_tree(), cx7_tree()
    assert (nic_parts(ib), nic_parts(cx6), nic_parts(cx7)) == ({"CX7-1P"}, {"CX6-HDR"}, {"CX7-1P"})
    assert (ib.catalog.get("CX6-HDR").ooo_placement, ib.catalog.get("CX7-1P").ooo_placement) == (False, True)
    dock = make_dock(qtbot, ib)
    box, cc = dock.form.transport_box, dock.form.cc_box
    assert entries(dock) == (["Default (NICs): InfiniBand", *NAMES], [True, True] + [False] * 5)
    tip = QtCore.Qt.ItemDataRole.ToolTipRole
    assert [box.itemData(k, tip) for k in (1, 2, 3)] == [TRANSPORT_TIPS[t] for t in ("ib", "roce-gbn", "roce-ooo")]
    assert box.value() is None and cc.isHidden()
    # the longest entry shows whole in the popup, but does not set the dock's width
    wide = max(box.fontMetrics().horizontalAdvance(n) for n in NAMES)
    assert box.sizeHint().width() < wide <= box.view().minimumWidth()

    dock.document.editor.set_fabric(cx6)                      # another design: the entries follow it
    assert entries(dock) == (["Default (NICs): RoCE go-back-N", *NAMES], [True, False] + [True] * 5)
    assert "go-back-N" in box.toolTip() and not cc.isHidden()
    assert not cc.isEnabled() and cc.value() is None          # max-min has no congestion control
    dock.configure(model="fluid", transport="roce-ooo")
    assert cc.isEnabled() and cc.value() == "dcqcn" and box.value() == "roce-ooo"
    dock.configure(cc="none")
    assert (dock.form.choice().transport, dock.form.choice().cc) == ("roce-ooo", "none")
    got = dock.form.controls()
    assert (got["transport"], got["cc"]) == ("roce-ooo", "none")
    for bad in ({"transport": "ib"}, {"transport": "tcp"}, {"cc": "timely"}, {"workload": "ring", "transport": "ib"}):
        with pytest.raises(FabricError):
            dock.configure(**bad)
        assert dock.form.controls() == got                         # nothing changed

    dock.document.editor.set_fabric(cx7)                      # RoCE again: the choice stays
    assert entries(dock)[0][0] == "Default (NICs): RoCE out-of-order" and box.value() == "roce-ooo"
    dock.document.editor.set_fabric(ib)                       # InfiniBand: back to the NICs' default
    assert box.currentIndex() == 0 and box.value() is None and cc.isHidden() and dock.form.choice().cc is None


def test_go_back_n_under_adaptive_routing_runs_the_cli_numbers(qtbot, tmp_path, capsys):
    f = cx7_tree()
    path = tmp_path / "ft.json"
    save_fabric(f, path)
    dock = make_dock(qtbot, f)
    res = run(qtbot, dock, workload="permutation", arg="", model="maxmin", routing="adaptive", seed=0,
              transport="roce-gbn")
    cli = cli_json(capsys, "simulate", path, "--workload", "permutation", "--routing", "adaptive",
                   "--transport", "roce-gbn", "--json")
    assert json.loads(json.dumps(res.summary(f))) == cli
    flows = make_workload(f, "permutation", seed=0, reach=host_reach(f))
    direct = run_workload(f, flows, "maxmin", 10e-3, 0, "adaptive", transport="roce-gbn")
    np.testing.assert_array_equal(res.flow_rates(), direct.flow_rates())
    np.testing.assert_array_equal(res.transport.eta, direct.transport.eta)
    assert cli["transport"] == "roce-gbn" and cli["rate_gbps"]["total"] == pytest.approx(4668.3677, abs=1e-3)
    assert cli["reorder_retransmit_gbps"] / cli["rate_gbps"]["total"] == pytest.approx(0.3709, abs=1e-4)
    assert dock.status.text().endswith(" · transport: RoCE go-back-N — adaptive routing resends 37 % of "
                                       "what it delivers")

    res = run(qtbot, dock, transport="default")              # the NICs' own: out-of-order placement
    assert res.summary(f) == run_workload(f, flows, "maxmin", 10e-3, 0, "adaptive").summary(f)
    assert res.summary(f)["rate_gbps"]["total"] == pytest.approx(6400.0)
    assert dock.status.text().endswith(" · transport: RoCE out-of-order placement — reordered packets cost nothing")
    assert dock.runs_started == 2


def test_congestion_control_none_runs_as_simulate_cc_none(qtbot, tmp_path, capsys):
    f = cx7_tree()
    path = tmp_path / "ft.json"
    save_fabric(f, path)
    dock = make_dock(qtbot, f)
    res = run(qtbot, dock, workload="incast", arg="4", model="fluid", duration="0.2ms", cc="none")
    cli = cli_json(capsys, "simulate", path, "--workload", "incast:4", "--model", "fluid", "--duration", "0.2ms",
                   "--cc", "none", "--json")
    assert json.loads(json.dumps(res.summary(f))) == cli
    assert cli["paused_link_count"] == 4 and "dcqcn_preset" not in cli       # PFC alone holds the senders
    res = run(qtbot, dock, cc="dcqcn")
    s = res.summary(f)
    assert s["paused_link_count"] == 0 and s["dcqcn_preset"] == "nvidia"


def test_the_choice_is_each_documents_own_and_no_design_edit(qtbot):
    a, b = make_dock(qtbot, cx6_tree()), make_dock(qtbot, cx7_tree())
    rev = a.document.revision
    a.form.transport_box.setCurrentIndex(a.form.transport_box.findData("roce-ooo"))   # as the user picks it
    assert a.form.choice().transport == "roce-ooo" and b.form.choice().transport is None
    assert b.form.transport_box.currentIndex() == 0
    assert a.document.stack.count() == 0 and a.document.revision == rev       # not an undoable edit
    b.configure(transport="roce-gbn")
    assert a.form.transport_box.value() == "roce-ooo" and b.form.transport_box.value() == "roce-gbn"


def test_the_comparison_names_each_sides_transport(qtbot, tmp_path, capsys):
    ib = ib_tree()
    assert compare_techs(ib, "incast:4", "maxmin", 2e-3, 0).rows()[-1] == ("Transport", "ib", "roce-ooo", "–")
    assert compare_techs(cx6_tree(), "incast:4", "maxmin", 2e-3, 0, transport="ib").rows()[-1] == \
        ("Transport", "ib", "roce-gbn", "–")                  # the RoCE design's own NICs: go-back-N
    with pytest.raises(ParamError, match="transport 'tcp'"):
        compare_techs(ib, "incast:4", "maxmin", 2e-3, 0, transport="tcp")
    path = tmp_path / "ft.json"
    save_fabric(ib, path)
    d = cli_json(capsys, "compare-tech", path, "--workload", "incast:4", "--model", "maxmin", "--transport",
                 "roce-gbn", "--json")
    assert (d["ib"]["transport"], d["roce"]["transport"]) == ("ib", "roce-gbn")
    assert d["roce"]["summary"]["transport"] == "roce-gbn"
    c = compare_techs(ib, "incast:4", "maxmin", 2e-3, 0, transport="roce-gbn")
    assert main(["compare-tech", str(path), "--workload", "incast:4", "--model", "maxmin", "--transport", "roce-gbn"]) == 0
    out, _ = capsys.readouterr()
    assert out.rstrip("\n") == format_comparison(c)
    table = [line.split() for line in out.splitlines()]
    assert ["Transport", "ib", "roce-gbn", "–"] in table and table[3] == ["InfiniBand", "RoCE", "RoCE", "vs", "IB"]

    dlg = TechCompareWindow(Document(ib))
    qtbot.addWidget(dlg)
    dlg.workload_box.setCurrentText("incast")
    dlg.arg_edit.setText("4")
    dlg.model_box.setCurrentText("maxmin")
    dlg.transport_box.setCurrentIndex(dlg.transport_box.findData("roce-gbn"))
    with qtbot.waitSignal(dlg.compared, timeout=WAIT):
        assert dlg.run()
    last = dlg.table.rowCount() - 1
    assert last == 8 and dlg.table.verticalHeaderItem(last).text() == "Transport"
    role = QtCore.Qt.ItemDataRole.UserRole
    assert [dlg.table.item(last, j).text() for j in range(3)] == ["ib", "roce-gbn", "–"]
    assert [dlg.table.item(last, j).data(role) for j in range(3)] == ["ib", "roce-gbn", None]
    QtWidgets.QApplication.processEvents()


def test_eqds_runs_the_cli_numbers_with_its_own_routing(qtbot, tmp_path, capsys):
    """Receiver-driven spraying from the dock: the routing box's ECMP gives way to the transport's spray,
    and the numbers are simulate --transport eqds's."""
    f = cx6_tree()
    path = tmp_path / "ft.json"
    save_fabric(f, path)
    dock = make_dock(qtbot, f)
    res = run(qtbot, dock, workload="permutation", arg="", model="maxmin", routing="ecmp", seed=0, transport="eqds")
    cli = cli_json(capsys, "simulate", path, "--workload", "permutation", "--transport", "eqds", "--json")
    assert json.loads(json.dumps(res.summary(f))) == cli
    assert res.routing == "spray" and cli["transport_model"]["routing"] == "spray"
    assert " · transport: EQDS: spraying + trimming — spray routing, " in dock.status.text()
