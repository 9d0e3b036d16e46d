"""The Subnet Manager dock's tools on a loaded sweep: pull a cable as a what-if / put it back /
apply it to the design, credit loops, a traced path, port loads, and the colour legend.

:class:`SweepTools` is an object the :class:`~fabricviz.ui.docks.sweep.SweepDock` holds
(``dock.tools``): it keeps the what-if, the traced path and the credit loops of the sweep on
show, and works through the dock's widgets and overlay; the dock module stays about the sweep
on show (its clock is :class:`~fabricviz.ui.docks.sweep_playback.SweepPlayer`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import Fabric, FabricError
from fabricviz.ui.canvas.overlays.loads import LoadOverlay
from fabricviz.ui.canvas.overlays.sweep import LEGEND, SweepOverlay
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.document.commands import RemoveCommand
from fabricviz.ui.document.document import Document
from fabricviz.ui.document.editor import Editor


@dataclass
class WhatIf:
    """A cable pulled on a copy of the design; ``saved`` is the design's own sweep to go back to."""

    cable: int
    label: str                 # "leaf01:5 ↔ spine02:3"
    fabric: Fabric             # the copy without the cable (same ids as the design)
    saved: tuple               # (timeline, step, fact lines, routing) of the design's sweep


def _swatch(color: str, style: str, size: int = 14) -> QtGui.QPixmap:
    pm = QtGui.QPixmap(size, size)
    pm.fill(QtCore.Qt.GlobalColor.transparent)
    p = QtGui.QPainter(pm)
    p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    pen = QtGui.QPen(QtGui.QColor(color), 3.0 if style in ("line", "dash") else 2.0)
    if style == "dash":
        pen.setStyle(QtCore.Qt.PenStyle.DashLine)
        pen.setWidthF(2.0)
    if style == "dot":
        p.setPen(QtGui.QPen(QtGui.QColor("#000000"), 0.5))
        p.setBrush(QtGui.QColor(color))
        p.drawEllipse(QtCore.QRectF(3, 3, size - 6, size - 6))
    elif style == "outline":
        p.setPen(pen)
        p.drawRect(QtCore.QRectF(2, 2, size - 4, size - 4))
    else:
        p.setPen(pen)
        p.drawLine(QtCore.QPointF(1, size / 2), QtCore.QPointF(size - 1, size / 2))
    p.end()
    return pm


class SweepLegend(QtWidgets.QWidget):
    """One row of colour swatches and words: every colour the sweep overlay draws."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sweep_legend")
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        self.rows = tuple(LEGEND)
        for text, color, style in self.rows:
            sw = QtWidgets.QLabel(self)
            sw.setPixmap(_swatch(color, style))
            sw.setToolTip(color)
            word = QtWidgets.QLabel(text, self)
            lay.addWidget(sw)
            lay.addWidget(word)
            lay.addSpacing(6)
        lay.addStretch(1)

    def texts(self) -> tuple[str, ...]:
        return tuple(r[0] for r in self.rows)

    def colors(self) -> tuple[str, ...]:
        return tuple(r[1] for r in self.rows)


def legend_strip(parent: QtWidgets.QWidget) -> SweepLegend:
    return SweepLegend(parent)


class SweepClock(Protocol):
    """What the tools use of the dock that holds them (:class:`~fabricviz.ui.docks.sweep.SweepDock`)."""

    document: Document
    editor: Editor
    scene: FabricScene
    overlay: SweepOverlay
    loads: LoadOverlay
    timeline: Any
    index: int
    routing: Any
    fact_lines: list[str]
    busy: bool
    status: QtWidgets.QLabel
    loads_box: QtWidgets.QCheckBox
    loops_button: QtWidgets.QPushButton
    src_edit: QtWidgets.QLineEdit
    dst_edit: QtWidgets.QLineEdit
    loops_found: Any

    def recompute(self, previous: Any = None, trap_port: int | None = None, came_up: bool = False,
                  fabric: Fabric | None = None) -> None: ...

    def restore(self, timeline: Any, index: int, facts: list[str], routing: Any) -> None: ...

    def enable(self) -> None: ...

    def show_index(self) -> None: ...


class SweepTools:
    """What-if pull/put back/apply, credit loops, path trace and port loads of one SweepDock."""

    def __init__(self, dock: SweepClock) -> None:
        self.dock = dock
        self.whatif: WhatIf | None = None     # a cable pulled on a copy of the design
        self.pulled: tuple[int, int] | None = None   # (cable, undo index after "Apply to design")
        self.trace: tuple[int, ...] = ()      # the traced path's cables
        self.loop: tuple[int, ...] = ()       # the first credit loop's cables
        self.trace_lines: list[str] = []      # the traced path, for the narration
        self.loop_lines: list[str] = []       # credit loops found on demand
        self.trace_hops: Any = ()

    def new_lfts(self, trace: bool = False) -> None:
        """Other LFTs show: the loops found (and with ``trace`` the traced path) go."""
        self.loop_lines, self.loop = [], ()
        self.trace_lines = []
        if trace:
            self.trace = ()

    def forget(self) -> None:
        """Another design: no what-if, no applied pull, no traced path."""
        self.end_whatif()
        self.pulled = None
        self.trace = ()

    def retrace(self) -> None:
        """The traced path follows the LFTs now shown (when a path was traced)."""
        d = self.dock
        if self.trace and d.src_edit.text().strip() and d.dst_edit.text().strip():
            self.trace_path()

    def show_loads(self) -> None:
        """Port loads of the sweep's routing while "Port loads" is ticked and the overlay is up."""
        d = self.dock
        tl = d.timeline
        if d.loads_box.isChecked() and tl is not None and d.overlay.active:
            d.loads.show(tl.fabric, tl.sweep.routing)
        else:
            d.loads.clear()

    # ------------------------------------------------------------------ pull a cable (what-if)
    def pull_cable(self) -> bool:
        """What if the one cable selected on the canvas went down: Trap 128 from its switch end and
        a re-sweep keeping LIDs, run on a copy of the design. The design is not edited."""
        d = self.dock
        f = d.editor.fabric
        sel = [c for c in d.scene.selected_cables if f.cables_t.exists(c)]
        if len(sel) != 1:
            d.status.setText("pull cable: select one cable on the canvas first")
            return False
        if self.whatif is not None or d.timeline is None or d.busy:
            d.status.setText("pull cable: put the pulled cable back first" if self.whatif is not None
                             else "pull cable: wait for the sweep")
            return False
        c = int(sel[0])
        ends = [int(f.cables_t.port_a[c]), int(f.cables_t.port_b[c])]
        label = f"{f.port_name(ends[0])} ↔ {f.port_name(ends[1])}"
        g = f.copy()
        g.remove_cables([c])
        cids = f.cable_ids()
        if not (np.array_equal(g.device_ids(), f.device_ids()) and np.array_equal(g.cable_ids(), cids[cids != c])
                and int(g.ports_t.n) == int(f.ports_t.n)):
            d.status.setText("pull cable: the copy of the design has other ids — cannot draw it")
            return False
        sw = [p for p in ends if f.device(int(f.ports_t.device[p])).is_switch]
        self.whatif = WhatIf(c, label, g, (d.timeline, d.index, list(d.fact_lines), d.routing))
        d.recompute(previous=d.routing, trap_port=(sw or ends)[0], fabric=g)
        d.status.setText(f"what-if: {label} pulled — Trap 128, the SM sweeps a copy of the design")
        return True

    def end_whatif(self) -> WhatIf | None:
        """Forget the what-if (its ghost goes); the dock's routing is the design's again."""
        w, self.whatif = self.whatif, None
        if w is not None:
            self.dock.routing = w.saved[3]
            self.dock.overlay.set_ghost(())
        return w

    def put_back(self) -> bool:
        """End the what-if (the design's own sweep shows again), or undo an applied pull while it
        is the last edit (which re-sweeps)."""
        d = self.dock
        if self.whatif is not None:
            d.document.jobs.cancel("sweep")
            w = self.end_whatif()
            assert w is not None
            d.restore(*w.saved)
            d.status.setText(f"put back {w.label}: the what-if ended — the design's own sweep")
            return True
        stack = d.editor.stack
        if self.pulled is None:
            return False
        if stack.index() != self.pulled[1]:
            d.status.setText("put back: other edits came after the pull — use Edit ▸ Undo")
            return False
        stack.undo()
        return True

    def apply_pull(self) -> bool:
        """Remove the what-if's cable from the design: one undo step "Pull cable a ↔ b"; the SM
        then re-sweeps the design (Trap 128), and Undo or Put back brings the cable back."""
        d = self.dock
        w = self.whatif
        if w is None or not d.editor.fabric.cables_t.exists(w.cable):
            return False
        cmd = RemoveCommand(d.editor, [], [w.cable])
        cmd.setText(f"Pull cable {w.label}")
        if not d.editor.run(cmd):            # the edit ends the what-if (the dock's _design_changed)
            return False
        self.pulled = (w.cable, d.editor.stack.index())
        d.enable()
        d.status.setText(f"pulled {w.label} from the design: Trap 128, the SM sweeps again")
        return True

    # ------------------------------------------------------------------ credit loops
    def show_credit_loops(self) -> None:
        """Find credit loops in the current LFTs in a worker (the CDG of a big fabric takes
        seconds); the dock's ``loops_found`` fires when the first is highlighted and all are listed."""
        from fabricviz.ib.creditloops import check_credit_loops
        from fabricviz.ib.vl_layers import design_sl2vl
        d = self.dock
        tl = d.timeline
        if tl is None:
            return
        routing = tl.sweep.routing
        d.loops_button.setEnabled(False)
        d.status.setText(f"looking for credit loops in the {routing.routed_by} LFTs…")

        def check(_progress: Any) -> Any:
            return check_credit_loops(routing, sl2vl=design_sl2vl(routing))

        d.document.jobs.submit("sweep-loops", check,
                               on_done=self._loops_done, on_error=self._loops_failed,
                               on_stale=d.enable)

    def _loops_failed(self, error: str) -> None:
        self.dock.enable()
        self.dock.status.setText(f"credit loops: {error}")

    def _loops_done(self, check: Any) -> None:
        """The loops of the shown LFTs, per VL with the engine's SLs and the design's SL2VL (a
        result for an older design is dropped by the job runner)."""
        d = self.dock
        d.enable()
        loops = check.loops
        tl = d.timeline
        if tl is None:
            return
        f = tl.fabric
        cables: list[int] = []
        for ch in (loops[0].channels if loops else ()):
            c = int(f.ports_t.cable[f.port(ch).id])
            if c >= 0:
                cables.append(c)
        self.loop = tuple(cables)
        d.overlay.set_loop(self.loop)
        self.loop_lines = [check.summary() + (" — the first one highlighted in red" if loops else "")]
        self.loop_lines += [lp.format().replace("\n", " —") for lp in loops]
        d.show_index()
        d.loops_found.emit(loops)

    # ------------------------------------------------------------------ path trace
    def trace_path(self) -> None:
        """Highlight the LFT path between the two names and list its hops in the narration."""
        from fabricviz.ib.trace import path_cables, trace
        d = self.dock
        tl = d.timeline
        if tl is None:
            return
        src, dst = d.src_edit.text().strip(), d.dst_edit.text().strip()
        try:
            if not src or not dst:
                raise FabricError("trace: give a source and a destination")
            r = trace(tl.sweep.routing, src, dst)
        except (FabricError, KeyError, ValueError) as exc:
            d.status.setText(f"trace: {exc}")
            return
        self.trace = path_cables(tl.sweep.routing, r)
        d.overlay.set_trace(self.trace)
        self.trace_lines = [f"{r.src} (LID {r.slid}) → {r.dst} (LID {r.dlid})"]
        self.trace_lines += [f"[{h.in_port}] {h.switch} [{h.out_port}]" for h in r.hops]
        self.trace_lines.append(f"{len(r.hops)} switch hop(s)" if r.ok else f"!! {r.problem}")
        self.trace_hops = r.hops
        d.show_index()
