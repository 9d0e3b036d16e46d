"""``fabricviz partitions DESIGN``: the InfiniBand partitions (P_Keys) and who can reach whom.

Partitions come from ``--conf partitions.conf`` (OpenSM's file), else from the
design (``meta.partitions``), else OpenSM's behaviour with no file (everyone a
full member of the default partition 0x7fff). ``--store`` keeps the ``--conf``
file in the design (a fabricviz design file, saved atomically).
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from ..loaders import load_any
from ..model import FabricError

if TYPE_CHECKING:
    from ..model import Fabric


def conf_for(path: str | None, fabric: Fabric):
    """The PartitionConfig to use: the file, else the design's, else None (no file)."""
    from ..ib.partitions import design_partitions
    if path:
        from ..formats.partitions_conf import load
        return load(path)
    return design_partitions(fabric)


def store_meta(path: str, key: str, value: Any, flag: str = "--store") -> None:
    """Keep ``value`` as ``meta[key]`` of the fabricviz design file ``path`` (saved atomically);
    only a fabricviz design file can carry it."""
    from ..formats.native import load_fabric, save_fabric
    from ..loaders import detect_format
    from ..model.inputs import check_input
    check_input(path, what="a design file")
    with open(path, encoding="utf-8", errors="replace") as fh:
        kind = detect_format(fh.read(1 << 16), path)
    if kind != "native":
        raise FabricError(f"{path}: {flag} needs a fabricviz design file, not {kind or 'this file'}")
    design = load_fabric(path)
    design.meta[key] = value
    save_fabric(design, path)


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("partitions", help="InfiniBand partitions (P_Keys) as OpenSM programs them")
    p.add_argument("file")
    p.add_argument("--conf", metavar="FILE", help="OpenSM partitions.conf (default: the design's partitions)")
    p.add_argument("--who-can-reach", metavar="NODE", help="hosts NODE can talk to, and over which P_Key")
    p.add_argument("--sm", help="node the subnet manager runs on (default: the file's first node)")
    p.add_argument("--store", action="store_true", help="save the --conf partitions into the design file")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def _end_ports_of(f: Fabric, name: str, tables) -> list[int]:
    """End-port GUIDs of NODE: a server's IB NIC ports, a NIC's ports, a switch's port 0."""
    d = f.find(name)
    if d is None:
        raise FabricError(f"--who-can-reach: no node {name!r} in the design")
    dev = f.device(d)
    devs = [n.id for n in dev.nics] if dev.kind == "server" else [d]
    if dev.kind == "gpu" and dev.nic is not None:
        devs = [dev.nic.id]
    guids: list[int] = []
    for x in devs:
        xd = f.device(x)
        if xd.kind == "ib_switch":
            guids.append(int(f.devices_t.guid[x]))
        guids += [int(f.ports_t.guid[p]) for p in xd.port_ids.tolist()]
    found = [g for g in guids if g in tables.ca or g in tables.switch0]
    if not found:
        raise FabricError(f"--who-can-reach: {name} has no InfiniBand end port the subnet manager reaches")
    return found


def _host_of(f: Fabric, port: int) -> str:
    d = int(f.ports_t.device[port])
    parent = int(f.devices_t.parent[d])
    return f.name_of(parent if parent >= 0 else d)


def run(args: argparse.Namespace) -> int:
    from ..ib.partitions import resolve, to_meta
    from ..ib.pkeys import compute_tables, shared_pkeys
    from ..ib.subnet import discover
    f = load_any(args.file)
    conf = conf_for(args.conf, f)
    if args.store:
        if not args.conf:
            raise FabricError("--store needs --conf FILE")
        store_meta(args.file, "partitions", to_meta(conf))
    sn = discover(f, args.sm)
    res = resolve(conf, sn)
    tables = compute_tables(sn, res)
    rows: list[dict[str, Any]] = [{"name": p.name, "pkey": f"0x{p.pkey:04x}", "ipoib": p.ipoib,
             "full": p.n_full, "limited": p.n_limited} for p in res.partitions]
    doc: dict[str, Any] = {"source": args.conf or ("design" if conf is not None else "none (OpenSM default)"),
                           "end_ports": len(res.end_ports), "partitions": rows,
                           "unknown_guids": [f"0x{g:016x}" for g, _ in res.unknown]}
    if tables.dropped:
        hex4 = [f"0x{pk:04x}" for pk in range(1 << 16)]     # a table lookup per dropped P_Key
        doc["table_full"] = {f"0x{g:016x}": list(map(hex4.__getitem__, v)) for g, v in tables.dropped.items()}
    reach: list[dict[str, Any]] = []
    if args.who_can_reach:
        mine = _end_ports_of(f, args.who_can_reach, tables)
        port_of = {int(g): int(p) for g, p in zip(sn.ca_guid.tolist(), sn.ca_ports.tolist(), strict=True)}
        me_hosts = {_host_of(f, port_of[g]) for g in mine if g in port_of}
        by_host: dict[str, set[int]] = {}
        for g, p in port_of.items():
            host = _host_of(f, p)
            if g in mine or host in me_hosts:
                continue
            for m in mine:
                for pk in shared_pkeys(tables.end_table(m), tables.ca[g]):
                    by_host.setdefault(host, set()).add(pk)
        reach = [{"host": h, "pkeys": [f"0x{pk:04x}" for pk in sorted(v)]} for h, v in sorted(by_host.items())]
        doc["who_can_reach"] = {"node": args.who_can_reach, "hosts": reach}
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print(f"{len(rows)} partitions on {len(res.end_ports)} end ports (partitions from {doc['source']})")
    width = max((len(r["name"]) for r in rows), default=4)
    for r in rows:
        ipoib = ", ipoib" if r["ipoib"] else ""
        print(f"{r['pkey']}  {r['name']:<{width}}  full {r['full']}, limited {r['limited']}{ipoib}")
    for g in doc["unknown_guids"]:
        print(f"warning: port GUID {g} is in no end port of the design")
    for g, v in doc.get("table_full", {}).items():
        print(f"warning: {g}: P_Key table full, OpenSM drops {', '.join(v)}")
    if args.who_can_reach:
        print(f"{args.who_can_reach} can talk to {len(reach)} host{'' if len(reach) == 1 else 's'}"
              + (":" if reach else ""))
        for r in reach:
            print(f"  {r['host']}  via {', '.join(r['pkeys'])}")
    return 0
