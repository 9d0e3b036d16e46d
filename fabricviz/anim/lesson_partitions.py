"""The lesson actions about InfiniBand partitions: ``partitions`` and ``reach`` (Qt-free).

``partitions`` puts a partitions.conf into the lesson's design, given as OpenSM's text
(``conf``; ``{host}`` stands for that host's CA port GUID, so a lesson need not spell GUIDs)
or as a list (``partitions``: ``[{"name", "pkey", "full": [hosts], "limited": [hosts],
"ipoib"}]``), and says what OpenSM's partition manager makes of it
(:func:`fabricviz.ib.partitions.resolve`). ``reach`` says whom a host can talk to over the
P_Key tables the SM programs (:func:`fabricviz.ib.pkeys.design_tables`): a shared P_Key
with at least one side a full member (IBA 10.9.3), and for each host in ``to`` why or why not.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

from ..model import Fabric, FabricError
from ..model.fabric import KIND_CODE
from .lesson_results import PartitionReach, PartitionRow, TalkVerdict

if TYPE_CHECKING:
    from .lesson_actions import Fields, Run

#: Members listed by name up to this many; more are counted.
LISTED = 8


def host_guids(fabric: Fabric, ref: str) -> list[int]:
    """The end-port GUIDs a name stands for: a server's cabled IB NIC ports, a NIC's, one
    port (``host/mlx5_0:1``), or a switch (its port 0: the node GUID)."""
    t, pt = fabric.devices_t, fabric.ports_t
    d = fabric.find(ref)
    if d is None:
        try:
            return [int(pt.guid[fabric.port(ref).id])]
        except (FabricError, KeyError, ValueError):
            raise FabricError(f"{ref!r}: no such host, NIC, switch or port") from None
    if int(t.kind[d]) == KIND_CODE["ib_switch"]:
        return [int(t.guid[d])]
    nics = [int(d)] if int(t.kind[d]) == KIND_CODE["nic"] else \
        [int(c) for c in fabric.children_ids(d) if int(t.kind[c]) == KIND_CODE["nic"]]
    out = []
    for n in nics:
        first, k = int(t.first_port[n]), int(t.nports[n])
        for p in range(first, first + k):
            if int(pt.cable[p]) >= 0 and int(pt.tech[p]) == 1:
                out.append(int(pt.guid[p]))
    if not out:
        raise FabricError(f"{ref!r}: no cabled InfiniBand port")
    return out


def _config(fabric: Fabric, p: dict):
    from ..formats.partitions_conf import loads
    from ..ib.partitions import Member, Partition, PartitionConfig
    if ("conf" in p) == ("partitions" in p):
        raise FabricError("give either conf (partitions.conf text) or partitions (a list)")
    if "conf" in p:
        text = re.sub(r"\{([^{}]+)\}", lambda m: f"0x{host_guids(fabric, m.group(1))[0]:016x}", str(p["conf"]))
        return loads(text, "conf")
    rows = p["partitions"]
    if not isinstance(rows, list) or not rows:
        raise FabricError("partitions: a list of {name, pkey, full, limited}")
    out = []
    for i, row in enumerate(rows):
        try:
            members = [Member(g, how) for how in ("full", "limited") for ref in row.get(how, [])
                       for g in host_guids(fabric, ref)]
            out.append(Partition(str(row["name"]), int(str(row["pkey"]), 16) & 0x7FFF, bool(row.get("ipoib", False)),
                                 members=tuple(members), line=i + 1))
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise FabricError(f"partitions[{i}]: {e}") from None
    return PartitionConfig(out, "lesson")


def _subnet(fabric: Fabric):
    from ..ib.routing import default_sm
    from ..ib.subnet import discover
    return discover(fabric, default_sm(fabric))


def guid_owners(fabric: Fabric, end_ports: dict[int, str]) -> dict[int, str]:
    """End-port GUID → the name a lesson uses: the host (top-level device) of a CA port, the switch."""
    t, pt = fabric.devices_t, fabric.ports_t
    out: dict[int, str] = {}
    by_guid = {int(g): int(d) for d, g in zip(np.flatnonzero(t.alive).tolist(), t.guid[t.alive].tolist(), strict=True)}
    ca = np.flatnonzero((pt.cable >= 0) & (t.kind[pt.device] == KIND_CODE["nic"]))
    for port, g in zip(ca.tolist(), pt.guid[ca].tolist(), strict=True):
        d = int(pt.device[port])
        top = int(t.parent[d]) if int(t.parent[d]) >= 0 else d
        out.setdefault(int(g), fabric.name_of(top))
    for g in end_ports:
        if g not in out and g in by_guid:
            out[g] = fabric.name_of(by_guid[g])
    return out


def _names(names: list[str], of: str) -> str:
    if not names:
        return "none"
    if len(names) <= LISTED:
        return ", ".join(names)
    return f"{len(names)} {of}"


def _label(name: str, pkey: int) -> str:
    from ..sim.partitioned import pkey_text
    return f"{name} ({pkey_text(pkey)})"


def partitions_action(run: Run, p: dict) -> tuple[list[str], Fields]:
    """Put the partitions into (a copy of) the lesson's design and say who is in which."""
    from ..formats.partitions_conf import dumps
    from ..ib.partitions import resolve, to_meta
    f = run.fabric = run.fabric.copy()            # earlier steps keep the design without them
    conf = _config(f, p)
    f.meta["partitions"] = to_meta(conf)
    run.routing, run.timeline, run.shown = None, None, -1
    res = resolve(conf, _subnet(f))
    owner = guid_owners(f, res.end_ports)
    lines = ["partitions.conf as OpenSM reads it:"]
    lines += [f"  {ln}" for ln in dumps(conf).splitlines()[1:]]
    rows = []
    file_order = {s.pkey: i for i, s in reversed(list(enumerate(conf.statements)))}
    for part in sorted(res.partitions, key=lambda q: file_order.get(q.pkey, -1)):   # the Default first
        full = sorted({owner.get(g, f"0x{g:016x}") for g in part.full})
        limited = sorted({owner.get(g, f"0x{g:016x}") for g in part.limited} - set(full))
        rows.append(PartitionRow(part.name, part.pkey, tuple(full), tuple(limited)))
        lines.append(f"{_label(part.name, part.pkey)}: full members {_names(full, 'end ports')}; "
                     f"limited members {_names(limited, 'end ports')}")
    for g, line in res.unknown:
        lines.append(f"port GUID 0x{g:016x} (line {line}) is no end port of the subnet; ignored")
    return lines, {"partitions": tuple(rows)}


def _hosts(fabric: Fabric) -> list[str]:
    """Top-level hosts with an InfiniBand CA port: servers, and NICs of imported fabrics."""
    t = fabric.devices_t
    top = t.alive & (t.parent < 0) & ((t.kind == KIND_CODE["server"]) | (t.kind == KIND_CODE["nic"]))
    out = []
    for d in np.flatnonzero(top).tolist():
        try:
            host_guids(fabric, fabric.name_of(d))
        except FabricError:
            continue
        out.append(fabric.name_of(d))
    return out


def talk(tables: Any, names: dict[int, str], a: list[int], b: list[int]) -> tuple[bool, list[int], str]:
    """(allowed, P_Keys it may use, why) between the end ports ``a`` and the end ports ``b``."""
    from ..ib.partitions import DEFAULT_PKEY, PKEY_MASK
    from ..ib.pkeys import shared_pkeys
    over: set[int] = set()
    both: set[int] = set()
    for x in a:
        for y in b:
            ta, tb = tables.end_table(x), tables.end_table(y)
            over |= set(shared_pkeys(ta, tb))
            both |= {e & PKEY_MASK for e in ta if e & PKEY_MASK} & {e & PKEY_MASK for e in tb if e & PKEY_MASK}
    if over:
        return True, sorted(over), "over " + ", ".join(_label(names.get(k, hex(k)), k) for k in sorted(over))
    limited = sorted(both - {DEFAULT_PKEY})
    if limited:
        return False, [], "both limited members of " + ", ".join(_label(names.get(k, hex(k)), k) for k in limited)
    if both:
        return False, [], "no shared partition (only the Default partition, where both are limited members)"
    return False, [], "no shared partition"


def reach_action(run: Run, p: dict) -> tuple[list[str], Fields]:
    """Whom ``src`` can talk to, and why or why not for each host of ``to``."""
    from ..ib.pkeys import design_tables
    f = run.fabric
    src = str(p["src"])
    mine = host_guids(f, src)
    tables = design_tables(_subnet(f))
    assert tables.resolution is not None
    names = {q.pkey: q.name for q in tables.resolution.partitions}
    others = [h for h in _hosts(f) if h != src]
    peers: list[str] = []
    through: dict[int, list[str]] = {}
    for h in others:
        ok, over, _ = talk(tables, names, mine, host_guids(f, h))
        if ok:
            peers.append(h)
            for k in over:
                through.setdefault(k, []).append(h)
    order = [k for k in (q.pkey for q in tables.resolution.partitions) if k in through]
    labels = tuple(_label(names[k], k) for k in order)
    lines = [f"{src} can talk to {len(peers)} of {len(others)} hosts"
             + (": " + "; ".join(f"over {_label(names[k], k)}: {', '.join(through[k])}" for k in order)
                if order else "")]
    verdicts = []
    for dst in p.get("to", []):
        ok, _over, why = talk(tables, names, mine, host_guids(f, str(dst)))
        verdicts.append(TalkVerdict(src, str(dst), ok, why))
        lines.append(f"{src} → {dst}: {'allowed' if ok else 'refused'}, {why}")
    return lines, {"reach": PartitionReach(src, tuple(peers), len(others), labels, tuple(verdicts))}


__all__ = ["guid_owners", "host_guids", "partitions_action", "reach_action", "talk"]
