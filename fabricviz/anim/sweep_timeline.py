"""The subnet manager's sweep as frames: what the SM knows after each event.

:class:`SweepTimeline` replays a :class:`~fabricviz.ib.sweep.Sweep` into
cumulative state so the GUI can jump to any step (scrub back and forth)
without replaying from the start: which devices were discovered, each port's
state as the SM set it (INIT when its PortInfo was read, then ARMED and
ACTIVE by the link manager), each port's LID, how many LFT blocks each switch
received, and a narration line with OpenSM's phase name and the numbers.

Frames are rebuilt from keyframes (full copies every :data:`KEYFRAME_EVERY`
events and at every phase start) plus at most that many cheap event
applications, so memory stays O(events / KEYFRAME_EVERY × ports) instead of
O(events × ports).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from ..ib.sweep import Sweep, SweepEvent
from ..model import Fabric

UNKNOWN, INIT, ARMED, ACTIVE = 0, 1, 2, 3
STATE_NAMES = ("unknown", "INIT", "ARMED", "ACTIVE")
KEYFRAME_EVERY = 64
#: A port of the subnet the SM has not read yet at a step.
NOT_DISCOVERED_YET = "— (not discovered yet)"

#: OpenSM's names for the phases of ``osm_state_mgr``'s do_sweep().
PHASE_TITLES = {
    "election": "SM election (SMInfo)",
    "trap": "Trap 128",
    "discovery": "Heavy sweep discovery",
    "pkeys": "P_Key manager (pkey_mgr)",
    "sm_lid": "SM LID assignment",
    "lids": "LID assignment (lid_mgr)",
    "routing": "Unicast routing (ucast_mgr)",
    "lft": "LFT distribution",
    "qos": "QoS setup (SL2VL, VL arbitration)",
    "links": "Link manager",
    "up": "Subnet up",
}


@dataclass(frozen=True)
class SweepState:
    """Everything the SM knows after event ``index`` (arrays are read-only)."""

    index: int
    event: SweepEvent
    phase: str
    t_us: float
    discovered: np.ndarray            # bool by device id
    port_state: np.ndarray            # int8 by port id: 0 unknown, 1 INIT, 2 ARMED, 3 ACTIVE
    lid: np.ndarray                   # int32 by port id (switch ports carry port 0's LID)
    lft_blocks_received: np.ndarray   # int32 by device id (switches only)
    subnet_up: bool
    smps: int                         # SMPs so far as the engine reports them (waves, banners)
    narration: str
    dr_cables: tuple[int, ...]        # cables of the directed route of this event (discovery)


@dataclass(frozen=True)
class SweepStep:
    """The step of a sweep the Subnet Manager dock shows, for whoever follows it (the inspector).

    ``whatif`` names a what-if (e.g. a cable pulled on a copy of the design), "" for the design.
    """

    timeline: SweepTimeline
    index: int
    whatif: str = ""

    @property
    def state(self) -> SweepState:
        return self.timeline.state(self.index)


class _Frame:
    """Mutable working state while replaying."""

    def __init__(self, nd: int, np_: int) -> None:
        self.discovered = np.zeros(nd, bool)
        self.port_state = np.zeros(np_, np.int8)
        self.lid = np.zeros(np_, np.int32)
        self.lft = np.zeros(nd, np.int32)
        self.up = False
        self.smps = 0

    def copy(self) -> _Frame:
        g = _Frame.__new__(_Frame)
        g.discovered, g.port_state = self.discovered.copy(), self.port_state.copy()
        g.lid, g.lft, g.up, g.smps = self.lid.copy(), self.lft.copy(), self.up, self.smps
        return g

    def nbytes(self) -> int:
        return self.discovered.nbytes + self.port_state.nbytes + self.lid.nbytes + self.lft.nbytes


def narrate(e: SweepEvent) -> str:
    """One plain line for an event: OpenSM's phase name, then what happened with its numbers."""
    title = PHASE_TITLES.get(e.phase, e.phase)
    d = e.data
    if e.kind == "wave":
        return (f"Discovery wave {d['wave']}: {d['switches']:,} switches and {d['cas']:,} CAs found, "
                f"{d['smps']:,} SMPs so far")
    if e.kind == "node":
        mads = ", ".join(f"{k}×{v}" if v > 1 else k for k, v in d.get("mads", {}).items())
        return f"{title}: {e.text}; SMPs {mads}"
    if e.kind == "banner" and e.phase == "discovery" and "switches" in d:
        return (f"{title}: {e.text} — {d['switches']:,} switches, {d['ca_ports']:,} CA ports, "
                f"{d['smps']:,} SMPs")
    if e.kind == "banner" and e.phase == "up":
        return f"{e.text} after {d.get('smps', 0):,} SMPs and {d.get('t_us', e.t_us) / 1000:.3f} ms"
    return f"{title}: {e.text}"


class SweepTimeline:
    """Per-step state of a sweep; ``state(i)`` for any ``0 <= i < len``."""

    def __init__(self, sweep: Sweep, fabric: Fabric | None = None) -> None:
        self.sweep = sweep
        self.events = sweep.events
        if not self.events:
            raise ValueError("the sweep has no events")
        f = fabric if fabric is not None else sweep.routing.subnet.fabric
        self.fabric = f
        sn = sweep.routing.subnet
        self.sm_node, self.sm_port = int(sn.sm_node), int(sn.sm_port)
        self.switches = np.asarray(sn.switches, dtype=np.int64)
        self.n_devices, self.n_ports = int(f.devices_t.n), int(f.ports_t.n)
        self.times = [float(e.t_us) for e in self.events]
        self._phase_starts = [i for i, e in enumerate(self.events)
                              if i == 0 or e.phase != self.events[i - 1].phase]
        self.subnet_ports = self._live_ports()
        self.narration = [narrate(e) for e in self.events]
        self._dr = [self._dr_cables(e) for e in self.events]
        self._keys: dict[int, _Frame] = {}
        fr = _Frame(self.n_devices, self.n_ports)
        starts = set(self._phase_starts)
        for i, e in enumerate(self.events):
            self._apply(fr, e)
            if i % KEYFRAME_EVERY == 0 or i in starts or i == len(self.events) - 1:
                self._keys[i] = fr.copy()
        self._key_idx = sorted(self._keys)
        self._cache: SweepState | None = None
        self.resweep = any(e.kind == "trap" for e in self.events)
        self._lft_sends = [(i, int(e.data.get("block", -1)), (int(e.lids[0]), int(e.lids[1])), frozenset(e.devices))
                           for i, e in enumerate(self.events) if e.kind == "lft_block" and len(e.lids) == 2]

    # ------------------------------------------------------------------ building
    def _live_ports(self) -> dict[int, np.ndarray]:
        """Ports of each subnet device the link manager handles (from its own events)."""
        ports: set[int] = set()
        for e in self.events:
            if e.kind == "port_state" or (e.phase == "links" and e.ports):
                ports.update(e.ports)
        arr = np.asarray(sorted(ports), dtype=np.int64)
        dev = self.fabric.ports_t.device[arr] if len(arr) else np.zeros(0, np.int64)
        out: dict[int, np.ndarray] = {}
        for d in np.unique(dev).tolist():
            out[int(d)] = arr[dev == d]
        return out

    def _dr_cables(self, e: SweepEvent) -> tuple[int, ...]:
        """Walk the directed route (port numbers from the SM node) to its cables."""
        if e.kind != "node" or not e.dr_path:
            return ()
        f = self.fabric
        t, pt = f.devices_t, f.ports_t
        cur, out = self.sm_node, []
        for num in e.dr_path:
            p = int(t.first_port[cur]) + int(num) - 1
            c = int(pt.cable[p])
            if c < 0:
                break
            out.append(c)
            cur = int(pt.device[f._peer(p)])
        return tuple(out)

    def _apply(self, fr: _Frame, e: SweepEvent) -> None:
        pt = self.fabric.ports_t
        if e.kind == "node":
            for d in e.devices:
                fr.discovered[d] = True
                ps = self.subnet_ports.get(int(d))
                if ps is not None:
                    fr.port_state[ps] = np.maximum(fr.port_state[ps], INIT)
            fr.smps += int(e.data.get("smps", 0))
        elif e.kind == "wave":
            fr.smps = int(e.data["smps"])
        elif e.kind == "lid" and e.lids:
            base = int(e.lids[0])
            if e.ports:
                fr.lid[list(e.ports)] = base
            for d in e.devices:
                if not e.ports or int(pt.device[e.ports[0]]) != d:
                    first, n = int(self.fabric.devices_t.first_port[d]), int(self.fabric.devices_t.nports[d])
                    fr.lid[first:first + n] = base
        elif e.kind == "lft_block":
            fr.lft[list(e.devices)] += 1
        elif e.kind == "banner" and e.data.get("active"):
            fr.port_state[list(e.data["active"])] = ACTIVE     # a re-sweep: live links stay ACTIVE
        elif e.kind == "port_state":
            state = {"init": INIT, "armed": ARMED, "active": ACTIVE}[e.data["state"]]
            fr.port_state[list(e.ports)] = state
        elif "smps" in e.data and e.kind == "banner":
            fr.smps = int(e.data["smps"])
        if e.phase == "up":
            fr.up = True

    # ------------------------------------------------------------------ queries
    def __len__(self) -> int:
        return len(self.events)

    def state(self, i: int) -> SweepState:
        """The frame after event ``i`` (negative counts from the end, like a list)."""
        n = len(self.events)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"step {i} is outside the sweep (0..{n - 1})")
        if self._cache is not None and self._cache.index == i:
            return self._cache
        k = self._key_idx[bisect.bisect_right(self._key_idx, i) - 1]
        fr = self._keys[k].copy()
        for j in range(k + 1, i + 1):
            self._apply(fr, self.events[j])
        for a in (fr.discovered, fr.port_state, fr.lid, fr.lft):
            a.flags.writeable = False
        e = self.events[i]
        st = SweepState(i, e, e.phase, e.t_us, fr.discovered, fr.port_state, fr.lid, fr.lft, fr.up,
                        fr.smps, self.narration[i], self._dr[i])
        self._cache = st
        return st

    def lft_blocks(self, device: int, i: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """LID ranges (lo, hi) of the LFT blocks switch ``device`` got up to step ``i``, and of
        those still to come in this sweep (a re-sweep sends only the blocks that changed)."""
        sent: list[tuple[int, int]] = []
        due: list[tuple[int, int]] = []
        for j, _block, span, devices in self._lft_sends:
            if int(device) in devices:
                (sent if j <= i else due).append(span)
        return sent, due

    def lft_held(self, device: int, i: int, lids: np.ndarray) -> tuple[np.ndarray, int, int]:
        """Which of the final LFT's ``lids`` switch ``device`` holds after step ``i``, with the
        counts of its blocks sent so far and still to come. A fresh sweep: only the LIDs of the
        blocks sent; a re-sweep: all but those of the changed blocks not sent yet (their old
        entries, not in this sweep, still forward)."""
        sent, due = self.lft_blocks(device, i)
        lids = np.asarray(lids)

        def within(spans: list[tuple[int, int]]) -> np.ndarray:
            m = np.zeros(len(lids), bool)
            for lo, hi in spans:
                m |= (lids >= lo) & (lids <= hi)
            return m
        held = ~within(due) if self.resweep else within(sent)
        return held, len(sent), len(due)

    def port_state_text(self, st: SweepState, port: int, model_state: str) -> str:
        """What the SM knows of ``port``'s state at ``st``: INIT / ARMED / ACTIVE once set, DOWN
        without a cable, :data:`NOT_DISCOVERED_YET` for a subnet port not read yet; a port the
        sweep does not handle (Ethernet, disabled, off the subnet) keeps ``model_state``."""
        pt = self.fabric.ports_t
        if not 0 <= port < len(st.port_state) or int(pt.tech[port]) != 1:
            return model_state
        code = int(st.port_state[port])
        if code:
            return STATE_NAMES[code]
        if int(pt.cable[port]) < 0:
            return "DOWN"
        live = self.subnet_ports.get(int(pt.device[port]))
        if live is not None and bool(np.any(live == port)):
            return NOT_DISCOVERED_YET
        return model_state.upper()

    def phase_starts(self) -> list[int]:
        """Index of the first event of each phase, in order."""
        return list(self._phase_starts)

    def next_phase_index(self, i: int) -> int:
        """First step of the phase after the one holding step ``i`` (the last step if none)."""
        j = bisect.bisect_right(self._phase_starts, i)
        return self._phase_starts[j] if j < len(self._phase_starts) else len(self.events) - 1

    def phase_end(self, i: int) -> int:
        """Last step of the phase holding step ``i``."""
        return self.next_phase_index(i) - 1 if self.next_phase_index(i) > i else len(self.events) - 1

    def index_at_time(self, t_us: float) -> int:
        """The last step that happened at or before ``t_us`` (0 before the first)."""
        return max(0, bisect.bisect_right(self.times, float(t_us)) - 1)

    @property
    def duration_us(self) -> float:
        return self.times[-1]

    def nbytes(self) -> int:
        """Bytes held by the keyframes."""
        return sum(fr.nbytes() for fr in self._keys.values())

    def plain_copies_nbytes(self) -> int:
        """What a full copy per step would take instead (for comparison)."""
        return len(self.events) * next(iter(self._keys.values())).nbytes()


__all__ = ["ACTIVE", "ARMED", "INIT", "KEYFRAME_EVERY", "NOT_DISCOVERED_YET", "PHASE_TITLES", "STATE_NAMES",
           "SweepState", "SweepStep", "SweepTimeline", "UNKNOWN", "narrate"]
