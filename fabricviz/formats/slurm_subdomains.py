"""Slurm base blocks of accelerator domains split into sub-domains (NVLink partitions of a rack), laid
out as NVIDIA/topograph lays them (``pkg/translate/block_complement.go``, ``block_tree.go``,
``pkg/topology/domain.go``: ``InferTwoLevelBlockSizes``, ``GetDomainTree``; its
``block_complement_test.go`` cases are the reference). Our own code after reading theirs.

* **Block sizes** (none asked for): [S, A], S the largest sub-domain's host count, A the smallest
  power-of-two multiple of S at least the largest domain's host count ([S] when A = S).
* **Tree**: a domain whose hosts carry no sub-domain is a leaf; otherwise it has one child per
  sub-domain (a host without one goes to a fallback sub-domain named as the domain).
* **Slots**: domains in name order. A leaf packs its hosts (sorted) into base blocks of S, the
  first named after it, the next ``name#2``, …, padded with empty blocks to ⌈hosts / S⌉ when the
  last size is below the largest sibling, else to the smallest power-of-two multiple of S at least
  the largest sibling, over S. An interior domain gives each child (name order) its slots and pads
  to that power-of-two width (of min(last size, largest sibling)); children that overflow it are
  rounded up to the next aggregate boundary. The root is padded with empty domain-sized
  aggregates to a multiple of the last block size (an LCM step when capacities differ).
* A base block shows its nodes and, as its comment, its id up to the first ``/``, ``#`` or ``+``;
  an empty slot is a bare ``BlockName=``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass(frozen=True)
class DomainHosts:
    """One accelerator domain: its name and hosts, each with its sub-domain ("" none)."""

    name: str
    hosts: tuple[tuple[str, str], ...]


@dataclass
class _Vertex:
    id: str
    hosts: list[str] | None = None                   # a leaf's hosts
    children: dict[str, _Vertex] = field(default_factory=dict)
    actual: int = 0
    max_child: int = 0


#: One base block slot: (id, hosts); ("", ()) is an empty slot.
Slot = tuple[str, tuple[str, ...]]


def infer_sizes(domains: list[DomainHosts]) -> list[int] | None:
    """topograph's InferTwoLevelBlockSizes; None when no host has a sub-domain."""
    subs: dict[tuple[str, str], int] = {}
    for d in domains:
        for _, sub in d.hosts:
            if sub:
                subs[(d.name, sub)] = subs.get((d.name, sub), 0) + 1
    if not subs:
        return None
    biggest = max((len(d.hosts) for d in domains), default=0)
    s = max(subs.values())
    a = s
    while a < biggest:
        a *= 2
    return [s] if a == s else [s, a]


def _tree(domains: list[DomainHosts]) -> _Vertex:
    root = _Vertex("")
    for d in domains:
        v = _Vertex(d.name)
        root.children[d.name] = v
        if not any(sub for _, sub in d.hosts):
            v.hosts = [h for h, _ in d.hosts]
            v.actual = len(v.hosts)
        else:
            for h, sub in d.hosts:
                c = v.children.setdefault(sub or d.name, _Vertex(sub or d.name, hosts=[]))
                assert c.hosts is not None
                c.hosts.append(h)
                c.actual += 1
            v.actual = len(d.hosts)
            v.max_child = max(c.actual for c in v.children.values())
        root.max_child = max(root.max_child, v.actual)
    return root


def _capacity(most: int, base: int) -> int:
    c = base
    while c < most:
        c *= 2
    return c


def _pack(vid: str, hosts: list[str], n: int, base: int) -> list[Slot]:
    ordered = sorted(hosts)
    out: list[Slot] = [(vid if k == 0 else f"{vid}#{k + 1}", tuple(ordered[i:i + base]))
                       for k, i in enumerate(range(0, len(ordered), base))]
    return out + [("", ())] * max(0, n - len(out))


def _domain(v: _Vertex, most: int, sizes: list[int]) -> list[Slot]:
    base, last = sizes[0], sizes[-1]
    if v.hosts is not None:
        n = -(-v.actual // base) if last < most else _capacity(most, base) // base
        return _pack(v.id, v.hosts, max(n, 1), base)
    n = max(_capacity(min(last, most), base) // base, 1)
    out = [s for name in sorted(v.children) for s in _domain(v.children[name], v.max_child, sizes)]
    if len(out) > n and len(sizes) >= 2:
        nodes = len(out) * base
        align = next((bs for bs in sizes[1:] if bs >= nodes), nodes)
        width = _capacity(align, base) // base
        n = -(-len(out) // width) * width
    return out + [("", ())] * max(0, n - len(out))


def complement(domains: list[DomainHosts], sizes: list[int]) -> list[Slot]:
    """Every base block slot of ``domains`` for block sizes ``sizes`` (module doc), in order."""
    root = _tree(domains)
    base, desired = sizes[0], sizes[-1]
    single = all(v.hosts is not None for v in root.children.values())
    out: list[Slot] = []
    total = capacity = 0
    for name in sorted(root.children):
        v = root.children[name]
        if single:
            assert v.hosts is not None
            n = -(-v.actual // base) if len(sizes) == 1 else _capacity(root.max_child, base) // base
            slots = _pack(v.id, v.hosts, max(n, 1), base)
        else:
            slots = _domain(v, root.max_child, sizes)
        out += slots
        total += len(slots) * base
        capacity = len(slots) * base if not capacity else math.gcd(capacity, len(slots) * base)
    if total and capacity and total % desired:
        step = capacity // math.gcd(capacity, desired) * desired
        target = -(-total // step) * step
        while total < target:
            out += [("", ())] * (capacity // base)
            total += capacity
    return out


def display_name(slot_id: str) -> str:
    """A base block's comment: its id up to the first ``/``, ``#`` or ``+``."""
    for i, ch in enumerate(slot_id):
        if ch in "/#+":
            return slot_id[:i]
    return slot_id


__all__ = ["DomainHosts", "Slot", "complement", "display_name", "infer_sizes"]
