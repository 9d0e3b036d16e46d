"""Flows that close a PFC buffer cycle, for a fluid run that shows the deadlock happen.

:func:`closing_flows` picks, for a cycle :func:`~.pfc_deadlock.check_pfc_deadlock` found, one
host pair per dependency not yet added and the concrete path (under the same failures and
routing) that adds it; :class:`ClosingFlows` hands those paths to the sim as a path provider
(ECMP hashing might not put the flows on the cycle).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model import Fabric, FabricError
from .pfc_deadlock import BufferCycle, Reach, Topology, cycle_pairs, failed_cables, pair_hits, reach, topology

#: One flow: source NIC, destination NIC, source port, destination port, its directed links.
Flow = tuple[int, int, int, int, np.ndarray]


@dataclass(frozen=True)
class ClosingFlows:
    """Flows that together add every dependency of one cycle, each with its concrete path.

    ``paths[i]`` lists the directed cable links (``2c``: port_a → port_b, ``2c + 1``: back; the
    link-id scheme of :mod:`fabricviz.sim.links`) from the NIC port ``src_port[i]`` to
    ``dst_port[i]``. :meth:`provider` hands them to the sim's ``route(..., provider=…)`` so a fluid
    run puts the flows on exactly the cycle (ECMP hashing might not)."""

    src: np.ndarray
    dst: np.ndarray
    src_port: np.ndarray
    dst_port: np.ndarray
    paths: tuple[np.ndarray, ...]

    @classmethod
    def of(cls, rows: list[Flow]) -> ClosingFlows:
        """From (source NIC, destination NIC, source port, destination port, links) rows."""
        cols = list(zip(*rows, strict=True)) if rows else [(), (), (), (), ()]
        src, dst, src_port, dst_port = (np.array(c, np.int64) for c in cols[:4])
        return cls(src, dst, src_port, dst_port, tuple(cols[4]))

    def __len__(self) -> int:
        return len(self.src)

    def provider(self) -> Callable[..., list[np.ndarray]]:
        """A path provider: the path of each (source port, destination port) asked for."""
        by_ports = {(int(a), int(b)): p for a, b, p in zip(self.src_port, self.dst_port, self.paths, strict=True)}

        def paths(_fabric: Any, _links: Any, src_ports: np.ndarray, dst_ports: np.ndarray) -> list[np.ndarray]:
            try:
                return [by_ports[(int(a), int(b))] for a, b in zip(src_ports, dst_ports, strict=True)]
            except KeyError as exc:
                raise FabricError(f"no closing path between ports {exc.args[0]}") from None
        return paths


def closing_flows(fabric: Fabric, cycle: BufferCycle, *, failed: Sequence[str | int] = (),
                  routing: str = "bounce") -> ClosingFlows:
    """One flow (host pair and path) per dependency of ``cycle`` not yet added by an earlier one,
    under the same failures and routing as the check that found it. Flows leaving (entering) the
    same switch take its hosts in turn, so that where a switch has several hosts the flows are not
    held back by one NIC and can load the cycle."""
    tp = topology(fabric, failed_cables(fabric, failed))
    where = {int(x): i for i, x in enumerate(tp.link.tolist())}
    cyc = [where[int(x)] for x in cycle.links]
    pairs = cycle_pairs(tp, cyc)
    row_of = {int(tp.switches[d]): i for i, d in enumerate(tp.dests.tolist())}
    index = {int(d): i for i, d in enumerate(tp.switches.tolist())}
    done = np.zeros(len(pairs), bool)
    out: list[Flow] = []
    turn: dict[tuple[int, int], int] = {}          # (0 source | 1 destination, switch) → flows so far

    def host(side: int, x: int) -> int:
        mine = tp.nic_ports(x)
        k = turn.get((side, x), 0)
        turn[(side, x)] = k + 1
        return int(mine[k % len(mine)])
    for k in range(len(pairs)):
        if done[k]:
            continue
        for s_dev, t_dev in cycle.routes:
            row, s_ = row_of[t_dev], index[s_dev]
            init = np.zeros((1, len(tp.switches)), bool)
            init[0, s_] = True
            r = reach(tp, np.array([row]), init, routing)
            if not pair_hits(tp, r, pairs[k:k + 1])[0, 0]:
                continue
            hops = _path_through(tp, r, s_, int(tp.dests[row]), int(tp.pair_in[pairs[k]]),
                                 int(tp.pair_out[pairs[k]]))
            out.append(host_flow(fabric, tp, host(0, s_), host(1, int(tp.dests[row])), tp.link[hops]))
            on = set(zip(hops[:-1], hops[1:], strict=True))
            done |= np.array([(int(tp.pair_in[q]), int(tp.pair_out[q])) in on for q in pairs])
            break
    return ClosingFlows.of(out)


def host_flow(fabric: Fabric, tp: Topology, a: int, b: int, inner: np.ndarray) -> Flow:
    """A flow from host port ``a`` to host port ``b`` over the switch links ``inner``: (source NIC,
    destination NIC, source port, destination port, its directed links NIC to NIC)."""
    links = np.array([tp.host_up[a], *np.asarray(inner).tolist(), tp.host_down[b]], np.int64)
    return (int(tp.host_nic[a]), int(tp.host_nic[b]), port_of(fabric, tp.host_up[a]),
            port_of(fabric, tp.host_down[b], enter=True), links)


def port_of(fabric: Fabric, link: int, enter: bool = False) -> int:
    """The port a directed cable link leaves (or, ``enter``, arrives at)."""
    c, back = divmod(int(link), 2)
    a, b = int(fabric.cables_t.port_a[c]), int(fabric.cables_t.port_b[c])
    first, second = (b, a) if back else (a, b)
    return second if enter else first


def _path_through(tp: Topology, r: Reach, s: int, t: int, li: int, lo: int) -> list[int]:
    """Links (indices) of one route from switch ``s`` to ``t`` that takes ``li`` then ``lo``."""
    def steps(u: int, ph: int) -> list[tuple[int, int]]:
        ls = np.flatnonzero(tp.src == u)
        if ph == 0:
            return [(int(x), 0 if r.stay[0, x] else 1) for x in ls[r.out0[0, ls]]]
        return [(int(x), 1) for x in ls[r.out1[0, ls]]]
    prev: dict[tuple[int, int], tuple[tuple[int, int], int] | None] = {(s, 0): None}
    queue, goal = [(s, 0)], None
    while queue and goal is None:
        u, ph = queue.pop(0)
        for x, nph in steps(u, ph):
            state = (int(tp.dst[x]), nph)
            if x == li and any(y == lo for y, _ in steps(*state)):
                prev.setdefault(state, ((u, ph), x))
                goal = state
                break
            if state not in prev:
                prev[state] = ((u, ph), x)
                queue.append(state)
    assert goal is not None, "the route was found by reach"
    back: list[int] = []
    step = prev[goal]
    while step is not None:
        here, x = step
        back.append(x)
        step = prev[here]
    path = back[::-1]
    state = goal
    nxt = [y for y in steps(*state) if y[0] == lo][0]
    while True:
        path.append(nxt[0])
        state = (int(tp.dst[nxt[0]]), nxt[1])
        if state[0] == t:
            return path
        nxt = steps(*state)[0]


__all__ = ["ClosingFlows", "Flow", "closing_flows", "host_flow", "port_of"]
