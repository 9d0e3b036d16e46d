"""The generator dialog's NVL72 tab: GB200/GB300 NVL72 racks on a rail-optimised leaf/spine
(:mod:`fabricviz.generate.nvl72`); the preview is the generator's own plan, so the tab refuses
exactly what ``fabricviz generate nvl72`` refuses."""

from __future__ import annotations

from PySide6 import QtWidgets

from fabricviz.generate.nvl72 import NVL72_SYSTEMS, nvl72, nvl72_system, partitions_meta, plan_nvl72
from fabricviz.model import Catalog, Fabric, FabricError
from fabricviz.model.nvlink import nvlink_specs
from fabricviz.ui.canvas.describe import part_label


class Nvl72Tab(QtWidgets.QWidget):
    """System, racks, fabric and NVLink partition size (0: none)."""

    def __init__(self, catalog: Catalog, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        form = QtWidgets.QFormLayout(self)
        self.system = QtWidgets.QComboBox()
        self.system.addItems(list(NVL72_SYSTEMS))
        self.system.setObjectName("nv_system")
        self.racks = QtWidgets.QSpinBox()
        self.racks.setRange(1, 512)
        self.racks.setObjectName("nv_racks")
        self.fabric = QtWidgets.QComboBox()
        self.fabric.addItems(["ib", "roce"])
        self.fabric.setObjectName("nv_fabric")
        self.partition = QtWidgets.QSpinBox()
        self.partition.setRange(0, 72)
        self.partition.setSingleStep(4)
        self.partition.setSpecialValueText("none")
        self.partition.setObjectName("nv_partition")
        for label, w in (("System", self.system), ("Racks", self.racks), ("Fabric", self.fabric),
                         ("GPUs per NVLink partition", self.partition)):
            form.addRow(label, w)

    def preview(self) -> str:
        """What OK builds, from the generator's plan; raises FabricError where it would refuse."""
        sys = nvl72_system(self.system.currentText())
        fabric = self.fabric.currentText()
        if fabric not in sys.switch:
            raise FabricError(f"Fabric {fabric}: use {' or '.join(sys.switch)}")
        sw = self.catalog.get(sys.switch[fabric])
        rack = nvlink_specs()[sys.domain]
        tray = self.catalog.get(str(rack.tray_part))
        p = plan_nvl72(sys.key, self.racks.value(), sw.ports, tray.nics)
        k = self.partition.value()
        if k:
            partitions_meta([], rack.gpus, rack.gpus_per_tray, k)
        c = p.cables
        return (f"{p.racks:,} racks · {p.trays:,} compute trays · {p.gpus:,} GPUs · {p.leaves:,} leaves · "
                f"{p.spines:,} spines" + (f" in {p.groups} groups" if p.groups > 1 else "") + f" ({part_label(sw)})"
                + (f" · {rack.gpus // k} NVLink partitions per rack" if k else "")
                + f" · cables tray–leaf {c['node-leaf']:,}, leaf–spine {c['leaf-spine']:,}")

    def build(self) -> Fabric:
        return nvl72(self.racks.value(), self.system.currentText(), fabric=self.fabric.currentText(),
                     partition=self.partition.value() or None, catalog=self.catalog)


__all__ = ["Nvl72Tab"]
