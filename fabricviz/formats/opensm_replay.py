"""Replay a real fabric's forwarding tables: an ``opensm-lfts.dump`` on its topology.

The topology (ibnetdiscover output or an ibsim net file of the same fabric) gives the
switches and CA ports; the dump gives every switch's LFT, each switch's LID (its
header) and each CA port's LIDs (the ``portguid`` of the LFT lines). The result is a
:class:`~fabricviz.ib.routing.Routing` (``routed_by="opensm dump"``), so ``trace``,
credit-loop search and port loads work on the tables the real subnet manager wrote.
Everything is matched by GUID; a switch the dump has and the topology lacks, or an LFT
entry naming a port the switch does not have, is an error naming the switch.
"""

from __future__ import annotations

import numpy as np

from ..ib.lids import Lids
from ..ib.routing import Routing, RoutingInfo
from ..ib.subnet import NO_PATH, discover
from ..model import Fabric, FabricError
from ..model.inputs import MAX_INPUT_BYTES, read_input_text
from .opensm_dump import parse_lfts_dump

ROUTED_BY = "opensm dump"


def replay(fabric: Fabric, dump_text: str, where: str = "opensm-lfts.dump", sm: str | None = None) -> Routing:
    """The Routing the dump describes on ``fabric`` (FabricError ``where: …`` on a mismatch)."""
    dump = parse_lfts_dump(dump_text, where)
    if not dump.switches:
        raise FabricError(f"{where}: no switch tables in the dump")
    sn = discover(fabric, sm)
    sw_of = {int(g): s for s, g in enumerate(sn.sw_guid.tolist())}
    ca_of = {int(g): j for j, g in enumerate(sn.ca_guid.tolist())}
    S = sn.num_switches
    max_lid = max(t.max_lid for t in dump.switches.values())
    lft = np.full((S, max_lid + 1), NO_PATH, np.uint8)
    sw_lid = np.zeros(S, np.int64)
    warnings: list[str] = []
    for g, tab in dump.switches.items():
        s = sw_of.get(g)
        if s is None:
            raise FabricError(f"{where}: switch 0x{g:016x} ('{tab.desc}') is not in the topology "
                              f"(dump and topology are from different fabrics?)")
        nports = int(sn.sw_nports[s])
        for lid, port in tab.routes.items():
            if port > nports:
                raise FabricError(f"{where}: switch 0x{g:016x} ('{tab.desc}'): LID {lid} leaves by port {port}, "
                                  f"but {sn.switch_name(s)} has {nports} ports")
        if tab.routes:
            dest = np.fromiter(tab.routes.keys(), np.int64, len(tab.routes))
            lft[s, dest] = np.fromiter(tab.routes.values(), np.int64, len(tab.routes))
        sw_lid[s] = tab.lid
    missing = [sn.switch_name(s) for s in range(S) if int(sn.sw_guid[s]) not in dump.switches]
    if missing:
        warnings.append(f"{len(missing)} switch(es) of the topology have no table in the dump: "
                        + ", ".join(missing[:5]) + (" …" if len(missing) > 5 else ""))
    # CA port LIDs: every LID whose LFT lines name a CA port GUID; base = lowest, count = 2^LMC
    per_port: dict[int, list[int]] = {}
    unknown: set[int] = set()
    for lid, (ntype, pguid, _desc) in dump.dests.items():
        if ntype == "Switch":
            s = sw_of.get(pguid)
            if s is not None and sw_lid[s] != lid:
                raise FabricError(f"{where}: LID {lid} is named as switch 0x{pguid:016x}, whose table header "
                                  f"says LID {sw_lid[s]}")
            continue
        if pguid in ca_of:
            per_port.setdefault(pguid, []).append(lid)
        else:
            unknown.add(pguid)
    ca_lid = np.zeros(len(sn.ca_ports), np.int64)
    widths = set()
    for pguid, lids in per_port.items():
        lids.sort()
        ca_lid[ca_of[pguid]] = lids[0]
        widths.add(len(lids))
    lmc = 0
    if widths:
        w = max(widths)
        lmc = int(w).bit_length() - 1
        if 1 << lmc != w:
            raise FabricError(f"{where}: a CA port owns {w} LIDs, not a power of two (LMC)")
        for pguid, lids in per_port.items():
            # one LMC for the subnet: every CA port owns 2^LMC consecutive LIDs from an aligned base
            if len(lids) != w or lids[0] % w or lids[-1] - lids[0] != w - 1:
                shown = ", ".join(map(str, lids[:4])) + (" …" if len(lids) > 4 else "")
                raise FabricError(f"{where}: port 0x{pguid:016x} owns LIDs {shown}, not one aligned block of "
                                  f"{w} (LMC {lmc}) as the other ports")
    taken: dict[int, str] = {}
    for s, lid in enumerate(sw_lid.tolist()):
        if lid:
            taken.setdefault(int(lid), sn.switch_name(s))
    for s, lid in enumerate(sw_lid.tolist()):
        if lid > max_lid:
            raise FabricError(f"{where}: switch {sn.switch_name(s)} has Lid {lid}, outside the tables [0-{max_lid}]")
        if lid and taken[int(lid)] != sn.switch_name(s):
            raise FabricError(f"{where}: switches {taken[int(lid)]} and {sn.switch_name(s)} both have Lid {lid}")
    for pguid, lids in per_port.items():
        both = [lid for lid in lids if lid in taken]
        if both:
            raise FabricError(f"{where}: LID {both[0]} is port 0x{pguid:016x}'s and the Lid of switch "
                              f"{taken[both[0]]}")
    if unknown:
        warnings.append(f"{len(unknown)} port GUID(s) in the dump are not in the topology: "
                        + ", ".join(f"0x{g:016x}" for g in sorted(unknown)[:3]) + (" …" if len(unknown) > 3 else ""))
    no_lid = int(np.count_nonzero(ca_lid == 0))
    if no_lid:
        warnings.append(f"{no_lid} CA port(s) of the topology have no LID in the dump")
    return Routing(sn, Lids(lmc, sw_lid, ca_lid, max_lid), ROUTED_BY, ROUTED_BY, None, lft, 0.0, warnings,
                   RoutingInfo(dump=where))


def replay_files(topology: str, dump: str, sm: str | None = None) -> Routing:
    """Load ``topology`` (any format :func:`~fabricviz.loaders.load_any` reads) and replay ``dump`` on it."""
    from pathlib import Path

    from ..loaders import load_any
    fabric = load_any(topology)
    p = Path(dump)
    text = read_input_text(p, MAX_INPUT_BYTES, "an LFT dump")
    return replay(fabric, text, str(p), sm)
