"""What the switch and NIC configuration writers share (a leaf: imports no writer).

:mod:`.switch_config` builds these views of a lossless RoCE design; :mod:`.sonic_config`,
:mod:`.nvue_config` and :mod:`.nic_config` write them in each OS's own format.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

CNP_DSCP = 48                   # NVIDIA's default DSCP (and priority 6) of RoCE CNPs
CNP_PRIORITY = 6


@dataclass(frozen=True)
class PortConfig:
    """One lossless switch port with the plan's numbers (bytes)."""

    port: int                   # model port id
    num: int                    # front-panel number (1-based)
    sonic_name: str             # Ethernet<first lane>
    lanes: tuple[int, ...]      # the port's SerDes lanes (SONiC PORT|lanes)
    cumulus_name: str           # swp<n>
    speed_gbps: float           # the link's rate (the cable's negotiated speed)
    cable_m: float
    cable_length: str           # the SONiC CABLE_LENGTH value, e.g. "5m"
    headroom: int
    xoff: int
    xon: int
    ecn_kmin: int
    ecn_kmax: int
    ecn_pmax: float
    peer: str                   # the device at the cable's other end

    @property
    def speed_mbps(self) -> int:
        return int(round(self.speed_gbps * 1000))


@dataclass(frozen=True)
class SwitchConfig:
    """One switch: its ports and the budget numbers the export writes."""

    name: str
    part: str
    ports: tuple[PortConfig, ...]
    buffer_bytes: float         # NaN: unknown
    shared_pool: float          # NaN: unknown
    dynamic_th: int


@dataclass(frozen=True)
class NicPort:
    """One RoCE NIC cabled to a lossless switch port."""

    host: str                   # the server (or the NIC itself when it has no server)
    rdma_dev: str               # mlx5_<n>
    switch: str
    switch_port: str
    cable_m: float


@dataclass(frozen=True)
class ExportSettings:
    """What every writer configures: the lossless priorities with their DSCPs (same order)."""

    priorities: tuple[int, ...]
    dscps: tuple[int, ...]
    mtu: int
    method: str

    @property
    def dscp_of(self) -> dict[int, int]:
        return dict(zip(self.priorities, self.dscps, strict=True))

    @property
    def text(self) -> str:
        """``priority 3, DSCP 26`` or ``priorities 3,4, DSCP 26,34`` (file headers)."""
        many = len(self.priorities) > 1
        return (f"priorit{'ies' if many else 'y'} {','.join(map(str, self.priorities))}, "
                f"DSCP {','.join(map(str, self.dscps))}")


def ranges(values: Sequence[int]) -> list[str]:
    """``[0, 1, 2, 4, 5, 7]`` → ``["0-2", "4-5", "7"]`` (SONiC's queue/PG ranges)."""
    out: list[str] = []
    vals = sorted(set(int(v) for v in values))
    if not vals:
        return out
    runs = np.split(np.array(vals), np.flatnonzero(np.diff(vals) > 1) + 1)
    for r in runs:
        out.append(f"{r[0]}" if len(r) == 1 else f"{r[0]}-{r[-1]}")
    return out
