"""Servers from discovered adapters: which channel adapters of a discovered fabric are one host.

A subnet discovery (ibnetdiscover, ibdiagnet, OpenSM's subnet list) sees channel adapters, not
servers. Each adapter reports a NodeDescription, which the driver sets to ``"<hostname>
<device>"`` (``"dgx01 mlx5_3"``; NVIDIA's DGX OS writes ``"dgx01 HCA-4"``), some tools
``"<hostname>/<device>"``; an adapter whose host never set it keeps the firmware's factory text
(``"MT4129 ConnectX7   Mellanox Technologies"``). Adapters of one host may also share the system
image GUID (the ``sysimgguid=`` of ibnetdiscover), which is how multi-function adapters say they
are one system.

:func:`plan_hosts` turns those facts into a :class:`HostPlan`: the hosts (with their role: a
compute server, a UFM/management host, an unnamed adapter) and, per adapter, its host and its
NIC index there (0..n-1 in adapter order, as a generated server's NICs). :func:`adapter_ranks`
gives an adapter's rank among the adapter numbers the whole fabric uses with that naming
(``HCA-1 HCA-2 HCA-5 HCA-6`` → 0-3, ``mlx5_0 mlx5_1 mlx5_4 mlx5_5`` → 0-3), so in a
rail-optimised cluster adapter ``k`` of every server is on rail ``k`` whatever names each
server's OS gave them, and a server missing one adapter still has its others on their rails.
Pure Python, no model: every reader builds from it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from .groups import ADAPTER_NAME, FACTORY_DESC, MANAGEMENT_HOST, MAX_ADAPTERS


class HostRole(Enum):
    """What a discovered host is."""

    SERVER = "server"          # a named compute host (its adapters grouped into one server)
    MANAGEMENT = "management"  # a UFM / subnet-management host
    UNNAMED = "unnamed"        # an adapter with only its factory description: a one-NIC host


_NUMBER = re.compile(r"^(.*?)(\d+)$")


@dataclass(frozen=True)
class Host:
    """One discovered host: its name, role and adapters (indices into the caller's node list)."""

    name: str
    role: HostRole
    adapters: tuple[int, ...]
    locals_: tuple[int, ...]          # per adapter: its NIC index in the host (0..n-1, adapter order)


@dataclass(frozen=True)
class HostPlan:
    """Hosts made of several or named adapters; every other adapter stays a one-NIC host."""

    hosts: tuple[Host, ...]
    unnamed: tuple[int, ...]          # adapters with only a factory description

    def host_of(self, n: int) -> list[int]:
        """Per node index: the host it is an adapter of (index into ``hosts``), -1 for none."""
        out = [-1] * n
        for h, host in enumerate(self.hosts):
            for a in host.adapters:
                out[a] = h
        return out


def split_description(desc: str) -> tuple[str, str] | None:
    """``("dgx01", "mlx5_3")`` for ``"dgx01 mlx5_3"``, ``"dgx01 HCA-4"`` or ``"dgx01/mlx5_3"``;
    None when the description does not name a host and one of its adapters."""
    text = " ".join(desc.split())
    words = text.split(" ")
    if len(words) == 2 and ADAPTER_NAME.fullmatch(words[1]):
        host, adapter = words
    elif len(words) == 1 and "/" in text:
        host, _, adapter = text.rpartition("/")
        if not ADAPTER_NAME.fullmatch(adapter):
            return None
    else:
        return None
    if not host:
        return None
    return host, adapter


def is_factory(desc: str) -> bool:
    """True for an adapter description the firmware set (no host name in it)."""
    return bool(FACTORY_DESC.match(" ".join(desc.split()))) and split_description(desc) is None


def _scheme(adapter: str) -> tuple[str, int]:
    """``("hca-", 5)`` for ``HCA-5``, ``("mlx5_", 3)`` for ``mlx5_3``: the naming and the number."""
    m = _NUMBER.match(adapter.lower())
    return (m.group(1), int(m.group(2))) if m else (adapter.lower(), 0)


def plan_hosts(descs: Sequence[str], system_guids: Sequence[int | None],
               adapter: Sequence[bool], taken: set[str] | frozenset[str] = frozenset()) -> HostPlan:
    """Group the adapters (``adapter[i]``: node ``i`` is a channel adapter a host can own, not a
    switch, router or SHARP node) into hosts.

    Adapters join one host when their descriptions name the same host (each adapter name once;
    at most :data:`~fabricviz.generate.groups.MAX_ADAPTERS`), or when they share a system image
    GUID. A host whose name is already a device name in ``taken`` is not made (its adapters stay
    loose, named as before). Factory descriptions are listed as unnamed one-NIC hosts.
    """
    n = len(descs)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    parsed: list[tuple[str, str] | None] = [split_description(d) if adapter[i] else None
                                            for i, d in enumerate(descs)]
    by_host: dict[str, list[int]] = {}
    for i, p in enumerate(parsed):
        if p is not None:
            by_host.setdefault(p[0], []).append(i)
    refused: set[str] = set()
    for host, members in by_host.items():
        names = [parsed[i][1].lower() for i in members]        # type: ignore[index]
        if len(set(names)) != len(names) or len(members) > MAX_ADAPTERS or host in taken:
            refused.add(host)                 # two adapters with one name: two hosts with one name
            continue
        for i in members[1:]:
            parent[find(i)] = find(members[0])
    by_sys: dict[int, list[int]] = {}
    for i, g in enumerate(system_guids):
        if adapter[i] and g:
            by_sys.setdefault(g, []).append(i)
    for members in by_sys.values():
        if 2 <= len(members) <= MAX_ADAPTERS:
            for i in members[1:]:
                parent[find(i)] = find(members[0])
    groups: dict[int, list[int]] = {}
    for i in range(n):
        if adapter[i]:
            groups.setdefault(find(i), []).append(i)
    rank = adapter_ranks([p[1] if p is not None else None for p in parsed])
    hosts: list[Host] = []
    unnamed: list[int] = []
    seen_names = set(taken)
    for members in sorted(groups.values(), key=lambda m: m[0]):
        named = [i for i in members if parsed[i] is not None and parsed[i][0] not in refused]  # type: ignore[index]
        if len(members) == 1 and not named:
            if is_factory(descs[members[0]]):
                unnamed.append(members[0])
            continue
        host_name = parsed[named[0]][0] if named else None     # type: ignore[index]
        if host_name is None or host_name in seen_names:
            if len(members) == 1:
                continue
            host_name = None
        role = HostRole.SERVER
        if host_name is None:
            if not all(is_factory(descs[i]) for i in members):
                continue                      # a system of adapters none of which names it
            role = HostRole.UNNAMED
            unnamed.extend(members)
            continue
        if MANAGEMENT_HOST.search(host_name):
            role = HostRole.MANAGEMENT
        seen_names.add(host_name)
        hosts.append(Host(host_name, role, tuple(members), _locals(members, rank)))
    return HostPlan(tuple(hosts), tuple(sorted(unnamed)))


def adapter_ranks(adapters: Sequence[str | None]) -> list[int]:
    """Per adapter name (``HCA-5``, ``mlx5_4``; None: none), its rank among the numbers the whole
    list uses with that naming (``HCA-1 HCA-2 HCA-5 HCA-6`` → 0 1 2 3; -1 for None): adapter
    ``k`` of every server, whatever its OS called it, and in a rail design its rail."""
    used: dict[str, set[int]] = {}
    keys = [_scheme(a) if a is not None else None for a in adapters]
    for k in keys:
        if k is not None:
            used.setdefault(k[0], set()).add(k[1])
    order = {s: {n: r for r, n in enumerate(sorted(ns))} for s, ns in used.items()}
    return [order[k[0]][k[1]] if k is not None else -1 for k in keys]


def _locals(members: list[int], rank: list[int]) -> tuple[int, ...]:
    """Each adapter's place in its host, 0..n-1 in adapter order (:func:`adapter_ranks`, then
    node order), as a server's NICs are numbered."""
    order = sorted(range(len(members)), key=lambda j: (rank[members[j]] < 0, rank[members[j]], members[j]))
    out = [0] * len(members)
    for r, j in enumerate(order):
        out[j] = r
    return tuple(out)


__all__ = ["FACTORY_DESC", "Host", "HostPlan", "HostRole", "MANAGEMENT_HOST", "adapter_ranks", "is_factory",
           "plan_hosts", "split_description"]
