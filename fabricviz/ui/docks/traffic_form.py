"""The Traffic dock's run controls: workload, model (and the RoCE congestion control), routing
and SM engine, duration and seed, partition, service level and transport.

:class:`TrafficForm` is a widget the :class:`~fabricviz.ui.docks.traffic.TrafficDock` holds
(``dock.form``): it reads its fields as a :class:`~fabricviz.ui.document.traffic_choice.RunChoice`
(:meth:`~TrafficForm.choice`), sets them from ``configure`` keywords (scripts, lessons, tests)
and gives them back (:meth:`~TrafficForm.controls`), and keeps the design-dependent pickers in
step with the design. ``route_changed`` fires when the user changes routing or engine (not when
:meth:`~TrafficForm.configure` does): the dock re-runs the run on show with the new choice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6 import QtCore, QtWidgets

from fabricviz.model import Fabric, FabricError
from fabricviz.sim.reach import fabric_tech
from fabricviz.sim.units import parse_duration
from fabricviz.ui.docks.traffic_partition import PartitionPicker
from fabricviz.ui.docks.traffic_sl import SlPicker
from fabricviz.ui.docks.traffic_transport import CcPicker, TransportPicker
from fabricviz.ui.document.traffic_choice import IB_ENGINES, ROUTINGS, WORKLOADS, RunChoice


class TrafficForm(QtWidgets.QWidget):
    """The run's controls as a form; ``fabric()`` is the design they are for."""

    route_changed = QtCore.Signal()           # the user changed routing or engine

    def __init__(self, fabric: Callable[[], Fabric], parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.fabric = fabric
        self._quiet = False                   # set by configure: no route_changed
        form = QtWidgets.QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QtWidgets.QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        row = QtWidgets.QHBoxLayout()
        self.workload_box = self._combo("traffic_workload", WORKLOADS)
        self.workload_box.setToolTip("ring all-reduce (NCCL ring), all-to-all, random permutation, "
                                     "shift by K ranks, N-to-1 incast")
        self.arg_edit = QtWidgets.QLineEdit(self)
        self.arg_edit.setObjectName("traffic_arg")
        self.arg_edit.setPlaceholderText("arg: N, K, size")
        self.arg_edit.setToolTip("incast: senders (8); shift: K; ring/alltoall: size (1GB); "
                                 "permutation: its seed")
        row.addWidget(self.workload_box, 2)
        row.addWidget(self.arg_edit, 1)
        form.addRow("Workload", row)
        self.model_box = self._combo("traffic_model", ("maxmin", "fluid"))
        self.model_box.setToolTip("maxmin: steady-state fair shares (one frame); fluid: queues, "
                                  "PFC/credits and DCQCN over time (many frames)")
        self.cc_box = CcPicker(self)          # RoCE: the fluid model's congestion control, beside it
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.model_box)
        row.addWidget(self.cc_box)
        form.addRow("Model", row)
        row = QtWidgets.QHBoxLayout()
        self.routing_box = self._combo("traffic_routing", ROUTINGS)
        self.routing_box.setToolTip("default: static on InfiniBand, ecmp on RoCE; changing it "
                                    "re-runs the shown run with the new routing")
        self.engine_box = self._combo("traffic_engine", IB_ENGINES)
        self.engine_box.setToolTip("InfiniBand static routes: the subnet manager engine's LFTs "
                                   "(dmodk: the built-in D-mod-k walk)")
        self.routing_box.currentIndexChanged.connect(self._route_edited)
        self.routing_box.currentIndexChanged.connect(lambda _i: self._offer_engine())
        self.engine_box.currentIndexChanged.connect(self._route_edited)
        row.addWidget(self.routing_box)
        row.addWidget(self.engine_box)
        form.addRow("Routing", row)
        row = QtWidgets.QHBoxLayout()
        self.duration_edit = QtWidgets.QLineEdit("2ms", self)
        self.duration_edit.setObjectName("traffic_duration")
        self.duration_edit.setToolTip("fluid run length: 10ms, 250us, 0.5s (1us to 1s)")
        self.seed_box = QtWidgets.QSpinBox(self)
        self.seed_box.setObjectName("traffic_seed")
        self.seed_box.setRange(0, 2**31 - 1)
        row.addWidget(self.duration_edit)
        row.addWidget(QtWidgets.QLabel("seed", self))
        row.addWidget(self.seed_box)
        form.addRow("Duration", row)
        self.partition_box = PartitionPicker(self)
        form.addRow("Partition", self.partition_box)
        self.partition_box.label = form.labelForField(self.partition_box)
        self.partition_box.refresh(fabric())
        self.sl_box = SlPicker(self)
        form.addRow("Service level", self.sl_box)
        self.sl_box.label = form.labelForField(self.sl_box)
        self.transport_box = TransportPicker(self)
        form.addRow("Transport", self.transport_box)
        self.model_box.currentIndexChanged.connect(lambda: self.cc_box.refresh(None, self.model_box.currentText()))
        self.refresh()

    def _combo(self, name: str, items: tuple[str, ...]) -> QtWidgets.QComboBox:
        box = QtWidgets.QComboBox(self)
        box.setObjectName(name)
        box.addItems(list(items))
        return box

    def _route_edited(self) -> None:
        if not self._quiet:
            self.route_changed.emit()

    def refresh(self) -> None:
        """The design-dependent choices follow the design (partitions, SLs, transport, CC, the SM engine)."""
        for box in (self.partition_box, self.sl_box, self.transport_box):
            box.refresh(self.fabric())
        self.cc_box.refresh(self.fabric(), self.model_box.currentText())
        self._tech = fabric_tech(self.fabric())
        self._offer_engine()

    def _offer_engine(self) -> None:
        """The subnet manager's engine is offered on InfiniBand designs only (RoCE routes by ECMP
        or spraying: no SM, no LFTs), and can be picked only for the SM's static routes."""
        ib = getattr(self, "_tech", "ib") == "ib"
        self.engine_box.setVisible(ib)
        self.engine_box.setEnabled(ib and self.routing_box.currentText() in ("default", "static"))

    def spec(self) -> str:
        """The workload as ``simulate`` spells it (``incast:8``)."""
        arg = self.arg_edit.text().strip()
        return self.workload_box.currentText() + (f":{arg}" if arg else "")

    def choice(self) -> RunChoice:
        """The controls as a RunChoice (FabricError for a bad duration)."""
        model = self.model_box.currentText()     # max-min is one steady-state frame: duration unread
        duration = parse_duration(self.duration_edit.text()) if model == "fluid" else 10e-3
        return RunChoice(self.spec(), model, self.routing_box.currentText(), self.engine_box.currentText(),
                         duration, self.seed_box.value(), self.partition_box.value(), self.sl_box.value(),
                         self.transport_box.value(), self.cc_box.value())

    def configure(self, workload: str | None = None, arg: str | None = None, model: str | None = None,
                  routing: str | None = None, engine: str | None = None, duration: str | None = None,
                  seed: int | None = None, partition: str | None = None, sl: int | str | None = None,
                  transport: str | None = None, cc: str | None = None) -> None:
        """Set the controls without ``route_changed``; an unknown choice raises FabricError and
        changes nothing. ``partition``: a name of the design's ("": the Default); ``sl``: ``"sm"``
        (the SM's SLs) or 0..15; ``transport``: ``"default"`` (the NICs') or one of the design's
        technology; ``cc``: dcqcn | none (RoCE fluid runs)."""
        boxes = ((self.workload_box, workload, "workload"), (self.model_box, model, "model"),
                 (self.routing_box, routing, "routing"), (self.engine_box, engine, "engine"))
        for box, value, what in boxes:
            if value is not None and box.findText(value) < 0:
                raise FabricError(f"traffic {what} {value!r}: use "
                                  + ", ".join(box.itemText(k) for k in range(box.count())))
        if partition is not None:
            self.partition_box.refresh(self.fabric())
            if not self.partition_box.has(partition):
                self.partition_box.set_value(partition)          # raises, naming the choices
        sl_choice = self.sl_box.sl_of(sl) if sl is not None else None
        self.transport_box.normal(transport)
        self.cc_box.normal(cc)
        was, self._quiet = self._quiet, True
        try:
            for box, value, _ in boxes:
                if value is not None:
                    box.setCurrentIndex(box.findText(value))
            if arg is not None:
                self.arg_edit.setText(arg)
            if duration is not None:
                self.duration_edit.setText(duration)
            if seed is not None:
                self.seed_box.setValue(int(seed))
            if partition is not None:
                self.partition_box.set_value(partition)
            if sl is not None:
                self.sl_box.set_value(sl_choice)
            if transport is not None:
                self.transport_box.set_value(transport)
            if cc is not None:
                self.cc_box.set_value(cc)
        finally:
            self._quiet = was

    def controls(self) -> dict[str, Any]:
        """The controls as ``configure``'s keywords."""
        return {"workload": self.workload_box.currentText(), "arg": self.arg_edit.text(),
                "model": self.model_box.currentText(), "routing": self.routing_box.currentText(),
                "engine": self.engine_box.currentText(), "duration": self.duration_edit.text(),
                "seed": self.seed_box.value(), "partition": self.partition_box.value(), "sl": self.sl_box.choice(),
                "transport": self.transport_box.value() or "default", "cc": self.cc_box.currentData()}

    def restore(self, own: dict[str, Any]) -> None:
        """Set the user's own ``controls()`` back (after a lesson's run), but a partition or a
        transport this design does not have."""
        self.partition_box.refresh(self.fabric())
        self.transport_box.refresh(self.fabric())
        if not self.partition_box.has(own.get("partition", "")):
            own.pop("partition")                 # the user's partition is not in this design
        if not self.transport_box.fits(own.get("transport")):
            own.pop("transport")                 # the other technology's transport
        self.configure(**own)


__all__ = ["TrafficForm"]
