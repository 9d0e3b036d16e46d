"""Slurm ``topology.yaml`` (Slurm 25.05: several topologies in one file); export only.

The units NVIDIA/topograph writes (``pkg/translate/yaml.go``; ``yaml_test.go`` is the
reference): a list of ``topology`` units, each with ``cluster_default`` and one of ``tree``
(``switches``: ``switch``, ``children``, ``nodes`` as hostlist expressions), ``block``
(``block_sizes`` and ``blocks``: ``block``, ``nodes``) or ``flat: true``. fabricviz writes two units for the same
cluster: ``tree``, the switch tree of :mod:`.slurm` (the cluster default), and ``block``, the
base blocks of :mod:`.slurm_block` named ``block1``, ``block2``, … as topograph names them in
this file. Written with PyYAML's safe emitter.
"""

from __future__ import annotations

import os
from typing import Any

from ..model import Fabric, FabricError
from .native import save_text_atomic
from .slurm import hostlist, tree
from .slurm_block import layout

FORMAT = "slurm-yaml"
SUFFIXES = ("topology.yaml",)


def units(fabric: Fabric) -> list[dict[str, Any]]:
    """The topology units (plain data in topograph's key order)."""
    switches = []
    for s in tree(fabric):
        entry: dict[str, Any] = {"switch": s.name}
        if s.switches:
            entry["children"] = s.switches
        if s.nodes:
            entry["nodes"] = s.nodes
        switches.append(entry)
    # an empty tree is a flat topology, as topograph writes it
    out: list[dict[str, Any]] = [{"topology": "tree", "cluster_default": True,
                                  **({"tree": {"switches": switches}} if switches else {"flat": True})}]
    try:
        found, sizes = layout(fabric, "block{:d}")
    except FabricError:             # no hosts on switches: no block unit
        return out
    out.append({"topology": "block", "cluster_default": False,
                "block": {"block_sizes": sizes,
                          "blocks": [{"block": b.name, **({"nodes": hostlist(list(b.nodes))} if b.nodes else {})}
                                     for b in found]}})
    return out


def dumps(fabric: Fabric) -> str:
    import yaml
    return yaml.safe_dump(units(fabric), sort_keys=False, default_flow_style=False)


def save(fabric: Fabric, path: str | os.PathLike[str]) -> None:
    save_text_atomic(dumps(fabric), path)
