"""Generator dialog: fat tree, leaf-spine, rail-optimized units, torus / ring, dragonfly, DGX SuperPOD,
NVL72 racks (:mod:`.generator_nvl72`), with live counts.

The fat tree preview is :func:`fabricviz.generate.plan_fat_tree` (and the LID
check), so the dialog refuses exactly what the generator refuses, inline, before
anything is built. ``result`` holds the built Fabric after OK.

The switch part is picked from the catalog's switches of the chosen technology
(InfiniBand for ``ib``, Ethernet for ``roce``), shown with their radix
("QM9700 — 64 × 400G"); the fat tree's radix follows the part, and a radix typed
picks the part with exactly that many ports, else "custom radix": a radix no
catalog part has becomes a hypothetical part
(a model of a real switch with that many ports, unpriced in the BOM). Refusals
are worded with the dialog's own field labels.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from fabricviz.generate import fat_tree, leaf_spine, plan_fat_tree, rail_optimized
from fabricviz.generate.common import check_lid_space, pick_switch, port_rate, tech_of
from fabricviz.generate.direct import (
    DragonflyPlan,
    TorusPlan,
    dragonfly,
    dragonfly_part,
    plan_dragonfly,
    plan_torus,
    torus,
    torus_part,
)
from fabricviz.generate.rail import NODES_PER_SU, RAILS
from fabricviz.generate.superpod import SYSTEMS, plan_superpod, plane_spec, superpod, switch_part
from fabricviz.model import Catalog, Fabric, FabricError, Part
from fabricviz.model.breakout import split_of
from fabricviz.model.catalog import CatalogError
from fabricviz.model.errors import ParamError
from fabricviz.model.tech import IB
from fabricviz.ui.canvas.describe import part_label
from fabricviz.ui.dialogs import generator_memory
from fabricviz.ui.dialogs.generator_nvl72 import Nvl72Tab
from fabricviz.ui.document.settings import settings as user_settings

#: The switch-part choice that lets the radix be typed (a hypothetical part when none fits).
CUSTOM_RADIX = "custom radix"
#: The leaf-spine choice that lets the generator pick by port count.
AUTO_PART = "automatic (by port count)"


def switch_label(part: Part) -> str:
    """``QM9700 — 64 × 400G``: the part and its radix at its port speed."""
    return f"{part_label(part)} — {part.ports} × {port_rate(part).gbps:g}G"


def switch_parts(catalog: Catalog, fabric: str) -> list[Part]:
    """The catalog's switches for a fabric technology (``ib``: InfiniBand, ``roce``: Ethernet),
    real parts only, fewest ports first."""
    kind = "ib_switch" if tech_of(fabric) == IB else "eth_switch"
    return sorted((p for p in catalog.by_kind(kind) if not p.hypothetical),
                  key=lambda p: (p.ports, port_rate(p).gbps, p.id))


def _spin(lo: int, hi: int, value: int, name: str) -> QtWidgets.QSpinBox:
    s = QtWidgets.QSpinBox()
    s.setRange(lo, hi)
    s.setValue(value)
    s.setObjectName(name)
    s.setGroupSeparatorShown(True)
    return s


def _combo(items: list[str], name: str) -> QtWidgets.QComboBox:
    c = QtWidgets.QComboBox()
    c.addItems(items)
    c.setObjectName(name)
    return c


class GeneratorDialog(QtWidgets.QDialog):
    """Choose a generator and its parameters; OK builds the fabric into ``result``."""

    # the torus and dragonfly tabs' fabric, switch and speed fields (made in a loop by _direct_tabs)
    to_fabric: QtWidgets.QComboBox
    to_switch: QtWidgets.QComboBox
    to_speed: QtWidgets.QLineEdit
    df_fabric: QtWidgets.QComboBox
    df_switch: QtWidgets.QComboBox
    df_speed: QtWidgets.QLineEdit

    def __init__(self, parent: QtWidgets.QWidget | None = None, catalog: Catalog | None = None,
                 settings: QtCore.QSettings | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog if catalog is not None else Catalog.default()
        self.settings = settings if settings is not None else user_settings()   # the last values generated
        self.setObjectName("generator_dialog")
        self.setWindowTitle("Generate fabric")
        self.result: Fabric | None = None  # type: ignore[assignment]  # shadows QDialog.result() (not virtual, never called)
        self.tabs = QtWidgets.QTabWidget(self)
        self.tabs.setObjectName("generator_tabs")
        # fat tree
        ft = QtWidgets.QWidget()
        form = QtWidgets.QFormLayout(ft)
        self.ft_levels = _spin(2, 3, 2, "ft_levels")
        self.ft_radix = _spin(4, 144, 64, "ft_radix")
        self.ft_radix.setSingleStep(2)
        self.ft_hosts = _spin(0, 10_000_000, 0, "ft_hosts")
        self.ft_hosts.setSpecialValueText("maximum")
        self.ft_blocking = QtWidgets.QLineEdit("1:1")
        self.ft_blocking.setObjectName("ft_blocking")
        self.ft_parallel = _spin(1, 64, 1, "ft_parallel")
        self.ft_fabric = _combo(["ib", "roce"], "ft_fabric")
        self.ft_servers = _combo(["node", "dgx"], "ft_servers")
        self.ft_switch = _combo([], "ft_switch")
        for label, w in (("Fabric", self.ft_fabric), ("Switch part", self.ft_switch),
                         ("Switch levels", self.ft_levels), ("Radix (ports)", self.ft_radix),
                         ("Hosts", self.ft_hosts), ("Blocking (down:up)", self.ft_blocking),
                         ("Parallel links", self.ft_parallel), ("Servers", self.ft_servers)):
            form.addRow(label, w)
        self.tabs.addTab(ft, "Fat tree")
        # leaf-spine
        ls = QtWidgets.QWidget()
        form = QtWidgets.QFormLayout(ls)
        self.ls_leaves = _spin(1, 4096, 8, "ls_leaves")
        self.ls_spines = _spin(1, 512, 4, "ls_spines")
        self.ls_hosts = _spin(1, 512, 16, "ls_hosts")
        self.ls_uplinks = _spin(0, 512, 0, "ls_uplinks")
        self.ls_uplinks.setSpecialValueText("one per spine")
        self.ls_fabric = _combo(["roce", "ib"], "ls_fabric")
        self.ls_speed = QtWidgets.QLineEdit("")
        self.ls_speed.setPlaceholderText("default (400GbE / 4xNDR)")
        self.ls_speed.setObjectName("ls_speed")
        self.ls_super = _spin(0, 512, 0, "ls_super")
        self.ls_pods = _spin(1, 256, 1, "ls_pods")
        self.ls_switch = _combo([], "ls_switch")
        for label, w in (("Leaves", self.ls_leaves), ("Spines", self.ls_spines),
                         ("Hosts per leaf", self.ls_hosts), ("Uplinks per leaf", self.ls_uplinks),
                         ("Fabric", self.ls_fabric), ("Switch part", self.ls_switch), ("Speed", self.ls_speed),
                         ("Super-spines", self.ls_super), ("Pods", self.ls_pods)):
            form.addRow(label, w)
        self.tabs.addTab(ls, "Leaf-spine")
        # rail
        rl = QtWidgets.QWidget()
        form = QtWidgets.QFormLayout(rl)
        self.rail_units = _spin(1, 64, 1, "rail_units")
        self.rail_nodes = _spin(1, NODES_PER_SU, NODES_PER_SU, "rail_nodes")
        self.rail_fabric = _combo(["ib", "roce"], "rail_fabric")
        for label, w in (("Scalable units", self.rail_units), ("DGX per unit", self.rail_nodes),
                         ("Fabric", self.rail_fabric)):
            form.addRow(label, w)
        self.tabs.addTab(rl, "Rail-optimized")
        self._direct_tabs()
        self._superpod_tab()
        self.nvl72 = Nvl72Tab(self.catalog)
        self.tabs.addTab(self.nvl72, "NVL72 racks")

        self.preview = QtWidgets.QLabel(self)
        self.preview.setObjectName("generator_preview")
        self.preview.setWordWrap(True)
        self.part_note = QtWidgets.QLabel(self)
        self.part_note.setObjectName("generator_part")
        self.part_note.setWordWrap(True)
        self.error = QtWidgets.QLabel(self)
        self.error.setObjectName("generator_error")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #d33a2c;")
        self.buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Ok | QtWidgets.QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok).setText("Generate")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(self.tabs)
        lay.addWidget(self.preview)
        lay.addWidget(self.part_note)
        lay.addWidget(self.error)
        lay.addWidget(self.buttons)
        self._fill_parts(self.ft_switch, self.ft_fabric.currentText(), CUSTOM_RADIX, "QM9700")
        self._fill_parts(self.ls_switch, self.ls_fabric.currentText(), AUTO_PART, None)
        for fab, combo in ((self.to_fabric, self.to_switch), (self.df_fabric, self.df_switch)):
            self._fill_parts(combo, fab.currentText(), AUTO_PART, None)
            fab.currentIndexChanged.connect(lambda _i, fab=fab, combo=combo: self._fill_parts(
                combo, fab.currentText(), AUTO_PART, combo.currentData()))
        self._part_chosen()
        self.ft_fabric.currentIndexChanged.connect(
            lambda: self._fill_parts(self.ft_switch, self.ft_fabric.currentText(), CUSTOM_RADIX,
                                     self.ft_switch.currentData()))
        self.ls_fabric.currentIndexChanged.connect(
            lambda: self._fill_parts(self.ls_switch, self.ls_fabric.currentText(), AUTO_PART,
                                     self.ls_switch.currentData()))
        self.ft_switch.currentIndexChanged.connect(self._part_chosen)
        self.ft_radix.valueChanged.connect(self._radix_typed)
        for w in self.findChildren(QtWidgets.QSpinBox):
            w.valueChanged.connect(self.update_preview)
        for w in self.findChildren(QtWidgets.QComboBox):
            w.currentIndexChanged.connect(self.update_preview)
        for w in self.findChildren(QtWidgets.QLineEdit):
            w.textChanged.connect(self.update_preview)
        for box in self.findChildren(QtWidgets.QCheckBox):
            box.toggled.connect(self.update_preview)
        self.tabs.currentChanged.connect(self.update_preview)
        generator_memory.restore(self.tabs, self.settings)
        # every tab's title shows whole (no "Torus / rin" behind scroll arrows): the tab bar sets the width
        self.tabs.tabBar().setUsesScrollButtons(False)
        self.tabs.tabBar().setElideMode(QtCore.Qt.TextElideMode.ElideNone)
        self.setMinimumWidth(max(620, self.tabs.tabBar().sizeHint().width() + 48))
        self.update_preview()

    def _direct_tabs(self) -> None:
        """The torus / ring / mesh and dragonfly tabs (:mod:`fabricviz.generate.direct`)."""
        to = QtWidgets.QWidget()
        form = QtWidgets.QFormLayout(to)
        self.to_dims = QtWidgets.QLineEdit("4x4")
        self.to_dims.setObjectName("to_dims")
        self.to_dims.setPlaceholderText("switches per dimension: 8 (a ring), 4x4, 4x4x4")
        self.to_hosts = _spin(1, 512, 1, "to_hosts")
        self.to_links = _spin(1, 32, 1, "to_links")
        self.to_mesh = QtWidgets.QCheckBox("mesh: no wrap-around cables")
        self.to_mesh.setObjectName("to_mesh")
        self.df_groups = _spin(2, 4096, 9, "df_groups")
        self.df_routers = _spin(1, 512, 4, "df_routers")
        self.df_hosts = _spin(1, 512, 2, "df_hosts")
        self.df_global = _spin(1, 512, 2, "df_global")
        self.df_balanced = QtWidgets.QCheckBox("balanced: a = 2p = 2h")
        self.df_balanced.setObjectName("df_balanced")
        for pre in ("to", "df"):
            setattr(self, f"{pre}_fabric", _combo(["ib", "roce"], f"{pre}_fabric"))
            setattr(self, f"{pre}_switch", _combo([], f"{pre}_switch"))
            speed = QtWidgets.QLineEdit("")
            speed.setPlaceholderText("default (4xNDR / 400GbE)")
            speed.setObjectName(f"{pre}_speed")
            setattr(self, f"{pre}_speed", speed)
        for label, w in (("Dimensions", self.to_dims), ("Hosts per switch", self.to_hosts),
                         ("Links per neighbour", self.to_links), ("", self.to_mesh), ("Fabric", self.to_fabric),
                         ("Switch part", self.to_switch), ("Speed", self.to_speed)):
            form.addRow(label, w)
        self.tabs.addTab(to, "Torus / ring")
        df = QtWidgets.QWidget()
        form = QtWidgets.QFormLayout(df)
        for label, w in (("Groups (g)", self.df_groups), ("Routers per group (a)", self.df_routers),
                         ("Hosts per router (p)", self.df_hosts), ("Global links per router (h)", self.df_global),
                         ("", self.df_balanced), ("Fabric", self.df_fabric), ("Switch part", self.df_switch),
                         ("Speed", self.df_speed)):
            form.addRow(label, w)
        self.tabs.addTab(df, "Dragonfly")

    #: Index of the SuperPOD tab (after the dragonfly's) and of the NVL72 racks tab.
    SUPERPOD_TAB, NVL72_TAB = 5, 6

    def _superpod_tab(self) -> None:
        """NVIDIA DGX SuperPOD reference designs (:mod:`fabricviz.generate.superpod`)."""
        sp = QtWidgets.QWidget()
        form = QtWidgets.QFormLayout(sp)
        self.sp_system = _combo(list(SYSTEMS), "sp_system")
        self.sp_units = _spin(1, 128, 1, "sp_units")
        self.sp_fabric = _combo(["ib", "roce"], "sp_fabric")
        self.sp_planes = _spin(1, 4, 1, "sp_planes")         # multi-plane: dgx-b300 2, dgx-b300-xdr 2 or 4
        for label, w in (("System", self.sp_system), ("Scalable units", self.sp_units), ("Fabric", self.sp_fabric),
                         ("Planes", self.sp_planes)):
            form.addRow(label, w)
        self.tabs.addTab(sp, "SuperPOD")

    def _superpod(self, build: bool = False) -> Fabric | str:
        """Preview (the generator's own plan) or, with ``build``, the SuperPOD design."""
        system, fabric, n = self.sp_system.currentText(), self.sp_fabric.currentText(), self.sp_planes.value()
        if build:
            return superpod(system, self.sp_units.value(), fabric=fabric, catalog=self.catalog, planes=n)
        spec = plane_spec(system, n)
        if fabric not in spec.switch:
            raise FabricError(f"Fabric {fabric}: the {spec.title} RA is built on {' or '.join(spec.switch)} only")
        sw = switch_part(self.catalog, spec.switch[fabric])        # SN5600-2x400GbE: the SN5600 broken out
        p = plan_superpod(spec, self.sp_units.value(), sw.ports)
        c = {k: v * n for k, v in p.cables.items()}         # every plane a fabric of its own
        return (f"{p.nodes:,} DGX · {p.gpus:,} GPUs · {p.leaves * n:,} leaves · {p.spines * n:,} spines"
                + (f" · {p.cores:,} cores" if p.cores else "") + f" ({part_label(sw)})"
                + (f" · {n} planes" if n > 1 else "")
                + f" · {'links' if n > 1 else 'cables'} node–leaf {c['node-leaf']:,}, leaf–spine {c['leaf-spine']:,}"
                + (f", spine–core {c['spine-core']:,}" if p.cores else "")
                + (f" · cables node–leaf {c['node-leaf'] // split_of(sw):,}, leaf–spine "
                   f"{c['leaf-spine'] // split_of(sw):,} (one per {sw.breakout_of} cage)" if sw.breakout else ""))

    def _direct(self, tab: int, build: bool = False) -> Fabric | str:
        """Preview text (or, with ``build``, the fabric) of the torus (3) or dragonfly (4) tab, through
        the generator's own plan and part checks."""
        plan: TorusPlan | DragonflyPlan
        if tab == 3:
            plan = plan_torus(self.to_dims.text(), self.to_hosts.value(), self.to_links.value(),
                              not self.to_mesh.isChecked())
            args = (self.to_fabric.currentText(), self.to_speed.text().strip() or None, self.to_switch.currentData())
            if build:
                return torus(plan.dims, plan.hosts_per_switch, plan.links_per_neighbour, plan.wrap, args[1],
                             args[0], args[2], catalog=self.catalog)
            part = torus_part(plan, *args, self.catalog)[1]
        else:
            plan = plan_dragonfly(self.df_groups.value(), self.df_routers.value(), self.df_hosts.value(),
                                  self.df_global.value(), self.df_balanced.isChecked())
            args = (self.df_fabric.currentText(), self.df_speed.text().strip() or None, self.df_switch.currentData())
            if build:
                return dragonfly(plan.groups, plan.routers_per_group, plan.hosts_per_router,
                                 plan.global_links_per_router, self.df_balanced.isChecked(), args[1], args[0],
                                 args[2], catalog=self.catalog)
            part = dragonfly_part(plan, *args, self.catalog)[1]
        return f"{plan.summary} · {part_label(part)}"

    @property
    def ok_button(self) -> QtWidgets.QPushButton:
        return self.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok)

    # ------------------------------------------------------------------ switch parts
    def _fill_parts(self, combo: QtWidgets.QComboBox, fabric: str, other: str, keep: str | None) -> None:
        """List the switch parts for ``fabric``, then ``other`` (custom radix / automatic);
        keep ``keep`` selected when it is still listed (None: ``other``), else a part of the same radix."""
        parts = switch_parts(self.catalog, fabric)
        combo.blockSignals(True)
        combo.clear()
        for p in parts:
            combo.addItem(switch_label(p), p.id)
        combo.addItem(other, None)
        ids = [p.id for p in parts]
        if keep in ids:
            combo.setCurrentIndex(ids.index(keep))
        elif keep is None or other == AUTO_PART:
            combo.setCurrentIndex(len(ids))             # custom radix / automatic stays chosen
        else:                                           # same radix in the other technology if any
            same = [i for i, p in enumerate(parts) if p.ports == self.ft_radix.value()]
            combo.setCurrentIndex(same[0] if same else 0)
        combo.blockSignals(False)
        if combo is self.ft_switch:
            self._part_chosen()

    def _part_chosen(self) -> None:
        """The fat tree's radix follows the chosen part."""
        pid = self.ft_switch.currentData()
        if pid is not None:
            self.ft_radix.setValue(self.catalog.get(pid).ports)

    def _radix_typed(self, radix: int) -> None:
        """A radix typed that the chosen part does not have picks the listed part with exactly that
        many ports (the fastest, as the generator would), else "custom radix"."""
        pid = self.ft_switch.currentData()
        if pid is not None and self.catalog.get(pid).ports == radix:
            return
        ids = [self.ft_switch.itemData(i) for i in range(self.ft_switch.count())]
        exact = [self.catalog.get(x) for x in ids if x is not None and self.catalog.get(x).ports == radix]
        best = min(exact, key=lambda p: (-port_rate(p).speed_rank, p.id)).id if exact else None
        if best != pid:
            self.ft_switch.setCurrentIndex(ids.index(best))

    def fat_tree_part(self) -> Part:
        """The switch part OK would use for the fat tree (hypothetical for an unlisted radix)."""
        pid = self.ft_switch.currentData()
        if pid is not None:
            return self.catalog.get(pid)
        return pick_switch(self.catalog, tech_of(self.ft_fabric.currentText()), self.ft_radix.value())

    def _preview_counts(self) -> str:
        """Counts of what OK would build; raises FabricError when the generator would refuse."""
        tab = self.tabs.currentIndex()
        if tab == 0:
            plan = plan_fat_tree(self.ft_levels.value(), self.ft_radix.value(), self.ft_hosts.value() or None,
                                 self.ft_blocking.text().strip() or None, self.ft_parallel.value())
            check_lid_space(tech_of(self.ft_fabric.currentText()), plan.hosts, plan.switches)
            cables = plan.hosts + plan.leaves * plan.up
            if plan.levels == 3:
                cables += plan.spines * (plan.radix // 2)
            return (f"{plan.hosts:,} hosts · {plan.leaves:,} leaves · {plan.spines:,} "
                    f"{'spines' if plan.levels == 2 else 'aggregation'}"
                    + (f" · {plan.cores:,} cores · {plan.pods} pods" if plan.levels == 3 else "")
                    + f" · {plan.switches:,} switches · {cables:,} cables · blocking {plan.blocking}"
                    + f" (max {plan.max_hosts:,} hosts)")
        if tab == 1:
            leaves, spines, hpl = self.ls_leaves.value(), self.ls_spines.value(), self.ls_hosts.value()
            pods, sup = self.ls_pods.value(), self.ls_super.value()
            up = self.ls_uplinks.value() or spines
            if up % spines:
                raise FabricError(f"Uplinks per leaf {up}: each leaf needs the same number of links to each "
                                  f"of the {spines} spines, so it must be a multiple of {spines}")
            if pods > 1 and not sup:
                raise FabricError(f"Pods {pods}: several pods need Super-spines (at least 1) to join them")
            hosts = leaves * hpl * pods
            switches = (leaves + spines) * pods + sup
            cables = hosts + leaves * up * pods + (spines * pods * sup if sup else 0)
            g = hpl / up
            return (f"{hosts:,} hosts · {leaves * pods:,} leaves · {spines * pods:,} spines"
                    + (f" · {sup} super-spines" if sup else "")
                    + f" · {switches:,} switches · {cables:,} cables · leaf oversubscription {g:g}:1")
        if tab == self.SUPERPOD_TAB:
            return str(self._superpod())
        if tab == self.NVL72_TAB:
            return self.nvl72.preview()
        if tab >= 3:
            return str(self._direct(tab))
        units, nodes = self.rail_units.value(), self.rail_nodes.value()
        if (NODES_PER_SU % (4 * units)) != 0:
            raise FabricError(f"Scalable units {units}: {4 * units} spines cannot share the {NODES_PER_SU} "
                              "uplinks of a leaf evenly")
        hosts = units * nodes * RAILS
        return (f"{units * nodes:,} DGX · {hosts:,} NIC ports · {units * RAILS} rail leaves · "
                f"{4 * units} spines · {hosts + units * RAILS * NODES_PER_SU:,} cables")

    def _part_note(self) -> str:
        """Which switch part the fat tree gets, said plainly when it is hypothetical."""
        if self.tabs.currentIndex() != 0:
            return ""
        part = self.fat_tree_part()
        return f"Switches: {part_label(part)}" + (
            " — no real part has this radix: unpriced in the BOM until you set a price" if part.hypothetical else "")

    def update_preview(self) -> None:
        try:
            self.preview.setText(self._preview_counts())
            self.part_note.setText(self._part_note())
            self.error.setText("")
            self.ok_button.setEnabled(True)
        except (FabricError, CatalogError, ValueError) as exc:
            self.preview.setText("")
            self.part_note.setText("")
            self.error.setText(self.refusal(exc))
            self.ok_button.setEnabled(False)

    def refusal(self, exc: Exception) -> str:
        """The engine's refusal as the dialog says it: a :class:`ParamError` names the label of the
        current tab's field that sets its parameter (``Planes 2: …``, where the CLI says ``--planes 2:
        …``; :meth:`ParamError.naming`); the field is the form row whose widget is named
        ``<tab prefix>_<parameter>``."""
        text = str(exc)
        if isinstance(exc, ParamError):
            page = self.tabs.currentWidget()
            form = page.layout() if page is not None else None
            if isinstance(form, QtWidgets.QFormLayout):
                for row in range(form.rowCount()):
                    item = form.itemAt(row, QtWidgets.QFormLayout.ItemRole.FieldRole)
                    field = item.widget() if item is not None else None
                    if field is None or field.objectName().split("_", 1)[-1] != exc.param:
                        continue
                    label = form.labelForField(field)
                    if isinstance(label, QtWidgets.QLabel) and label.text():
                        return exc.naming(label.text())
        return text

    def build(self) -> Fabric:
        tab = self.tabs.currentIndex()
        if tab == 0:
            return fat_tree(self.ft_levels.value(), self.ft_radix.value(), self.ft_hosts.value() or None,
                            self.ft_blocking.text().strip() or None, self.ft_parallel.value(),
                            fabric=self.ft_fabric.currentText(), servers=self.ft_servers.currentText(),
                            switch=self.ft_switch.currentData(), catalog=self.catalog)
        if tab == 1:
            pid = self.ls_switch.currentData()
            speed = self.ls_speed.text().strip() or (str(self.catalog.get(pid).rate) if pid else None)
            return leaf_spine(self.ls_leaves.value(), self.ls_spines.value(), self.ls_hosts.value(),
                              self.ls_uplinks.value() or None, speed,
                              fabric=self.ls_fabric.currentText(), super_spines=self.ls_super.value(),
                              pods=self.ls_pods.value(), switch=self.ls_switch.currentData(),
                              catalog=self.catalog)
        if tab == self.NVL72_TAB:
            return self.nvl72.build()
        if tab >= 3:
            f = self._superpod(build=True) if tab == self.SUPERPOD_TAB else self._direct(tab, build=True)
            assert isinstance(f, Fabric)
            return f
        return rail_optimized(self.rail_units.value(), fabric=self.rail_fabric.currentText(),
                              nodes_per_unit=self.rail_nodes.value(), catalog=self.catalog)

    def accept(self) -> None:
        """Build; a refusal stays in the dialog as a red line."""
        try:
            QtWidgets.QApplication.setOverrideCursor(QtCore.Qt.CursorShape.WaitCursor)
            try:
                self.result = self.build()
            finally:
                QtWidgets.QApplication.restoreOverrideCursor()
        except (FabricError, CatalogError) as exc:
            self.error.setText(self.refusal(exc))
            return
        generator_memory.save(self.tabs, self.settings)      # the next Generate starts from these
        super().accept()
