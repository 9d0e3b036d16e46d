"""Small reference fabrics of the validation cases (congestion.md §7), built by hand.

All links run at one speed; hosts are single-port NICs named ``h1``…, switches
``s1``…. Each builder returns ``(fabric, flows)`` with the case's traffic.
"""

from __future__ import annotations

import numpy as np

from ..model import Fabric
from .workloads import Flows


def _parts(tech: str) -> tuple[str, str, str]:
    return ("eth_switch", "SN4700", "CX7-1P") if tech == "eth" else ("ib_switch", "QM9700", "CX7-1P")


def _mode(tech: str, gbps: int) -> str:
    return f"{gbps}GbE" if tech == "eth" else {40: "4xFDR10", 100: "4xEDR", 200: "4xHDR", 400: "4xNDR"}[gbps]


class _Builder:
    def __init__(self, gbps: int, tech: str, cable_m: float) -> None:
        self.f = Fabric(name="testbed")
        self.kind, self.sw_part, self.nic_part = _parts(tech)
        self.mode = _mode(tech, gbps)
        self.cable_m = cable_m
        self.next_port: dict[int, int] = {}

    def switch(self, name: str) -> int:
        return self.f.add_device(self.kind, self.sw_part, name, mode=self.mode)

    def host(self, name: str, sw: int) -> int:
        h = self.f.add_device("nic", self.nic_part, name, mode=self.mode)
        self.join(h, sw)
        return h

    def join(self, a: int, b: int) -> None:
        pa = self.next_port.get(a, 1)
        pb = self.next_port.get(b, 1)
        self.f.add_cable(self.f.port_id(a, pa), self.f.port_id(b, pb), self.cable_m)
        self.next_port[a], self.next_port[b] = pa + 1, pb + 1


def dumbbell(senders: int = 2, gbps: int = 40, tech: str = "eth", cable_m: float = 2.0):
    """V3: ``senders`` hosts → one switch → one receiver."""
    b = _Builder(gbps, tech, cable_m)
    s = b.switch("s1")
    r = b.host("r", s)
    hs = [b.host(f"h{i + 1}", s) for i in range(senders)]
    return b.f, Flows(np.array(hs), np.full(senders, r))


def victim(n: int = 3, gbps: int = 40, tech: str = "eth", cable_m: float = 2.0):
    """V4: N senders under S2 and A under S1 send to R (under S2); V under S1 sends to R′.

    Flow order: H1..HN, A, V (the victim is the last flow).
    """
    b = _Builder(gbps, tech, cable_m)
    s1, s2 = b.switch("s1"), b.switch("s2")
    b.join(s1, s2)
    r, r2 = b.host("r", s2), b.host("r2", s2)
    hs = [b.host(f"h{i + 1}", s2) for i in range(n)]
    a, v = b.host("a", s1), b.host("v", s1)
    src = np.array(hs + [a, v])
    dst = np.array([r] * (n + 1) + [r2])
    return b.f, Flows(src, dst)


def port_fairness(k: int = 4, gbps: int = 40, tech: str = "eth", cable_m: float = 2.0):
    """V5: R's switch S2 gets 1 flow on port P1 (host H) and k flows on port P2 (behind S1).

    Flow order: the lone flow first, then the k flows behind S1.
    """
    b = _Builder(gbps, tech, cable_m)
    s1, s2 = b.switch("s1"), b.switch("s2")
    b.join(s1, s2)
    r = b.host("r", s2)
    h = b.host("h", s2)
    ks = [b.host(f"k{i + 1}", s1) for i in range(k)]
    return b.f, Flows(np.array([h] + ks), np.full(k + 1, r))
