"""The middle level's bundles (:mod:`fabricviz.ui.canvas.items.semantic`): inside a group one line
per pair of drawn things (switch–switch, host block–leaf: "×n"), between groups one bundle per pair
of groups (a pod and the core group: "64 × 400G", its width by bandwidth) until the user opens one
of the two groups; then that group's cables to the others are lines of their own again.

A middle drawing of a k=16 fat tree has 16 pod–core bundles instead of 1,024 single cables
crossing every pod (and a k=48 one 48 instead of 27,648: entering middle routes a few lines).

Pure numpy over :func:`fabricviz.generate.groups.bundle` (no Qt).
"""

from __future__ import annotations

import numpy as np

from fabricviz.generate.groups import Bundles, Grouping, bundle, cable_tops
from fabricviz.model import Fabric


def between_groups(g: Grouping, expanded: set[int], ta: np.ndarray, tb: np.ndarray) -> np.ndarray:
    """Per cable (top-level ends ``ta`` / ``tb``): bundled group to group — its ends lie in two
    different groups, neither of them open (a device in no group, such as a SHARP aggregation
    node drawn inside its switch, keeps its own lines)."""
    ga, gb = g.group[ta], g.group[tb]
    opened = np.fromiter(expanded, np.int64, len(expanded))
    return (ga != gb) & (ga >= 0) & (gb >= 0) & ~np.isin(ga, opened) & ~np.isin(gb, opened)


def merged(first: Bundles, second: Bundles) -> Bundles:
    """One :class:`Bundles` of two built over disjoint cables and disjoint node pairs: the
    second's bundles numbered after the first's."""
    n = len(first)
    return Bundles(a=np.r_[first.a, second.a], b=np.r_[first.b, second.b],
                   count=np.r_[first.count, second.count], gbps=np.r_[first.gbps, second.gbps],
                   rate_gbps=np.r_[first.rate_gbps, second.rate_gbps],
                   start=np.r_[first.start[:-1], second.start + first.start[-1]].astype(np.int64),
                   cables=np.r_[first.cables, second.cables].astype(np.int64),
                   cable_ids=np.r_[first.cable_ids, second.cable_ids].astype(np.int64),
                   of_cable=np.r_[first.of_cable, np.where(second.of_cable >= 0, second.of_cable + n, -1)
                                  ].astype(np.int64))


def middle_bundles(f: Fabric, g: Grouping, node: np.ndarray, group_node: np.ndarray, expanded: set[int],
                   cids: np.ndarray) -> Bundles:
    """Bundles of ``cids`` at middle: by ``group_node`` (a closed group's devices are their group:
    the far level's nodes) between two closed groups, else by ``node`` (switches, host blocks,
    devices)."""
    cids = np.asarray(cids, np.int64)
    _, ta, tb = cable_tops(f, cids)
    inter = between_groups(g, expanded, ta, tb)
    return merged(bundle(f, node, cids[~inter]), bundle(f, group_node, cids[inter]))


__all__ = ["between_groups", "merged", "middle_bundles"]
