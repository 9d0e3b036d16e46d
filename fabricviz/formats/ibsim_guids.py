"""The GUIDs ibsim gives the nodes of a net file (the rule is in :mod:`.ibsim`'s module doc):
a leaf the ibnetdiscover reader calls for the ibsim dialect."""

from __future__ import annotations

from .ibnetdiscover_grammar import MAX_GUID, Topology

#: First GUID of each node type in ibsim (sim_net.c ``guids[]``).
GUID_START = {"Ca": 0x100000, "Switch": 0x200000, "Rt": 0}


def assign_ibsim_guids(topo: Topology, where: str, problems: list[str]) -> None:
    """Give every node and CA port the GUID ibsim would (rules in the module docstring)."""
    base = dict(GUID_START)
    cur = dict(GUID_START)
    events = sorted(((line, i) for i, (line, *_rest) in enumerate(topo.guid_events)))
    items = sorted([(line, 0, i) for line, i in events] + [(n.line, 1, k) for k, n in enumerate(topo.nodes)])
    for _line, is_node, i in items:
        if not is_node:
            _ln, kind, value, relative = topo.guid_events[i]
            if relative:
                cur[kind] = base[kind] + value
            else:
                base[kind] = cur[kind] = value
            continue
        n = topo.nodes[i]
        n.guid = cur[n.type]
        last = n.guid + (0 if n.type == "Switch" else n.nports)
        if n.guid == 0 or last > MAX_GUID:
            problems.append(f'{where}:{n.line}: ibsim would give "{n.id}" GUID {n.guid:#x}'
                            f"{'' if n.guid <= MAX_GUID else ' (over 64 bits)'}"
                            f"{' and its ports GUIDs over 64 bits' if n.guid <= MAX_GUID < last else ''}; add a "
                            f"{'rtguid' if n.type == 'Rt' else 'guid'}= line before it")
            n.guid = 0
            cur[n.type] += 1 if n.type == "Switch" else n.nports + 1
            continue
        cur[n.type] += 1 if n.type == "Switch" else n.nports + 1
        if n.type != "Switch":
            n.port_guids = {p: n.guid + p for p in range(1, n.nports + 1)}
