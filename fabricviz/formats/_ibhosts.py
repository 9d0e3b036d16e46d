"""Discovered nodes into devices, adapters grouped into servers (:mod:`fabricviz.generate.hosts`).

Used by :func:`fabricviz.formats._ibbuild.build_fabric`, so every reader that builds from
ibnetdiscover-like records (ibnetdiscover, ibsim, and the readers that produce the same records)
gives an imported fabric the same model objects a generator builds: a server (``kind`` server,
a discovered-host part without GPUs) holding its adapters as NICs (local index K: the adapter's
rail, :func:`~fabricviz.generate.hosts.plan_hosts`) named as a generated server's NICs are
(``dgx01/nic3``); SHARP aggregation nodes and unnamed adapters stay as before. The file's NodeDescriptions
stay in ``meta["node_descriptions"]``, so export writes them back byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ..generate.hosts import HostPlan, plan_hosts
from ..model import Fabric, Part
from ..model.fabric import NIC
from .ibnetdiscover_grammar import HDR, Node, lines_of

#: Distance between the adapters of one server (scene units; as ``Fabric.add_servers`` spaces NICs).
NIC_STEP = 24.0
_SYSIMG = re.compile(r"^\s*sysimgguid\s*=\s*(0[xX][0-9a-fA-F]{1,16})\b")


def system_image_guids(text: str) -> dict[int, int]:
    """Header line number → the ``sysimgguid=`` given in that node's block (ibnetdiscover writes it
    just before ``switchguid=``/``caguid=`` and the header)."""
    out: dict[int, int] = {}
    pending: int | None = None
    for lineno, raw in enumerate(lines_of(text.removeprefix("\ufeff")), 1):
        m = _SYSIMG.match(raw)
        if m:
            pending = int(m.group(1), 16)
            continue
        line = raw.strip()
        if not line:
            pending = None                     # a blank line ends the block
            continue
        if line[0] in "#[@":
            continue
        if HDR.match(line):
            if pending:
                out[lineno] = pending
            pending = None
    return out


def host_plan(nodes: Sequence[Node], choice: Sequence[tuple[str, str, str | None]], names: Sequence[str],
              system_guids: dict[int, int] | None, sharp_part: str) -> HostPlan:
    """:func:`~fabricviz.generate.hosts.plan_hosts` over the file's nodes: only channel adapters
    (``Ca``, not routers or SHARP aggregation nodes) can belong to a host."""
    sysg = system_guids or {}
    adapter = [n.type == "Ca" and c[0] == NIC and c[1] != sharp_part for n, c in zip(nodes, choice, strict=True)]
    return plan_hosts([n.desc for n in nodes], [sysg.get(n.line) for n in nodes], adapter,
                      frozenset(names))


def _server_part(nic: str, count: int) -> Part:
    return Part.from_dict({"id": f"HOST-{count}x{nic}", "kind": "server", "gpus": 0, "nics": count,
                           "nic_part": nic,
                           "name": f"Discovered host, {count} × {nic}",
                           "notes": "A host seen by subnet discovery: its adapters, grouped by the host name "
                                    "in their NodeDescriptions (GPUs, memory and power unknown)."},
                          f"HOST-{count}x{nic}", user=True)


def add_nodes(f: Fabric, nodes: Sequence[Node], choice: Sequence[tuple[str, str, str | None]],
              names: Sequence[str], guids: np.ndarray, plan: HostPlan) -> np.ndarray:
    """Add the servers of ``plan``, every other node in file order, then the servers' adapters as
    their NICs; returns the device id of each node."""
    host_of = np.array(plan.host_of(len(nodes)), np.int64)
    local = [0] * len(nodes)
    for h in plan.hosts:
        for a, k in zip(h.adapters, h.locals_, strict=True):
            local[a] = k
    parts = {}
    for h in plan.hosts:
        p = _server_part(choice[h.adapters[0]][1], len(h.adapters))
        parts[p.id] = p
    if parts:
        f.catalog = f.catalog.with_parts([p for p in f.catalog.user_parts() if p.id not in parts]
                                         + list(parts.values()))
    sids = np.zeros(len(plan.hosts), np.int64)
    by_part: dict[str, list[int]] = {}
    for k, h in enumerate(plan.hosts):
        by_part.setdefault(f"HOST-{len(h.adapters)}x{choice[h.adapters[0]][1]}", []).append(k)
    for pid, ks in by_part.items():         # one call per host part (a 10,000-host dump: a few calls)
        sids[ks] = f.add_servers(pid, [plan.hosts[k].name for k in ks], np.zeros(len(ks)), np.zeros(len(ks)),
                                 emit=False, children=False)
    # every other node in file order, then the servers' adapters server by server in NIC order
    # (the order the design file and graph readers rebuild: top-level devices first, then each
    # server's NICs numbered by id)
    seq = [i for i in range(len(nodes)) if host_of[i] < 0]
    seq += [a for k in np.argsort(sids, kind="stable").tolist()
            for _n, a in sorted(zip(plan.hosts[k].locals_, plan.hosts[k].adapters, strict=True))]
    dev = np.empty(len(nodes), np.int64)
    i = 0
    while i < len(seq):
        child = bool(host_of[seq[i]] >= 0)
        j = i
        while j + 1 < len(seq) and choice[seq[j + 1]] == choice[seq[i]] and bool(host_of[seq[j + 1]] >= 0) == child:
            j += 1
        kind, pid, mode = choice[seq[i]]
        run = np.array(seq[i:j + 1], np.int64)
        if child:
            dev[run] = f.add_devices(kind, len(run), pid, None, 0.0, 0.0, tier=-1, guids=guids[run], mode=mode,
                                     parents=sids[host_of[run]], locals_=np.array(local)[run], emit=False)
        else:
            dev[run] = f.add_devices(kind, len(run), pid, [names[k] for k in run.tolist()], 0.0, 0.0, tier=-1,
                                     guids=guids[run], mode=mode, emit=False)
        i = j + 1
    # a server's adapters side by side in its frame, in NIC order (as a generated server's NICs)
    kids, xs = [], []
    for h in plan.hosts:
        for a, k in zip(h.adapters, h.locals_, strict=True):
            kids.append(int(dev[a]))
            xs.append((k - (len(h.adapters) - 1) / 2) * NIC_STEP)
    if kids:
        f.devices_t.set("x", np.array(kids, np.int64), np.array(xs))
    return dev
