"""Slurm ``topology.conf`` for the topology/block plugin (Slurm 23.11+); export only.

Written as NVIDIA/topograph writes it (``pkg/translate/block.go``; its ``block_test.go`` and
``block_complement_test.go`` are the reference): per block a comment naming what the block
stands for, then its nodes, and one ``BlockSizes`` line last::

    # block001=su1
    BlockName=block001 Nodes=su1-dgx[01-32]
    # block002=su2
    BlockName=block002 Nodes=su2-dgx[01-32]
    BlockSizes=32,64

A block is an NVLink domain of several servers when the design has them (``meta["nvlink_domains"]``:
an NVL72 rack, its 18 compute trays the block's nodes, the comment naming the rack, as topograph
names a block after its accelerator domain: ``tests/models/nvl72.yaml``'s
``accelerator.topology.test/domain: nvl-1-1`` gives ``# block001=nvl-1-1`` in ``block_test.go``'s
form), in the design's order of the domains. Every other host is in one of the design's host
blocks (:func:`fabricviz.generate.groups.find_groups`: the servers cabled to exactly the same
leaves): a DGX scalable unit of a rail-optimised design, the hosts of one leaf elsewhere. Blocks
are named ``block001``, ``block002``, … in that order. NVLink partitions inside a rack are not
written as blocks (topograph's sub-domains) yet.

``BlockSizes`` is topograph's default when none is asked for: the smallest block's node count D,
then 2D, 4D, … up to 2^⌊log2 N⌋·D for N blocks (Slurm's block plugin builds aggregated blocks of
those sizes from neighbouring base blocks). A design without hosts on switches has no block and is
refused (topograph: "cannot determine blockSizes: topology contains no blocks").

slurmctld 22.05 (Debian's slurm-wlm here) has no topology/block plugin (added in 23.11): the
format is checked against topograph's expected outputs instead.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from ..model import Fabric, FabricError
from ..model.nvlink import nvlink_domains
from .native import save_text_atomic
from .slurm import hostlist, slurm_name

FORMAT = "slurm-block"
SUFFIXES = (".block.conf",)


@dataclass(frozen=True)
class SlurmBlock:
    """One base block: its Slurm name, the design group it stands for, its node names."""

    name: str
    domain: str
    nodes: tuple[str, ...]


def blocks(fabric: Fabric, name_format: str = "block{:03d}") -> list[SlurmBlock]:
    """The design's NVLink racks and host blocks as Slurm base blocks, in the design's order (see
    module doc)."""
    from ..generate.groups import find_groups  # on use: scipy
    out: list[SlurmBlock] = []
    taken: list[np.ndarray] = []
    for d in nvlink_domains(fabric):
        if d.explicit and d.spec.rack and len(d.servers):
            out.append(SlurmBlock(name_format.format(len(out) + 1), slurm_name(d.name),
                                  tuple(slurm_name(fabric.name_of(int(s))) for s in d.servers.tolist())))
            taken.append(d.servers)
    g = find_groups(fabric)
    t = fabric.devices_t
    hosts = np.flatnonzero(t.alive & g.top_level & (g.tier == 0) & (g.block >= 0))
    if taken:
        hosts = hosts[~np.isin(hosts, np.concatenate(taken))]
    for b in range(g.n_blocks):
        mine = hosts[g.block[hosts] == b]
        if len(mine):
            out.append(SlurmBlock(name_format.format(len(out) + 1), slurm_name(g.block_names[b]),
                                  tuple(slurm_name(fabric.name_of(int(d))) for d in mine.tolist())))
    if not out:
        raise FabricError("cannot determine blockSizes: topology contains no blocks "
                          "(no hosts cabled to a switch)")
    return out


def block_sizes(found: list[SlurmBlock]) -> list[int]:
    """topograph's default BlockSizes: D, 2D, … 2^⌊log2 N⌋·D (D: the smallest block's nodes)."""
    smallest = min(len(b.nodes) for b in found)
    return [smallest << i for i in range(int(math.log2(len(found))) + 1)]


def dumps(fabric: Fabric) -> str:
    found = blocks(fabric)
    lines = []
    for b in found:
        if b.domain:
            lines.append(f"# {b.name}={b.domain}")
        lines.append(f"BlockName={b.name} Nodes={hostlist(list(b.nodes))}")
    lines.append("BlockSizes=" + ",".join(map(str, block_sizes(found))))
    return "\n".join(lines) + "\n"


def save(fabric: Fabric, path: str | os.PathLike[str]) -> None:
    save_text_atomic(dumps(fabric), path)
