"""The Subnet Manager dock's tools on a loaded sweep: pull a cable / put it back, credit loops,
a traced path and port loads. A mixin of :class:`~fabricviz.ui.docks.sweep.SweepDock` (it uses
the dock's widgets, overlays and signals); kept apart so the dock module stays about the clock.
"""

from __future__ import annotations

from typing import Any

from fabricviz.model import FabricError


class SweepToolsMixin:
    """Pull/put back, credit loops, path trace and port loads for the SweepDock."""

    def _show_loads(self) -> None:
        """Port loads of the sweep's routing while "Port loads" is ticked and the overlay is up."""
        tl = self.timeline
        if self.loads_box.isChecked() and tl is not None and self.overlay.active:
            self.loads.show(tl.fabric, tl.sweep.routing)
        else:
            self.loads.clear()

    # ------------------------------------------------------------------ pull a cable
    def pull_cable(self) -> bool:
        """Remove the one cable selected on the canvas through the editor (Undo puts it back)."""
        f = self.editor.fabric
        sel = [c for c in self.scene.selected_cables if f.cables_t.exists(c)]
        if len(sel) != 1:
            self.status.setText("pull cable: select one cable on the canvas first")
            return False
        c = int(sel[0])
        label = f"{f.port_name(int(f.cables_t.port_a[c]))} ↔ {f.port_name(int(f.cables_t.port_b[c]))}"
        if not self.editor.remove([], [c]):
            return False
        self._pulled = (c, self.editor.stack.index())
        self.status.setText(f"pulled {label}: Trap 128, the SM sweeps again")
        return True

    def put_back(self) -> bool:
        """Undo the pull (only while it is the last edit), which re-sweeps again."""
        stack = self.editor.stack
        if self._pulled is None:
            return False
        if stack.index() != self._pulled[1]:
            self.status.setText("put back: other edits came after the pull — use Edit ▸ Undo")
            return False
        stack.undo()
        return True

    # ------------------------------------------------------------------ credit loops
    def show_credit_loops(self) -> None:
        """Find credit loops in the current LFTs in a worker (the CDG of a big fabric takes
        seconds); ``loops_found`` fires when the first is highlighted and all are listed."""
        from fabricviz.ib.creditloops import find_credit_loops
        tl = self.timeline
        if tl is None:
            return
        routing = tl.sweep.routing
        self.loops_button.setEnabled(False)
        self.status.setText(f"looking for credit loops in the {routing.routed_by} LFTs…")

        self.document.jobs.submit("sweep-loops", lambda _progress: find_credit_loops(routing),
                                  on_done=self._loops_done, on_error=self._loops_failed,
                                  on_stale=self._enable)

    def _loops_failed(self, error: str) -> None:
        self._enable()
        self.status.setText(f"credit loops: {error}")

    def _loops_done(self, loops: Any) -> None:
        """The loops of the shown LFTs (a result for an older design is dropped by the job runner)."""
        self._enable()
        tl = self.timeline
        if tl is None:
            return
        f = tl.fabric
        cables: list[int] = []
        for ch in (loops[0].channels if loops else ()):
            c = int(f.ports_t.cable[f.port(ch).id])
            if c >= 0:
                cables.append(c)
        self._loop = tuple(cables)
        self.overlay.set_loop(self._loop)
        self.loop_lines = [f"{len(loops)} credit loop(s) in the {tl.sweep.routing.routed_by} LFTs"
                           + (" (first one highlighted in red)" if loops else " — deadlock-free on VL0")]
        self.loop_lines += [lp.format().replace("\n", " —") for lp in loops]
        self._show(self.index)
        self.loops_found.emit(loops)

    # ------------------------------------------------------------------ path trace
    @property
    def _trace_cables(self) -> tuple[int, ...]:
        return getattr(self, "_trace", ())

    def trace_path(self) -> None:
        """Highlight the LFT path between the two names and list its hops in the narration."""
        from fabricviz.ib.trace import path_cables, trace
        tl = self.timeline
        if tl is None:
            return
        src, dst = self.src_edit.text().strip(), self.dst_edit.text().strip()
        try:
            if not src or not dst:
                raise FabricError("trace: give a source and a destination")
            r = trace(tl.sweep.routing, src, dst)
        except (FabricError, KeyError, ValueError) as exc:
            self.status.setText(f"trace: {exc}")
            return
        self._trace = path_cables(tl.sweep.routing, r)
        self.overlay.set_trace(self._trace)
        self.trace_lines = [f"{r.src} (LID {r.slid}) → {r.dst} (LID {r.dlid})"]
        self.trace_lines += [f"[{h.in_port}] {h.switch} [{h.out_port}]" for h in r.hops]
        self.trace_lines.append(f"{len(r.hops)} switch hop(s)" if r.ok else f"!! {r.problem}")
        self.trace_hops = r.hops
        self._show(self.index)
