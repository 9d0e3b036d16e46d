"""Port breakout: a switch's cages and the lower-rate ports each native port splits into.

A switch part names its physical ``cages`` (an SN5600 has 64 OSFP cages, one 800GbE port each;
a QM9700 has 32 twin-port OSFP cages carrying its 64 NDR ports) and its ``breakouts``, each
``"<N>x<rate>"``: one native port becomes N ports at that rate (SN5600 ``"2x400GbE"``: 64 × 800GbE
→ 128 × 400GbE). Breaking a part out gives a derived part (:func:`broken_out`, id
``<base>-<mode>``, e.g. ``SN5600-2x400GbE``) with the sub-ports as its ports, in cage order
(sub-ports a, b, … of cage 1, then of cage 2, …), each taking its share of the native port's
SerDes lanes — so the SONiC export names them as SONiC's breakout SKUs do (SN5600 2 × 400G:
``Ethernet0`` lanes 0–3 and ``Ethernet4`` lanes 4–7 on cage 1, alias ``etp1a``/``etp1b``). The
derived part is the same product, same price and power: the BOM counts it as its base switch, and
one breakout (splitter) cable per cage that carries links.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from .errors import CatalogError, FabricError
from .tech import LinkRate

if TYPE_CHECKING:
    from .catalog import Part
    from .fabric import Fabric

#: Ports one native port may split into.
SPLITS = (2, 4, 8)
_MODE = re.compile(r"^([0-9])x(.+)$")


@dataclass(frozen=True)
class Breakout:
    """One breakout mode: a native port becomes ``split`` ports at ``rate``."""

    split: int
    rate: LinkRate

    @staticmethod
    def parse(text: str, where: str = "breakout") -> Breakout:
        m = _MODE.match(text) if isinstance(text, str) else None
        if m is None or int(m.group(1)) not in SPLITS:
            raise CatalogError(f"{where}: {str(text)[:40]!r} is not a breakout such as 2x400GbE "
                               f"(split {', '.join(map(str, SPLITS))})")
        try:
            return Breakout(int(m.group(1)), LinkRate.parse(m.group(2)))
        except FabricError as e:
            raise CatalogError(f"{where}: {e}") from None

    def __str__(self) -> str:
        return f"{self.split}x{self.rate}"


def check_breakouts(modes: tuple[str, ...], port: str, where: str) -> None:
    """A switch's ``breakouts``: same technology, no faster in all than the native port. (``cages``
    is not checked against ``ports``: a user part derived from a bundled one with another port
    count, an imported switch, keeps its base's; :func:`cages_of` then counts one per port.)"""
    native = LinkRate.parse(port)
    for i, text in enumerate(modes):
        b = Breakout.parse(text, f"{where}.breakouts[{i}]")
        if b.rate.tech != native.tech or b.rate.gbps * b.split > native.gbps + 1e-9:
            raise CatalogError(f"{where}.breakouts[{i}]: {text} does not fit one {native} port")


def cages_of(part: Part) -> int:
    """The part's physical cages (a broken-out part: its base's); one per port when not given or
    when they do not share the ports evenly (a user part derived with another port count)."""
    if part.cages and part.ports % part.cages == 0:
        return part.cages
    return max(part.ports // split_of(part), 1)


def split_of(part: Part) -> int:
    """Ports each native port became (1: not broken out)."""
    return Breakout.parse(part.breakout).split if part.breakout else 1


def ports_per_cage(part: Part) -> int:
    return part.ports // cages_of(part)


def cage_of(part: Part, num: int) -> tuple[int, int]:
    """(cage, sub-port index 0, 1, …) of front-panel port ``num`` (1-based)."""
    per = ports_per_cage(part)
    return (num - 1) // per + 1, (num - 1) % per


def broken_out(base: Part, mode: str) -> Part:
    """``base`` with every native port split as ``mode`` (one of ``base.breakouts``)."""
    if mode not in base.breakouts:
        raise FabricError(f"{base.id} has no breakout {mode} (it has {', '.join(base.breakouts) or 'none'})")
    b = Breakout.parse(mode)
    lanes: list[str] = []
    for text in base.port_lanes:
        own = text.split(",")
        if len(own) % b.split:
            lanes = []
            break
        share = len(own) // b.split
        lanes += [",".join(own[k * share:(k + 1) * share]) for k in range(b.split)]
    return replace(base, id=f"{base.id}-{mode}", ports=base.ports * b.split, port=str(b.rate), user=True,
                   cages=cages_of(base), breakouts=(), breakout_of=base.id, breakout=mode,
                   port_lanes=tuple(lanes), name=f"{base.name}, ports broken out {mode}",
                   notes=f"The {base.id} with each native {base.port} port broken out into {b.split} × "
                         f"{b.rate} ({base.ports * b.split} ports on {cages_of(base)} cages, a breakout "
                         f"cable per cage). {base.breakout_source}".strip())


def fitting_breakout(base: Part, radix: int, rate: LinkRate | None) -> Part | None:
    """The breakout of ``base`` that gives at least ``radix`` ports at ``rate`` (None: any rate),
    splitting each port as little as possible; None when none does."""
    fits = [Breakout.parse(m) for m in base.breakouts]
    fits = [b for b in fits if base.ports * b.split >= radix and (rate is None or b.rate == rate)]
    if not fits:
        return None
    return broken_out(base, str(min(fits, key=lambda b: (b.split, -b.rate.gbps))))


def cage_keys(fabric: Fabric, cids: np.ndarray, rank: np.ndarray | None = None) -> np.ndarray:
    """Per cable of ``cids``: which physical cable carries it (equal keys, one cable). A broken-out
    cage takes one cable for all its sub-ports (an SN5600 cage at 2 × 400GbE: a splitter to two NIC
    ports, or a twin-port cable up to a spine): a link with a broken-out end is keyed by that end's
    (switch, cage) — with both ends broken out, the end lower in ``rank`` (per device, e.g. its tier:
    the leaf's cage for a leaf–spine link; lower device id on a tie or without ``rank``). Any other
    link is a cable of its own (a negative key)."""
    t, pt, ct = fabric.devices_t, fabric.ports_t, fabric.cables_t
    cids = np.asarray(cids, np.int64)
    per = np.ones(t.n, np.int64)
    for idx in np.unique(t.part[t.alive]).tolist():
        pid = fabric.parts.id_of(int(idx)) if idx >= 0 else None
        part = fabric.catalog.get(pid) if pid is not None and pid in fabric.catalog else None
        if part is not None and part.breakout:
            per[t.alive & (t.part == idx)] = ports_per_cage(part)
    order = np.zeros(t.n, np.int64) if rank is None else np.asarray(rank, np.int64)
    ends = [ct.port_a[cids].astype(np.int64), ct.port_b[cids].astype(np.int64)]
    devs = [pt.device[e].astype(np.int64) for e in ends]
    cages = [(e - t.first_port[d].astype(np.int64)) // per[d] for e, d in zip(ends, devs, strict=True)]
    split = [per[d] > 1 for d in devs]
    a_first = (order[devs[0]] < order[devs[1]]) | ((order[devs[0]] == order[devs[1]]) & (devs[0] <= devs[1]))
    use_a = split[0] & (~split[1] | a_first)
    key = np.where(use_a, devs[0], devs[1]) * (1 << 20) + np.where(use_a, cages[0], cages[1])
    return np.where(split[0] | split[1], key, -1 - cids)


def used_cages(fabric: Fabric, skip: np.ndarray | None = None) -> dict[str, int]:
    """Broken-out part id → cages of its switches with at least one cabled sub-port: the
    breakout (splitter) cables to order, one per cage; ``skip``: cables not counted (those on
    breakout cable parts, ordered by :mod:`.cage_cables`). Parts left with no cage are omitted."""
    t, pt = fabric.devices_t, fabric.ports_t
    out: dict[str, int] = {}
    for idx in np.unique(t.part[t.alive]).tolist():
        part_id = fabric.parts.id_of(int(idx)) if idx >= 0 else None
        part = fabric.catalog.get(part_id) if part_id is not None and part_id in fabric.catalog else None
        if part is None or not part.breakout:
            continue
        devs = np.flatnonzero(t.alive & (t.part == idx))
        first = t.first_port[devs].astype(np.int64)
        nums = np.arange(part.ports)
        cab = pt.cable[first[:, None] + nums[None, :]]                      # (device, port)
        cabled = (cab >= 0) & (~np.isin(cab, skip) if skip is not None and len(skip) else True)
        per = ports_per_cage(part)
        used = cabled.reshape(len(devs), -1, per).any(axis=2)
        if skip is None or used.any():
            out[part.id] = int(np.count_nonzero(used))
    return out


__all__ = ["Breakout", "SPLITS", "broken_out", "cage_keys", "cage_of", "cages_of", "check_breakouts",
           "fitting_breakout", "ports_per_cage", "split_of", "used_cages"]
