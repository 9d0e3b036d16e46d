"""Path trace between two end ports by the LFTs, like ``ibtracert``.

The route starts at the source CA port, enters its switch, and at every switch
the LFT entry for the destination LID names the egress port, until the port
owning that LID is reached. A dead end (no LFT entry) or more than 64 hops (a
loop) is reported instead of a path.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import FabricError
from ..model.numbers import is_digits
from .routing import Routing
from .subnet import NO_PATH

MAX_HOPS = 64


@dataclass(frozen=True)
class Hop:
    switch: str
    in_port: int
    out_port: int


@dataclass(frozen=True)
class Trace:
    src: str              # source port name (device:port)
    dst: str
    slid: int
    dlid: int
    hops: tuple[Hop, ...]
    ok: bool
    problem: str | None = None

    def format(self) -> str:
        lines = [f"From {self.src} (LID {self.slid}) to {self.dst} (LID {self.dlid})"]
        for h in self.hops:
            lines.append(f"  [{h.in_port}] {h.switch} [{h.out_port}]")
        lines.append(f"  -> {self.dst}" if self.ok else f"  !! {self.problem}")
        lines.append(f"{len(self.hops)} switch hop(s)" if self.ok else "no path")
        return "\n".join(lines)


def endpoint_port(routing: Routing, ref: str) -> int:
    """The CA port (model id) for a name: ``dev:port``, a NIC, a GPU (its NIC) or a server (first NIC)."""
    f = routing.subnet.fabric
    if ":" in ref and is_digits(ref.rpartition(":")[2]):
        p = f.port_id(ref)
    else:
        d = f.device(ref)
        if d.kind == "gpu" and d.nic is not None:
            d = d.nic
        elif d.kind == "server" and d.nics:
            d = d.nics[0]
        if d.kind == "ib_switch":
            return -1 - d.id          # a switch: its port 0
        p = -1
        for port in d.ports:
            if int(port.id) in set(routing.subnet.ca_ports.tolist()):
                p = int(port.id)
                break
        if p < 0:
            raise FabricError(f"{d.name}: no port of it was discovered by the subnet manager")
    return p


def trace(routing: Routing, src: str, dst: str) -> Trace:
    """Follow the LFTs from ``src`` to ``dst`` (names as in :func:`endpoint_port`)."""
    sn, lids = routing.subnet, routing.lids
    f = sn.fabric
    sp, dp = endpoint_port(routing, src), endpoint_port(routing, dst)
    ca_index = {p: j for j, p in enumerate(sn.ca_ports.tolist())}

    def lid_and_name(p: int) -> tuple[int, str, int | None]:
        if p < 0:
            d = -1 - p
            s = sn.sw_index[d]
            return int(lids.sw_lid[s]), f"{f.name_of(d)}:0", s
        j = ca_index.get(p)
        if j is None:
            raise FabricError(f"{f.port_name(p)}: not discovered by the subnet manager (not cabled to the subnet)")
        return int(lids.ca_lid[j]), f.port_name(p), None

    slid, sname, s_sw = lid_and_name(sp)
    dlid, dname, _ = lid_and_name(dp)
    hops: list[Hop] = []
    if s_sw is not None:
        cur, in_port = s_sw, 0
    else:
        j = ca_index[sp]
        cur, in_port = int(sn.ca_sw[j]), int(sn.ca_sw_port[j])
        if cur < 0:
            return Trace(sname, dname, slid, dlid, (), False, f"{sname} is not cabled to a switch")
    for _ in range(MAX_HOPS):
        out = int(routing.lft[cur, dlid]) if dlid < routing.lft.shape[1] else NO_PATH
        name = sn.switch_name(cur)
        if out == NO_PATH:
            hops.append(Hop(name, in_port, out))
            return Trace(sname, dname, slid, dlid, tuple(hops), False,
                         f"dead end: {name} has no LFT entry for LID {dlid}")
        hops.append(Hop(name, in_port, out))
        if out == 0:
            return Trace(sname, dname, slid, dlid, tuple(hops), dp < 0 and sn.sw_index[-1 - dp] == cur,
                         None if dp < 0 and sn.sw_index[-1 - dp] == cur else f"{name} delivers LID {dlid} to itself")
        nxt = int(sn.nbr_sw[cur, out])
        if nxt < 0:
            peer_dev = int(sn.nbr_dev[cur, out])
            peer = f.port_id(peer_dev, int(sn.nbr_port[cur, out])) if peer_dev >= 0 else -1
            ok = peer == dp
            return Trace(sname, dname, slid, dlid, tuple(hops), ok,
                         None if ok else f"{name} port {out} leads to "
                                         f"{f.name_of(peer_dev) if peer_dev >= 0 else 'nothing'}, not to {dname}")
        in_port = int(sn.nbr_port[cur, out])
        cur = nxt
    return Trace(sname, dname, slid, dlid, tuple(hops), False, f"routing loop: more than {MAX_HOPS} hops")


def path_cables(routing: Routing, t: Trace) -> tuple[int, ...]:
    """The cables a trace crosses, in order: the source CA's cable, then each hop's egress cable."""
    f = routing.subnet.fabric
    out: list[int] = []
    if not t.src.endswith(":0"):
        c = int(f.ports_t.cable[f.port_id(t.src)])
        if c >= 0:
            out.append(c)
    for h in t.hops:
        if 0 < h.out_port < NO_PATH:
            c = int(f.ports_t.cable[f.port_id(h.switch, h.out_port)])
            if c >= 0:
                out.append(c)
    return tuple(out)
