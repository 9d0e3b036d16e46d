"""The steps of an NCCL collective over ranks (:func:`plan`): rings and broadcast chains per NIC
channel, the double binary tree per channel, all-to-all. :mod:`.collective` times them on a
design; its module doc says what each plan models and where it simplifies NCCL.

NCCL's double binary tree (its ``trees.cc``), in our words: tree 0 over ranks 0..m−1 hangs each
rank r off the rank got by clearing r's lowest set bit b and setting the next one,
``(r ^ b) | 2b`` (or just ``r ^ b`` when that is out of range); rank 0 is the root. Tree 1 is
tree 0 mirrored (r → m−1−r) when m is even, shifted by one (r → r+1 mod m) when m is odd, so
a rank that is interior in one tree is a leaf in the other.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import Fabric
from ..model.nvlink import nvlink_map
from .units import ParamError

OPS = ("allreduce", "allgather", "reducescatter", "alltoall", "broadcast")
ALGOS = ("ring", "tree")


@dataclass(frozen=True)
class Step:
    """Concurrent transfers; ``frac``: each transfer's bytes as a share of the buffer size;
    ``repeat``: how many such steps run one after the other; ``hops``: latencies in series
    (pipeline depth; 1 for a plain step)."""

    src: np.ndarray
    dst: np.ndarray
    frac: np.ndarray
    repeat: int = 1
    hops: int = 1

    @property
    def key(self) -> tuple:
        return (self.src.tobytes(), self.dst.tobytes())


def units(fabric: Fabric, gpus: np.ndarray) -> np.ndarray:
    """Per GPU: the unit NCCL treats as one node — its NVLink domain (or partition of one: a
    DGX's baseboard, an NVL72 rack), else its server (a GPU without either is its own)."""
    t = fabric.devices_t
    server = np.where(t.parent[gpus] >= 0, t.parent[gpus], gpus).astype(np.int64)
    group = nvlink_map(fabric).group[gpus]
    return np.where(group >= 0, -1 - group, server)


def server_groups(fabric: Fabric, ranks: np.ndarray) -> list[np.ndarray]:
    """``ranks`` cut into runs of one unit (:func:`units`: an NVLink domain, else a server)."""
    unit = units(fabric, ranks)
    cut = np.flatnonzero(np.diff(unit)) + 1
    return np.split(ranks, cut)


def channels(fabric: Fabric, ranks: np.ndarray) -> int:
    """NCCL-style channels: g when every server has g > 1 ranks, each with its own NIC (and there
    are several servers), else 1."""
    groups = server_groups(fabric, ranks)
    g = len(groups[0])
    bound = fabric.devices_t.bound
    if len(groups) < 2 or g < 2 or any(len(s) != g or len(set(bound[s].tolist())) != g for s in groups):
        return 1
    return g


def btree_parents(m: int) -> np.ndarray:
    """Parent of each of ``m`` ranks in NCCL's binary tree (root 0: −1); see the module doc."""
    r = np.arange(m, dtype=np.int64)
    bit = r & -r
    up = (r ^ bit) | (bit << 1)
    up = np.where(up >= m, r ^ bit, up)
    up[0] = -1
    return up


def dtree_parents(m: int) -> tuple[np.ndarray, np.ndarray]:
    """The two complementary trees of NCCL's double binary tree over ``m`` ranks."""
    p0 = btree_parents(m)
    r = np.arange(m, dtype=np.int64)
    if m % 2 == 0:                                        # mirror
        q = p0[m - 1 - r]
        p1 = np.where(q < 0, -1, m - 1 - q)
    else:                                                 # shift by one
        q = p0[(r - 1) % m]
        p1 = np.where(q < 0, -1, (q + 1) % m)
    return p0, p1


def tree_depth(parent: np.ndarray) -> int:
    """Edges from the deepest rank to the root."""
    cur, depth = parent.copy(), 0
    while (cur >= 0).any():
        depth += 1
        cur = np.where(cur >= 0, parent[np.maximum(cur, 0)], -1)
    return depth


def _merge(src: np.ndarray, dst: np.ndarray, frac: np.ndarray, tag: np.ndarray) -> tuple[np.ndarray, ...]:
    """Transfers with the same (src, dst, tag) as one (fracs summed), in first-seen order."""
    keys = np.column_stack([src, dst, tag])
    uniq, first, inv = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    total = np.bincount(inv.ravel(), weights=frac, minlength=len(uniq))
    order = np.argsort(first, kind="stable")
    return uniq[order, 0], uniq[order, 1], total[order]


def _ring_step(fabric: Fabric, ranks: np.ndarray, repeat: int) -> Step:
    n = len(ranks)
    c = channels(fabric, ranks)
    if c == 1:
        return Step(ranks, np.roll(ranks, -1), np.full(n, 1.0 / n), repeat)
    groups = np.array(server_groups(fabric, ranks))             # (servers, g)
    intra_src, intra_dst = groups.ravel(), np.roll(groups, -1, axis=1).ravel()
    net_src, net_dst = groups.ravel(), np.roll(groups, -1, axis=0).ravel()
    src = np.concatenate([intra_src, net_src])
    dst = np.concatenate([intra_dst, net_dst])
    frac = np.concatenate([np.full(n, 1.0 / n), np.full(n, 1.0 / (n * c))])
    return Step(src, dst, frac, repeat)


def _tree_step(fabric: Fabric, ranks: np.ndarray) -> Step:
    """Double binary tree per channel: channel c's trees join the servers' GPU c (its NIC c); a
    chain from GPU c covers each server. Reduce up and broadcast down as one pipelined step."""
    groups = server_groups(fabric, ranks)
    g = channels(fabric, ranks)
    m = len(groups)
    src: list[np.ndarray] = []
    dst: list[np.ndarray] = []
    frac: list[np.ndarray] = []
    tag: list[np.ndarray] = []

    def add(a: np.ndarray, b: np.ndarray, share: float, t: int) -> None:
        for x, y in ((a, b), (b, a)):                   # up (reduce) and down (broadcast)
            src.append(x)
            dst.append(y)
            frac.append(np.full(len(x), share))
            tag.append(np.full(len(x), t))
    trees = dtree_parents(m) if m > 1 else ()
    for c in range(g):
        for s in groups:                                # the chain: both trees' halves of the channel
            chain = np.roll(s, -c)
            add(chain[1:], chain[:-1], 1.0 / g, 0)
        rep = np.array([s[c] for s in groups], np.int64)
        for k, parent in enumerate(trees):              # one tree, half of the channel, both ways
            child = np.flatnonzero(parent >= 0)
            add(rep[child], rep[parent[child]], 0.5 / g, k + 1)
    s_, d_, f_ = _merge(np.concatenate(src), np.concatenate(dst), np.concatenate(frac), np.concatenate(tag))
    depth = max((tree_depth(p) for p in trees), default=0) + max(len(s) for s in groups) - 1
    return Step(s_.astype(np.int64), d_.astype(np.int64), f_, hops=2 * max(depth, 1))


def _broadcast_step(fabric: Fabric, ranks: np.ndarray) -> Step:
    """A chain from the root (pipelined); per channel c on multi-NIC servers: the buffer's 1/g from
    GPU c to GPU c of the next server, and inside each server a chain from where it enters (the
    root in the first server, GPU c after)."""
    n = len(ranks)
    g = channels(fabric, ranks)
    if g == 1:
        return Step(ranks[:-1], ranks[1:], np.ones(n - 1), hops=n - 1)
    groups = np.array(server_groups(fabric, ranks))             # (servers, g)
    src, dst = [], []
    for c in range(g):
        for k, s in enumerate(groups):
            chain = s if k == 0 else np.roll(s, -c)
            src.append(chain[:-1])
            dst.append(chain[1:])
        src.append(groups[:-1, c])
        dst.append(groups[1:, c])
    a, b = np.concatenate(src), np.concatenate(dst)
    s_, d_, f_ = _merge(a, b, np.full(len(a), 1.0 / g), np.zeros(len(a), np.int64))
    return Step(s_.astype(np.int64), d_.astype(np.int64), f_, hops=2 * (g - 1) + len(groups) - 1)


def _alltoall_step(ranks: np.ndarray) -> Step:
    n = len(ranks)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    off = i != j
    return Step(ranks[i[off]], ranks[j[off]], np.full(int(off.sum()), 1.0 / n))


def plan(fabric: Fabric, op: str, algo: str, ranks: np.ndarray) -> list[Step]:
    """The steps of ``op`` with ``algo`` over ``ranks`` (see :mod:`.collective`'s module doc)."""
    n = len(ranks)
    if op not in OPS:
        raise ParamError("op", op, f"is not one of {', '.join(OPS)}")
    if algo not in ALGOS:
        raise ParamError("algo", algo, f"is not one of {', '.join(ALGOS)}")
    if algo == "tree" and op != "allreduce":
        raise ParamError("algo", algo, f"NCCL's tree runs all-reduce only; {op} runs ring")
    if op == "allreduce":
        return [_tree_step(fabric, ranks)] if algo == "tree" else [_ring_step(fabric, ranks, 2 * (n - 1))]
    if op in ("allgather", "reducescatter"):
        return [_ring_step(fabric, ranks, n - 1)]
    if op == "broadcast":
        return [_broadcast_step(fabric, ranks)]
    return [_alltoall_step(ranks)]
