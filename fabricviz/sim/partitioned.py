"""Traffic inside one InfiniBand partition: who may send to whom.

A run goes in one partition (``--partition NAME|0xPKEY``; default: the Default partition
0x7fff). Partition membership is what OpenSM's partition manager makes of the design's
partitions.conf (:func:`fabricviz.ib.partitions.resolve`), per end port, and the rules
are the IB architecture's P_Key check:

* a host whose port (the NIC port its routes leave by) is not in the partition is left out
  of the run, with the reason ``not in partition NAME (0xPKEY)``;
* two members may talk when at least one of them is a full member; a flow between two
  limited members is refused (``both limited members of NAME``), the rest of the run goes on.

A design with no partitions.conf runs as OpenSM does without one: every port a full member
of the Default partition, so nothing is filtered. Ethernet designs have no partitions.

A multi-plane design (:mod:`fabricviz.model.planes`) is one subnet per plane, each with its own SM
running the design's partitions.conf (:func:`plane_scope`): a NIC is a (full) member when its port
on some plane is — a port GUID names one plane's port of the NIC, and that plane's SM lists it; the
NIC's ports on the other planes are taken as listed the same way (each plane's SM would list its
own port of the NIC), so a partition holds the same hosts on every plane.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..ib.partitions import DEFAULT_PKEY, design_partitions, resolve
from ..model import Fabric, FabricError
from ..model.fabric import KIND_CODE
from ..model.planes import plane_fabric
from .reach import Reach, Unreachable, fabric_tech, nic_ports


@dataclass(frozen=True)
class RefusedFlow:
    """A flow the partition does not allow, and why."""

    src: int
    dst: int
    reason: str


@dataclass(frozen=True)
class PartitionScope:
    """One partition's members, per device id (NICs by their routed port; bound GPUs as their NIC)."""

    name: str
    pkey: int
    member: np.ndarray      # bool per device id
    full: np.ndarray        # bool per device id

    @property
    def label(self) -> str:
        """``compute (0x8001)``: the P_Key as partitions.conf files write it (the full-member form;
        the Default partition as 0x7fff)."""
        return f"{self.name} ({pkey_text(self.pkey)})"

    def refuse(self, fabric: Fabric, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
        """Mask of flows (src, dst device ids) between two limited members."""
        both = self.member[src] & self.member[dst]
        return both & ~self.full[src] & ~self.full[dst]


def pkey_text(pkey: int) -> str:
    return "0x7fff" if pkey & 0x7FFF == DEFAULT_PKEY else f"0x{pkey | 0x8000:04x}"


def _pick(parts, partition: str | int | None):
    if partition is None:
        want: str | int = DEFAULT_PKEY
    elif isinstance(partition, int):
        want = partition & 0x7FFF
    else:
        text = partition.strip()
        try:
            want = int(text, 16) & 0x7FFF if text.lower().startswith("0x") else text
        except ValueError:
            raise FabricError(f"partition {partition!r}: not a P_Key (use 0x8001) or a partition name") from None
    for p in parts:
        if p.pkey == want or p.name == want:
            return p
    names = ", ".join(f"{p.name} ({pkey_text(p.pkey)})" for p in parts)
    raise FabricError(f"partition {partition!r}: the design has no such partition (it has {names})")


def partition_scope(fabric: Fabric, partition: str | int | None = None, subnet=None) -> PartitionScope | None:
    """The members of ``partition`` on ``fabric`` (None: nothing to filter — no partitions.conf
    and the Default partition asked for)."""
    if fabric_tech(fabric) != "ib":
        if partition is None:
            return None
        raise FabricError(f"partition {partition!r}: partitions (P_Keys) are InfiniBand's; "
                          "this is an Ethernet design")
    conf = design_partitions(fabric)
    if conf is None or not conf.applies_default:
        if partition is None or _is_default(partition):
            return None
        raise FabricError(f"partition {partition!r}: the design has no partitions.conf "
                          "(every port is a full member of the Default partition 0x7fff)")
    if subnet is None:
        from ..ib.routing import default_sm
        from ..ib.subnet import discover
        subnet = discover(fabric, default_sm(fabric))
    part = _pick(resolve(conf, subnet).partitions, partition)
    t, pt = fabric.devices_t, fabric.ports_t
    nics = np.flatnonzero(t.alive & (t.kind == KIND_CODE["nic"]))
    port = nic_ports(fabric)[nics]
    has = port >= 0
    guid = np.zeros(len(nics), np.uint64)
    guid[has] = pt.guid[port[has]].astype(np.uint64)
    full_g = np.fromiter(part.full, np.uint64, len(part.full))
    lim_g = np.fromiter(part.limited, np.uint64, len(part.limited))
    member = np.zeros(t.n, bool)
    full = np.zeros(t.n, bool)
    full[nics] = has & np.isin(guid, full_g)
    member[nics] = full[nics] | (has & np.isin(guid, lim_g))
    gpus = np.flatnonzero(t.alive & (t.kind == KIND_CODE["gpu"]) & (t.bound >= 0))
    member[gpus] = member[t.bound[gpus]]
    full[gpus] = full[t.bound[gpus]]
    return PartitionScope(part.name, part.pkey, member, full)


def plane_scope(fabric: Fabric, partition: str | int | None) -> PartitionScope | None:
    """``partition`` on a multi-plane design (module doc): the union of its members on every plane's
    subnet (a plane that cannot be swept — all its switches failed — adds none; when no plane can,
    the first plane's error). None: nothing to filter."""
    got: list[PartitionScope] = []
    first: FabricError | None = None
    swept = 0
    for p in fabric.settings.planes.planes:
        try:
            scope = partition_scope(plane_fabric(fabric, p.index), partition)
        except FabricError as e:
            first = first or e
            continue
        swept += 1
        if scope is not None:
            got.append(scope)
    if not swept and first is not None:
        raise first
    if not got:
        return None
    return PartitionScope(got[0].name, got[0].pkey, np.logical_or.reduce([s.member for s in got]),
                          np.logical_or.reduce([s.full for s in got]))


def split_refused(flows: Any, scope: PartitionScope | None, fabric: Fabric) -> tuple[Any, tuple[RefusedFlow, ...]]:
    """``flows`` without those ``scope`` refuses (between two limited members), and the refused ones;
    FabricError when it refuses them all."""
    if scope is None:
        return flows, ()
    bad = scope.refuse(fabric, flows.src, flows.dst)
    why = f"both limited members of {scope.label}"
    refused = tuple(RefusedFlow(int(s), int(d), why) for s, d in zip(flows.src[bad].tolist(),
                                                                        flows.dst[bad].tolist(), strict=True))
    if bad.all():
        raise FabricError(f"no flows to simulate: all {len(flows):,} are between limited members of "
                          f"partition {scope.label} (a limited member talks only to full members)")
    return (flows.select(~bad) if bad.any() else flows), refused


def _is_default(partition: str | int) -> bool:
    if isinstance(partition, int):
        return partition & 0x7FFF == DEFAULT_PKEY
    text = partition.strip()
    return text.lower() in ("default", "0x7fff", "0xffff")


def scoped_reach(fabric: Fabric, reach: Reach, scope: PartitionScope | None) -> Reach:
    """``reach`` with the hosts outside ``scope`` left out too (by their NIC; a server once
    when none of its NICs is a member)."""
    if scope is None:
        return reach
    t = fabric.devices_t
    nics = np.flatnonzero(t.alive & (t.kind == KIND_CODE["nic"]) & (nic_ports(fabric) >= 0))
    outside = nics[~scope.member[nics] & ~reach.out[nics]]
    if not len(outside):
        return replace(reach, scope=scope)
    out = reach.out.copy()
    out[outside] = True
    gpus = np.flatnonzero(t.alive & (t.kind == KIND_CODE["gpu"]) & (t.bound >= 0))
    out[gpus] = out[t.bound[gpus]]
    parent = t.parent[outside].astype(np.int64)
    reason = f"not in partition {scope.label}"
    seen: set[int] = set()
    left = list(reach.left_out)
    for nic, par in zip(outside.tolist(), parent.tolist(), strict=True):
        if par >= 0:
            kids = fabric.children_ids(par)
            kid_nics = kids[(t.kind[kids] == KIND_CODE["nic"])]
            if not scope.member[kid_nics].any():
                if par not in seen:
                    seen.add(par)
                    left.append(Unreachable(par, fabric.name_of(par), reason))
                continue
        left.append(Unreachable(nic, fabric.name_of(nic), reason))
    left.sort(key=lambda u: u.device)
    return Reach(out, tuple(left), scope)


def refused_line(refused: tuple[RefusedFlow, ...], fabric: Fabric, shown: int = 3) -> str:
    """``2 flows refused by the partition: a → b (both limited members of compute (0x8001)), …``."""
    n = len(refused)
    if not n:
        return ""
    rows = ", ".join(f"{fabric.name_of(r.src)} → {fabric.name_of(r.dst)} ({r.reason})" for r in refused[:shown])
    more = f", … and {n - shown:,} more" if n > shown else ""
    return f"{n:,} flow{'' if n == 1 else 's'} refused by the partition: {rows}{more}"


__all__ = ["PartitionScope", "RefusedFlow", "partition_scope", "plane_scope", "refused_line", "scoped_reach",
           "split_refused"]
