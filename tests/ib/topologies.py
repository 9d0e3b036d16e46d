"""Small fabrics for the OpenSM differential tests, as ibnetdiscover text ibsim accepts.

Every node has an explicit GUID (``switchguid=`` / ``caguid=`` line) so GUIDs are
under our control. ibsim uses that line as the node GUID, ignores the port GUIDs
written in ``(...)`` and derives them itself: a switch port GUID is its node GUID,
CA port n is node GUID + n. The text follows the same rule so it stays truthful.
GUIDs are scrambled (not increasing in file order) so that code ordering by file
position instead of by GUID, as OpenSM does, gets caught. The SM runs on the
file's first node (ibsim's rule); every builder puts a switch first unless noted.

Later fabricviz's own ibnetdiscover exporter replaces this builder.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

SWITCH_BASE = 0x0002C90300A00000
CA_BASE = 0x0002C90300B00000
SAMPLES = Path(__file__).resolve().parents[1] / "data" / "samples"
SHARED_SAMPLES = Path("/work/shared/samples")


def scrambled(i: int) -> int:
    """A bijection on 0..4095, so GUIDs are unique but not in file order."""
    return (i * 2731 + 1173) % 4096


@dataclass
class Net:
    """Nodes and cables of one fabric; ``text()`` renders ibnetdiscover."""

    nodes: dict[str, tuple[str, int, int]] = field(default_factory=dict)  # name -> (kind, nports, guid)
    ports: dict[tuple[str, int], tuple[str, int]] = field(default_factory=dict)  # both directions

    def switch(self, name: str, nports: int) -> str:
        n = sum(k == "Switch" for k, _, _ in self.nodes.values())
        self.nodes[name] = ("Switch", nports, SWITCH_BASE + scrambled(n))
        return name

    def ca(self, name: str, nports: int = 1) -> str:
        n = sum(k == "Ca" for k, _, _ in self.nodes.values())
        self.nodes[name] = ("Ca", nports, CA_BASE + (scrambled(n) << 4))
        return name

    def link(self, a: str, pa: int, b: str, pb: int) -> None:
        for end in ((a, pa), (b, pb)):
            if end in self.ports:
                raise ValueError(f"port {end[0]}[{end[1]}] cabled twice")
            if not 1 <= end[1] <= self.nodes[end[0]][1]:
                raise ValueError(f"{end[0]} has no port {end[1]}")
        self.ports[(a, pa)] = (b, pb)
        self.ports[(b, pb)] = (a, pa)

    def unlink(self, a: str, pa: int) -> None:
        b, pb = self.ports.pop((a, pa))
        del self.ports[(b, pb)]

    def port_guid(self, name: str, port: int) -> int:
        kind, _, guid = self.nodes[name]
        return guid if kind == "Switch" else guid + port

    def text(self) -> str:
        out = [f"# fabricviz test fabric: {sum(k == 'Switch' for k, _, _ in self.nodes.values())} switches, "
               f"{sum(k == 'Ca' for k, _, _ in self.nodes.values())} CAs", ""]
        for name, (kind, nports, guid) in self.nodes.items():
            out += ["vendid=0x2c9", "devid=0xd2f0", f"sysimgguid=0x{guid:x}"]
            out.append(f"{'switchguid' if kind == 'Switch' else 'caguid'}=0x{guid:x}")
            out.append(f'{kind}\t{nports} "{name}"\t\t# "{name}"')
            for p in range(1, nports + 1):
                if (name, p) not in self.ports:
                    continue
                peer, pp = self.ports[(name, p)]
                local = f"[{p}]" if kind == "Switch" else f"[{p}]({self.port_guid(name, p):x})"
                remote = f'"{peer}"[{pp}]'
                if self.nodes[peer][0] == "Ca":
                    remote += f"({self.port_guid(peer, pp):x})"
                out.append(f"{local}\t{remote}\t\t# \"{peer}\"")
            out.append("")
        return "\n".join(out)


def two_level(leaves: int = 4, spines: int = 2, hosts: int = 2, parallel: int = 1) -> Net:
    """Leaf/spine tree: leaf ports 1..hosts to hosts, then `parallel` cables to each spine."""
    net = Net()
    leaf = [net.switch(f"leaf{i + 1}", hosts + spines * parallel) for i in range(leaves)]
    spine = [net.switch(f"spine{j + 1}", leaves * parallel) for j in range(spines)]
    for i, lf in enumerate(leaf):
        for h in range(hosts):
            net.link(lf, h + 1, net.ca(f"h{i * hosts + h + 1}"), 1)
        for j, sp in enumerate(spine):
            for k in range(parallel):
                net.link(lf, hosts + j * parallel + k + 1, sp, i * parallel + k + 1)
    return net


def k_ary_fat_tree(k: int = 4) -> Net:
    """Al-Fares k-ary 3-level fat tree: k pods of k/2 edge + k/2 aggregation switches,
    (k/2)^2 cores, k^3/4 hosts (k=4: 20 switches, 16 hosts). Down ports come first."""
    h = k // 2
    net = Net()
    edge = [[net.switch(f"edge{p + 1}-{e + 1}", k) for e in range(h)] for p in range(k)]
    agg = [[net.switch(f"agg{p + 1}-{a + 1}", k) for a in range(h)] for p in range(k)]
    core = [net.switch(f"core{c + 1}", k) for c in range(h * h)]
    host = 0
    for p in range(k):
        for e in range(h):
            for i in range(h):
                host += 1
                net.link(edge[p][e], i + 1, net.ca(f"h{host}"), 1)
            for a in range(h):
                net.link(edge[p][e], h + a + 1, agg[p][a], e + 1)
        for a in range(h):
            for c in range(h):
                net.link(agg[p][a], h + c + 1, core[a * h + c], p + 1)
    return net


def ring(switches: int = 4, hosts_per_switch: int = 1) -> Net:
    """Switches in a ring (port 1 clockwise, port 2 anticlockwise), hosts on ports 3...
    (one host: the same fabric as before the parameter existed)."""
    net = Net()
    sw = [net.switch(f"sw{i + 1}", 2 + hosts_per_switch) for i in range(switches)]
    for i, s in enumerate(sw):
        net.link(s, 1, sw[(i + 1) % switches], 2)
        for h in range(hosts_per_switch):
            net.link(s, 3 + h, net.ca(f"h{i * hosts_per_switch + h + 1}"), 1)
    return net


def failed_link(net: Net, name: str, port: int) -> Net:
    """The same fabric with the cable on name[port] pulled."""
    net.unlink(name, port)
    return net


def samples_dir() -> Path:
    """tests/data/samples if present (the project's copy), else the shared originals."""
    return SAMPLES if SAMPLES.is_dir() else SHARED_SAMPLES


SAMPLE_FILES = {
    "sample-2sw2path4hca": "ibsim_net.2sw2path4hca.net",
    "sample-net-example": "ibsim_net_example.net",
    "sample-manpage": "manpage_example.ibnetdiscover",
    "sample-one-ca": "one_ca_no_links.ibnetdiscover",
}


def cases() -> dict[str, str]:
    """Case name -> topology text for every differential-test fabric."""
    out = {
        "fat2": two_level().text(),
        "k4": k_ary_fat_tree(4).text(),
        "parallel": two_level(parallel=2).text(),
        "parallel-failed": failed_link(two_level(parallel=2), "leaf1", 3).text(),
        "fat2-failed": failed_link(two_level(), "leaf1", 3).text(),
        "ring4": ring(4).text(),
    }
    for case, name in SAMPLE_FILES.items():
        out[case] = (samples_dir() / name).read_text()
    return out


def _hosts(net: Net, sw: str, first_port: int, count: int) -> None:
    """Cable ``count`` new single-port CAs to sw[first_port...]."""
    for h in range(count):
        n = sum(k == "Ca" for k, _, _ in net.nodes.values())
        net.link(sw, first_port + h, net.ca(f"h{n + 1}"), 1)


def torus_2d(x: int = 4, y: int = 4, hosts_per_switch: int = 1) -> Net:
    """x × y 2-D torus with wraparound: port 1 +x, 2 −x, 3 +y, 4 −y, hosts on 5...
    (a dimension of 2 gives two parallel cables between the pair)."""
    net = Net()
    sw = [[net.switch(f"sw{i + 1}-{j + 1}", 4 + hosts_per_switch) for j in range(y)] for i in range(x)]
    for i in range(x):
        for j in range(y):
            if x > 1:
                net.link(sw[i][j], 1, sw[(i + 1) % x][j], 2)
            if y > 1:
                net.link(sw[i][j], 3, sw[i][(j + 1) % y], 4)
            _hosts(net, sw[i][j], 5, hosts_per_switch)
    return net


def dragonfly(groups: int = 4, per_group: int = 4, hosts_per_switch: int = 2) -> Net:
    """Dragonfly: switches all-to-all inside a group (ports 1..per_group−1), one global cable
    between each pair of groups (group g's k-th other group on switch k mod per_group, on
    the ports after the local ones), then the hosts."""
    net = Net()
    globals_per_sw = -(-(groups - 1) // per_group)
    nports = per_group - 1 + globals_per_sw + hosts_per_switch
    sw = [[net.switch(f"g{g + 1}s{s + 1}", nports) for s in range(per_group)] for g in range(groups)]
    for g in range(groups):
        for a in range(per_group):
            for b in range(a + 1, per_group):
                net.link(sw[g][a], b, sw[g][b], a + 1)
    nxt = [[per_group] * per_group for _ in range(groups)]  # next free global port per switch

    def end(g: int, h: int) -> tuple[str, int]:
        k = h - (h > g)  # index of h among g's other groups
        s = k % per_group
        port = nxt[g][s]
        nxt[g][s] += 1
        return sw[g][s], port

    for g in range(groups):
        for h in range(g + 1, groups):
            a, pa = end(g, h)
            b, pb = end(h, g)
            net.link(a, pa, b, pb)
    for g in range(groups):
        for s in range(per_group):
            _hosts(net, sw[g][s], per_group + globals_per_sw, hosts_per_switch)
    return net


def random_fabric(switches: int = 8, extra_links: int = 4, hosts_per_switch: int = 1,
                  seed: int = 1) -> Net:
    """An irregular connected fabric: a random spanning tree plus ``extra_links`` random
    switch-to-switch cables (no self loops; parallel cables allowed), fixed by ``seed``.
    Switch cables take ports 1.. in the order drawn, hosts the ports after them."""
    import random

    rng = random.Random(seed)
    edges = [(rng.randrange(i), i) for i in range(1, switches)]
    for _ in range(extra_links):
        a, b = rng.sample(range(switches), 2)
        edges.append((a, b))
    deg = [0] * switches
    for a, b in edges:
        deg[a] += 1
        deg[b] += 1
    net = Net()
    sw = [net.switch(f"sw{i + 1}", deg[i] + hosts_per_switch) for i in range(switches)]
    used = [0] * switches
    for a, b in edges:
        used[a] += 1
        used[b] += 1
        net.link(sw[a], used[a], sw[b], used[b])
    for i in range(switches):
        _hosts(net, sw[i], deg[i] + 1, hosts_per_switch)
    return net
