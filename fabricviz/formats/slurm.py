"""Slurm ``topology.conf`` (topology/tree plugin) for the cluster's scheduler; export only.

One line per switch, highest tier first (the order NVIDIA/topograph writes its tree in, from the
root down): ``SwitchName=spine01 Switches=leaf[01-04]`` for the switches one tier below and
``SwitchName=leaf01 Nodes=node[01-04]`` for the hosts cabled to it (tiers from the design, or
inferred from the hosts, as ``fabricviz info`` does).
A host is the top-level device (the server, not its NIC). Names use Slurm's hostlist
compression: a common prefix with zero-padded ranges (``node[01-03,05]``). Links between
switches of the same tier (rings, meshes) have no place in a tree and are left out.

slurmctld (topology/tree, checked with 22.05) allows a node under one leaf only ("Multiple leaf
switches contain nodes") and refuses a switch with neither nodes nor child switches ("has
neither child switches nor nodes", fatal). So a host cabled to several switches (a
rail-optimized server, one NIC per rail) is listed under the first of them (lowest tier, then
the design's order: rail 0 of its scalable unit, which then stands for the unit), and a switch
left with nothing below it is left out, with the references to it.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from ..ib.tiers import device_tiers
from ..model import Fabric
from ..model.fabric import ETH_SWITCH, IB_SWITCH, KIND_CODE
from .native import save_text_atomic

FORMAT = "slurm"
SUFFIXES = ("topology.conf",)
_BAD = re.compile(r"[^A-Za-z0-9._-]")
_NUM = re.compile(r"^(.*?)(\d+)$")


def slurm_name(name: str) -> str:
    return _BAD.sub("_", name.strip()) or "_"


def hostlist(names: list[str]) -> str:
    """Slurm hostlist expression for ``names`` (order kept per prefix, duplicates dropped)."""
    groups: dict[tuple[str, int], list[int]] = defaultdict(list)
    order: list[tuple[str, int] | str] = []
    unique = list(dict.fromkeys(names))
    # a zero-padded number fixes its prefix's width; an unpadded number of that width belongs with
    # it (rack01-ct09, rack01-ct10 → rack01-ct[09-10], as Slurm expands a padded range)
    padded = {(m.group(1), len(m.group(2))) for m in map(_NUM.match, unique)
              if m is not None and m.group(2).startswith("0")}
    for n in unique:
        m = _NUM.match(n)
        if m is None:
            order.append(n)
            continue
        width = len(m.group(2))
        key = (m.group(1), width if (m.group(1), width) in padded else 0)
        if key not in groups:
            order.append(key)
        groups[key].append(int(m.group(2)))
    out = []
    for entry in order:
        if isinstance(entry, str):
            out.append(entry)
            continue
        prefix, width = entry
        nums = sorted(set(groups[entry]))
        if len(nums) == 1:
            out.append(f"{prefix}{nums[0]:0{width}d}")
            continue
        runs, start = [], nums[0]
        after: list[int | None] = [*nums[1:], None]
        for a, b in zip(nums, after, strict=True):
            if b is None or b != a + 1:
                runs.append(f"{start:0{width}d}" + (f"-{a:0{width}d}" if a != start else ""))
                if b is not None:
                    start = b
        out.append(f"{prefix}[{','.join(runs)}]")
    return ",".join(out)


@dataclass(frozen=True)
class TreeSwitch:
    """One switch of Slurm's tree: its name, child switches and nodes (hostlist expressions, "": none)."""

    name: str
    switches: str
    nodes: str


def tree(fabric: Fabric) -> list[TreeSwitch]:
    """The switches of Slurm's tree, highest tier first (see the module docstring)."""
    t, ct, pt = fabric.devices_t, fabric.cables_t, fabric.ports_t
    tiers = device_tiers(fabric)
    sw = t.alive & np.isin(t.kind, [KIND_CODE[IB_SWITCH], KIND_CODE[ETH_SWITCH]])
    top = np.arange(t.n)
    while (t.parent[top] >= 0).any():
        top = np.where(t.parent[top] >= 0, t.parent[top], top)
    live = fabric.cable_ids()
    da = top[pt.device[ct.port_a[live]]]
    db = top[pt.device[ct.port_b[live]]]
    order = {d: i for i, d in enumerate(sorted(np.flatnonzero(sw).tolist(), key=lambda d: (int(tiers[d]), d)))}
    leaf_of: dict[int, int] = {}                       # host -> the one switch that lists it
    below: dict[int, list[int]] = defaultdict(list)
    for a, b in zip(da.tolist(), db.tolist(), strict=True):
        for s, o in ((a, b), (b, a)):
            if not sw[s]:
                continue
            if not sw[o]:
                if o not in leaf_of or order[s] < order[leaf_of[o]]:
                    leaf_of[o] = s
            elif tiers[o] < tiers[s]:
                below[s].append(o)
    nodes: dict[int, list[str]] = defaultdict(list)
    for h, s in sorted(leaf_of.items()):
        nodes[s].append(slurm_name(fabric.name_of(h)))
    kept: set[int] = set()
    for s in order:                                    # lowest tier first: children are decided
        below[s] = [o for o in below[s] if o in kept]
        if below[s] or nodes[s]:
            kept.add(s)
    down = sorted(kept, key=lambda d: (-int(tiers[d]), d))
    return [TreeSwitch(slurm_name(fabric.name_of(s)), hostlist([slurm_name(fabric.name_of(o)) for o in below[s]]),
                       hostlist(nodes[s])) for s in down]


def dumps(fabric: Fabric) -> str:
    lines = [f"# Slurm topology.conf (topology/tree) written by fabricviz: {fabric.name}"]
    for s in tree(fabric):
        parts = [f"SwitchName={s.name}"]
        if s.switches:
            parts.append(f"Switches={s.switches}")
        if s.nodes:
            parts.append(f"Nodes={s.nodes}")
        lines.append(" ".join(parts))
    return "\n".join(lines) + "\n"


def save(fabric: Fabric, path: str | os.PathLike[str]) -> None:
    save_text_atomic(dumps(fabric), path)
