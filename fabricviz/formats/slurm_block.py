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
are named ``block001``, ``block002``, … in that order. A rack split into NVLink partitions (whole
trays each, ``meta["nvlink_partitions"]``) is a domain of sub-domains (``rack01.p01``, …), laid
out as topograph lays them out (:mod:`.slurm_subdomains`: one base block per partition, empty
slots padding each rack to a power-of-two width, BlockSizes [partition, rack slot]).

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
from ..model.nvlink import NvlinkDomain, nvlink_domains
from .native import save_text_atomic
from .slurm import hostlist, slurm_name
from .slurm_subdomains import DomainHosts, complement, display_name, infer_sizes

FORMAT = "slurm-block"
SUFFIXES = (".block.conf",)


@dataclass(frozen=True)
class SlurmBlock:
    """One base block: its Slurm name, the design group it stands for, its node names."""

    name: str
    domain: str
    nodes: tuple[str, ...]


def layout(fabric: Fabric, name_format: str = "block{:03d}") -> tuple[list[SlurmBlock], list[int]]:
    """The design's NVLink racks and host blocks as Slurm base blocks, in the design's order, and
    the BlockSizes (see module doc); racks split into NVLink partitions as topograph lays out
    sub-domains (:mod:`.slurm_subdomains`), empty slots as blocks without nodes."""
    from ..generate.groups import find_groups  # on use: scipy
    racks = [d for d in nvlink_domains(fabric) if d.explicit and d.spec.rack and len(d.servers)]
    doms = [DomainHosts(slurm_name(d.name), tuple(zip(_names(fabric, d.servers), _subdomains(d), strict=True)))
            for d in racks]
    sizes = infer_sizes(doms)
    if sizes is not None:
        rows = [(display_name(i), nodes) for i, nodes in complement(doms, sizes)]
    else:
        rows = [(d.name, tuple(h for h, _ in d.hosts)) for d in doms]
    g = find_groups(fabric)
    t = fabric.devices_t
    hosts = np.flatnonzero(t.alive & g.top_level & (g.tier == 0) & (g.block >= 0))
    if racks:
        hosts = hosts[~np.isin(hosts, np.concatenate([d.servers for d in racks]))]
    for b in range(g.n_blocks):
        mine = hosts[g.block[hosts] == b]
        if len(mine):
            rows.append((slurm_name(g.block_names[b]), _names(fabric, mine)))
    if not any(nodes for _, nodes in rows):
        raise FabricError("cannot determine blockSizes: topology contains no blocks "
                          "(no hosts cabled to a switch)")
    out = [SlurmBlock(name_format.format(k + 1), name, nodes) for k, (name, nodes) in enumerate(rows)]
    return out, sizes if sizes is not None else block_sizes(out)


def _names(fabric: Fabric, ids: np.ndarray) -> tuple[str, ...]:
    return tuple(slurm_name(fabric.name_of(int(d))) for d in ids.tolist())


def _subdomains(d: NvlinkDomain) -> list[str]:
    """Each tray's NVLink partition as a sub-domain name (``rack01.p01``); "" when the rack has no
    partitions or the tray's GPUs are not all in one partition."""
    per = d.spec.gpus_per_tray
    part = np.full(d.n_gpus, -1, np.int64)
    for k, p in enumerate(d.partitions):
        part[p] = k
    out = []
    for i in range(len(d.servers)):
        mine = np.unique(part[i * per:(i + 1) * per])
        out.append(f"{slurm_name(d.name)}.p{int(mine[0]) + 1:02d}" if len(mine) == 1 and mine[0] >= 0 else "")
    return out


def blocks(fabric: Fabric, name_format: str = "block{:03d}") -> list[SlurmBlock]:
    """The base blocks of :func:`layout`."""
    return layout(fabric, name_format)[0]


def block_sizes(found: list[SlurmBlock]) -> list[int]:
    """topograph's default BlockSizes: D, 2D, … 2^⌊log2 N⌋·D (D: the smallest block's nodes)."""
    smallest = min(len(b.nodes) for b in found if b.nodes)
    return [smallest << i for i in range(int(math.log2(len(found))) + 1)]


def dumps(fabric: Fabric) -> str:
    found, sizes = layout(fabric)
    lines = []
    for b in found:
        if b.domain:
            lines.append(f"# {b.name}={b.domain}")
        lines.append(f"BlockName={b.name}" + (f" Nodes={hostlist(list(b.nodes))}" if b.nodes else ""))
    lines.append("BlockSizes=" + ",".join(map(str, sizes)))
    return "\n".join(lines) + "\n"


def save(fabric: Fabric, path: str | os.PathLike[str]) -> None:
    save_text_atomic(dumps(fabric), path)
