"""Write the computed LFTs as OpenSM's ``opensm-lfts.dump`` (and the port LID map)."""

from __future__ import annotations

import os

from ..ib.routing import Routing
from .ibnetdiscover import node_description
from .native import save_text_atomic
from .opensm_dump import SwitchLft, write_lfts_dump


def lfts_dump_text(r: Routing) -> str:
    """The text OpenSM would dump for these tables (same switch order: OpenSM's map order)."""
    sn, lids = r.subnet, r.lids
    f = sn.fabric
    dests: dict[int, tuple[str, int, str]] = {}
    for s, lid in enumerate(lids.sw_lid.tolist()):
        if lid:
            d = int(sn.switches[s])
            dests[lid] = ("Switch", int(sn.sw_guid[s]), node_description(f, d))
    for j, lid in enumerate(lids.ca_lid.tolist()):
        if lid:
            d = int(f.ports_t.device[int(sn.ca_ports[j])])
            for off in range(lids.lids_per_ca_port):
                dests[lid + off] = ("Channel Adapter", int(sn.ca_guid[j]), node_description(f, d))
    switches = [SwitchLft(int(sn.sw_guid[s]), int(lids.sw_lid[s]), node_description(f, int(sn.switches[s])),
                          r.lft[s], int(sn.sw_nports[s])) for s in range(sn.num_switches)]
    return write_lfts_dump(switches, dests)


def write_lfts(r: Routing, path: str | os.PathLike[str]) -> None:
    save_text_atomic(lfts_dump_text(r), path)
