"""htsim (github.com/Broadcom/csg-htsim): its connection-matrix format and the fat tree it builds.

**Connection matrix** (what ``-tm FILE`` reads, ``ConnectionMatrix::load``): a header of
``Nodes N``, ``Connections C`` and, when there are triggers, ``Triggers T`` (``#`` comments are
allowed only here: past the first connection a ``#`` line is an error), then one line per flow::

    SRC->DST id I start T size B
    SRC->DST id I trigger G size B send_done_trigger H

and one per trigger, ``trigger id G count C barrier``. SRC, DST are htsim host numbers; ``id``
is a non-zero flow id; ``start`` is in picoseconds (read as a float; htsim_roce starts every
untriggered flow at 0 whatever it says); ``size`` is in bytes, read as a 32-bit int, and 0
means "no size": the source sends until the run ends. A barrier trigger fires its flows once
``count`` flows naming it as ``send_done_trigger`` have been acknowledged to their end. The
header counts must match the lines.

**Fat tree** (``FatTreeTopology`` without a topology file): K-ary, one link between any two
switches, one speed. 2 levels: K leaves (ToRs) of K/2 hosts, each joined to all K/2 spines
(N = K²/2). 3 levels: K pods of K/2 leaves and K/2 spines (aggregation switches), complete
between leaves and spines of a pod; the j-th spine of every pod joins the same group of K/2 of
the K²/4 cores (N = K³/4). Host i sits under ToR i div K/2; ToR t is in pod t div K/2; spine and
core switches take at most 64 ports (K ≤ 64). :func:`htsim_fat_tree` checks a design has this
shape, from its graph, and numbers its NICs as htsim does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ..ib.tiers import device_tiers, host_mask, switch_mask
from ..model import Fabric, FabricError
from ..model.fabric import KIND_CODE
from ..model.inputs import gc_paused
from ..model.tech import rates_gbps
from .limits import one_line, strip_bom

#: htsim's spine and core switches assert fewer than 64 ports (``addPort(...) < 64``).
MAX_K = 64
#: ``size`` is read with ``stoi`` into an ``int``.
MAX_SIZE = 2 ** 31 - 1


class NotHtsimFatTree(FabricError):
    """The design is not a fat tree htsim's FatTreeTopology builds (one line, naming the design)."""


@dataclass(frozen=True)
class HtsimTree:
    """A design as htsim's fat tree: ``nics[i]`` is the device id of htsim host i, ``leaves[t]``
    of ToR t; ``host_of`` per device id the host a NIC is, or a bound GPU sends through (-1: none)."""

    tiers: int
    k: int
    nics: np.ndarray
    leaves: np.ndarray
    host_of: np.ndarray
    gbps: float
    rate: str

    @property
    def nodes(self) -> int:
        return len(self.nics)

    @property
    def hosts_per_leaf(self) -> int:
        return self.k // 2

    def tor_of(self, host: int) -> int:
        return host // self.hosts_per_leaf

    def pod_of(self, host: int) -> int:
        """htsim's pod of a host (always 0 on 2 levels: one pod)."""
        return host // (self.k * self.k // 4) if self.tiers == 3 else 0


class Connection(NamedTuple):
    """One flow line; ``size`` 0 = sends until the run ends; ``trigger``: starts when that barrier
    fires (else at ``start_ps``); ``send_done_trigger``: the barrier it counts towards. A named
    tuple (immutable, typed): a million-line matrix builds ten times faster than as a dataclass."""

    src: int
    dst: int
    flow_id: int
    size: int
    start_ps: int = 0
    trigger: int = 0
    send_done_trigger: int = 0


@dataclass(frozen=True)
class Trigger:
    """A barrier: fires once ``count`` flows have finished."""

    trigger_id: int
    count: int


@dataclass(frozen=True)
class ConnectionMatrix:
    nodes: int
    connections: tuple[Connection, ...]
    triggers: tuple[Trigger, ...] = ()


@dataclass(frozen=True)
class HtsimParams:
    """htsim_roce's command-line values for a design, and where each came from
    (``sources``: flag → one line for run.sh)."""

    nodes: int
    tiers: int
    k: int
    strat: str
    paths: int | None            # -paths: ecmp_host needs one; ecmp_ar / ecmp_rr set their own
    linkspeed_mbps: float
    mtu: int
    hop_latency_us: float
    switch_latency_us: float
    pfc_low: int
    pfc_high: int
    queue_pkts: int
    host_queue_type: str = "prio"
    queue_type: str = "lossless_input"
    sources: dict[str, str] = field(default_factory=dict, compare=False)


# ---------------------------------------------------------------------------- the fat tree

def htsim_fat_tree(fabric: Fabric, name: str) -> HtsimTree:
    """The design as htsim's fat tree, or :class:`NotHtsimFatTree` saying (in one line starting
    with ``name``) the first thing htsim cannot build: mixed speeds, a host with two cabled ports,
    a leaf whose hosts or uplinks are not K/2, parallel links, wrong counts, other core wiring."""
    t, ct, pt = fabric.devices_t, fabric.cables_t, fabric.ports_t
    live = np.flatnonzero(ct.alive)
    if not len(live):
        raise NotHtsimFatTree(f"{name}: no cables; htsim's fat tree needs hosts under leaves")
    gbps, rate = _one_speed(fabric, name, live)
    pa, pb = ct.port_a[live].astype(np.int64), ct.port_b[live].astype(np.int64)
    a, b = pt.device[pa].astype(np.int64), pt.device[pb].astype(np.int64)
    sw, host = switch_mask(fabric), host_mask(fabric) & t.alive
    label = lambda i: fabric.cable(int(live[i])).label  # noqa: E731
    odd = np.flatnonzero(~((sw[a] | host[a]) & (sw[b] | host[b])) | (host[a] & host[b]))
    if len(odd):
        raise NotHtsimFatTree(f"{name}: htsim's fat tree joins hosts to switches and switches to switches; "
                              f"cable {label(odd[0])} does not")
    tiers = device_tiers(fabric)
    hs = host[a] | host[b]
    nic = np.where(host[a], a, b)[hs]
    leaf = np.where(host[a], b, a)[hs]
    leaf_port = np.where(host[a], pb, pa)[hs]
    ports = np.bincount(nic, minlength=t.n)
    if (ports > 1).any():
        d = int(np.argmax(ports > 1))
        raise NotHtsimFatTree(f"{name}: htsim's fat tree has one NIC port per host; {fabric.name_of(d)} has "
                              f"{ports[d]} cabled ports")
    not_leaf = np.flatnonzero(tiers[leaf] != 1)
    if len(not_leaf):
        i = int(not_leaf[0])
        raise NotHtsimFatTree(f"{name}: htsim puts hosts under leaves only; {fabric.name_of(int(nic[i]))} "
                              f"is cabled to {fabric.name_of(int(leaf[i]))}, a level-{tiers[leaf[i]]} switch")
    ss = ~hs
    ta, tb = tiers[a[ss]], tiers[b[ss]]
    ss_ids = np.flatnonzero(ss)
    lost = np.flatnonzero((ta < 1) | (tb < 1))
    if len(lost):
        i = int(ss_ids[lost[0]])
        d = a[i] if tiers[a[i]] < 1 else b[i]
        raise NotHtsimFatTree(f"{name}: {fabric.name_of(int(d))} is not connected to any leaf")
    skew = np.flatnonzero(np.abs(ta - tb) != 1)
    if len(skew):
        x, y = sorted((int(ta[skew[0]]), int(tb[skew[0]])))
        what = f"two level-{x} switches" if x == y else f"a level-{x} and a level-{y} switch"
        raise NotHtsimFatTree(f"{name}: htsim's fat tree links only adjacent levels; cable "
                              f"{label(ss_ids[skew[0]])} joins {what}")
    lo = np.where(ta < tb, a[ss], b[ss])
    hi = np.where(ta < tb, b[ss], a[ss])
    cabled = np.zeros(t.n, bool)
    cabled[a] = cabled[b] = True
    levels = int(tiers[sw & cabled].max(initial=0))
    if levels not in (2, 3):
        raise NotHtsimFatTree(f"{name}: htsim's fat tree has 2 or 3 switch levels; it has {levels}")
    return _shape(fabric, name, tiers, sw & cabled, levels, nic, leaf, pt.num[leaf_port], lo, hi, gbps, rate)


def _one_speed(fabric: Fabric, name: str, live: np.ndarray) -> tuple[float, str]:
    ct = fabric.cables_t
    keys = np.stack([ct.tech[live], ct.speed[live], ct.width[live]], axis=1).astype(np.int64)
    uniq, inverse, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    main = int(np.argmax(counts))
    rate = str(fabric.cable_rate(int(live[int(np.argmax(inverse == main))])))
    if len(uniq) > 1:
        other = int(live[int(np.argmax(inverse != main))])
        raise NotHtsimFatTree(f"{name}: htsim's fat tree runs every link at one speed; {counts[main]:,} cables run "
                              f"{rate}, {fabric.cable(other).label} runs {fabric.cable_rate(other)}")
    g = rates_gbps(ct.tech[live[:1]], ct.speed[live[:1]], ct.width[live[:1]])
    return float(g[0]), rate


def _shape(fabric: Fabric, name: str, tiers: np.ndarray, cabled_sw: np.ndarray, levels: int,
           nic: np.ndarray, leaf: np.ndarray, leaf_port_num: np.ndarray, lo: np.ndarray, hi: np.ndarray,
           gbps: float, rate: str) -> HtsimTree:
    """Check the counts and wiring of a 2- or 3-level tree and number its hosts."""
    t = fabric.devices_t
    n = t.n
    nm = fabric.name_of
    leaves = np.flatnonzero(cabled_sw & (tiers == 1))
    spines = np.flatnonzero(cabled_sw & (tiers == 2))
    hosts = np.bincount(leaf, minlength=n)
    half = int(np.bincount(hosts[leaves]).argmax())
    k = 2 * half
    short = leaves[hosts[leaves] != half]
    if half == 0 or len(short):
        d = int(short[0]) if len(short) else int(leaves[0])
        raise NotHtsimFatTree(f"{name}: htsim's fat tree needs every leaf to have K/2 = {max(half, 1)} hosts; "
                              f"{nm(d)} has {hosts[d]}")
    up = np.bincount(lo, minlength=n)
    down = np.bincount(hi, minlength=n)
    bad = leaves[up[leaves] != half]
    if len(bad):
        d = int(bad[0])
        raise NotHtsimFatTree(f"{name}: htsim's fat tree gives every leaf as many uplinks as hosts "
                              f"(K/2 = {half}, no oversubscription); {nm(d)} has {hosts[d]} hosts and {up[d]} uplinks")
    pair = lo * n + hi
    u, c = np.unique(pair, return_counts=True)
    if (c > 1).any():
        p = int(u[int(np.argmax(c > 1))])
        raise NotHtsimFatTree(f"{name}: htsim joins two switches by one link; {nm(p // n)} has "
                              f"{int(c.max())} cables to {nm(p % n)}")
    if k > MAX_K:
        raise NotHtsimFatTree(f"{name}: htsim's switches take at most {MAX_K} ports (K ≤ {MAX_K}); "
                              f"{half} hosts per leaf make K = {k}")
    if levels == 2:
        if len(leaves) != k or len(spines) != half:
            raise NotHtsimFatTree(f"{name}: htsim's 2-level fat tree with K/2 = {half} hosts per leaf has "
                                  f"K = {k} leaves and K/2 = {half} spines; it has {len(leaves)} leaves and "
                                  f"{len(spines)} spines")
        order = [np.sort(leaves)]
    else:
        order = _pods(fabric, name, tiers, cabled_sw, half, leaves, spines, lo, hi, up, down)
    leaf_order = np.concatenate(order)
    rank = np.empty(n, np.int64)
    rank[leaf_order] = np.arange(len(leaf_order))
    by_leaf = np.lexsort((leaf_port_num, rank[leaf]))
    nics = nic[by_leaf]
    host_of = np.full(n, -1, np.int64)
    host_of[nics] = np.arange(len(nics))
    gpus = np.flatnonzero(t.alive & (t.kind == KIND_CODE["gpu"]) & (t.bound >= 0))
    host_of[gpus] = host_of[t.bound[gpus].astype(np.int64)]
    return HtsimTree(levels, k, nics, leaf_order, host_of, gbps, rate)


def _pods(fabric: Fabric, name: str, tiers: np.ndarray, cabled_sw: np.ndarray, half: int, leaves: np.ndarray,
          spines: np.ndarray, lo: np.ndarray, hi: np.ndarray, up: np.ndarray, down: np.ndarray) -> list[np.ndarray]:
    """Leaves per pod, pods in order of their first leaf id; checks pods, spines and core groups."""
    n, k, nm = fabric.devices_t.n, 2 * half, fabric.name_of
    cores = np.flatnonzero(cabled_sw & (tiers == 3))
    for sel, want, what in ((down[spines] != half, half, "links down to leaves"),
                            (up[spines] != half, half, "links up to cores")):
        if sel.any():
            d = int(spines[np.argmax(sel)])
            got = down[d] if what.endswith("leaves") else up[d]
            raise NotHtsimFatTree(f"{name}: htsim's fat tree gives every spine K/2 = {want} {what}; "
                                  f"{nm(d)} has {got}")
    in_pod = tiers[lo] == 1
    g = sp.coo_matrix((np.ones(int(in_pod.sum())), (lo[in_pod], hi[in_pod])), shape=(n, n)).tocsr()
    _, comp = connected_components(g, directed=False)
    pods = []
    for c in np.unique(comp[leaves]):
        pl = np.sort(leaves[comp[leaves] == c])
        ps = np.sort(spines[comp[spines] == c])
        if len(pl) != half or len(ps) != half:
            raise NotHtsimFatTree(f"{name}: htsim's 3-level fat tree has pods of K/2 = {half} leaves and {half} "
                                  f"spines; the pod of {nm(int(pl[0]))} has {len(pl)} leaves and {len(ps)} spines")
        pods.append((pl, ps))
    pods.sort(key=lambda p: int(p[0][0]))
    if len(pods) != k or len(cores) != k * k // 4:
        raise NotHtsimFatTree(f"{name}: htsim's 3-level fat tree with K/2 = {half} hosts per leaf has K = {k} pods "
                              f"and K²/4 = {k * k // 4} cores; it has {len(pods)} pods and {len(cores)} cores")
    pod_of = np.full(n, -1, np.int64)
    for i, (_, ps) in enumerate(pods):
        pod_of[ps] = i
    top = ~in_pod
    c_lo, c_hi = lo[top], hi[top]
    per_core = np.unique(c_hi * k + pod_of[c_lo])
    reach = np.bincount(per_core // k, minlength=n)
    bad = cores[reach[cores] != k]
    if len(bad):
        d = int(bad[0])
        raise NotHtsimFatTree(f"{name}: htsim's fat tree joins every core to one spine of each of the {k} pods; "
                              f"{nm(d)} reaches {reach[d]} pods over {down[d]} links")
    group = np.full(n, -1, np.int64)          # core -> index of the first pod's spine reaching it
    first = np.searchsorted(pods[0][1], c_lo)
    mine = pod_of[c_lo] == 0
    group[c_hi[mine]] = first[mine]
    g = group[c_hi]                           # per core cable: the group of its core
    lo_g, hi_g = np.full(n, k * k, np.int64), np.full(n, -1, np.int64)
    np.minimum.at(lo_g, c_lo, g)
    np.maximum.at(hi_g, c_lo, g)
    split = spines[lo_g[spines] != hi_g[spines]]
    if len(split):
        s = int(split[0])
        x, y = (int(c_hi[(c_lo == s) & (g == v)][0]) for v in (lo_g[s], hi_g[s]))
        raise NotHtsimFatTree(f"{name}: htsim joins the j-th spine of every pod to the same K/2 cores; "
                              f"{nm(s)} reaches {nm(x)} and {nm(y)}, which {nm(int(pods[0][1][lo_g[s]]))} and "
                              f"{nm(int(pods[0][1][hi_g[s]]))} reach in the first pod")
    return [pl for pl, _ in pods]


# ---------------------------------------------------------------------------- the connection matrix

def format_connection_matrix(cm: ConnectionMatrix) -> str:
    """The ``-tm`` text of ``cm`` (no comments: htsim refuses them past the header)."""
    lines = [f"Nodes {cm.nodes}", f"Connections {len(cm.connections)}"]
    if cm.triggers:
        lines.append(f"Triggers {len(cm.triggers)}")
    for c in cm.connections:
        when = f"trigger {c.trigger}" if c.trigger else f"start {c.start_ps}"
        done = f" send_done_trigger {c.send_done_trigger}" if c.send_done_trigger else ""
        lines.append(f"{c.src}->{c.dst} id {c.flow_id} {when} size {c.size}{done}")
    lines += [f"trigger id {g.trigger_id} count {g.count} barrier" for g in cm.triggers]
    return "\n".join(lines) + "\n"


_FLOW = re.compile(r"^(\d+)->(\d+)$")
#: the body of a matrix whose every flow line is ``SRC->DST id I start T size B`` (ASCII digits, at
#: most 18 of them: an int64 holds the value; single spaces), read in bulk without the general parser
_PLAIN = r"[0-9]{1,18}->[0-9]{1,18} id [0-9]{1,18} start [0-9]{1,18} size [0-9]{1,18}"
_PLAIN_BODY = re.compile(rf"(?:{_PLAIN}\n)*{_PLAIN}\n?")
_FIRST_FLOW = re.compile(r"(?m)^[0-9]")
_NOT_DIGIT = str.maketrans({c: " " for c in "->idstarze\n"})


def parse_connection_matrix(text: str, where: str = "connections") -> ConnectionMatrix:
    """Read what :func:`format_connection_matrix` writes (and htsim's generators: the
    ``start``/``trigger``/``size``/``id``/``send_done_trigger`` fields, barrier triggers);
    ``FabricError("WHERE:LINE: …")`` for anything else, as htsim would refuse it."""
    text = strip_bom(text)
    with gc_paused():            # a million small objects: the collector would walk them again and again
        m = _FIRST_FLOW.search(text)
        plain = _plain_flows(text[m.start():]) if m is not None else None
        if plain is not None and m is not None:      # the header line by line, the flows in bulk
            return _parse_matrix(text[:m.start()], where, plain)
        return _parse_matrix(text, where, [])


def _plain_flows(body: str) -> list[Connection] | None:
    """The flows of ``body`` if it is only plain flow lines, each with a non-zero id; else None
    (the line reader then reads, or names the line it refuses)."""
    if _PLAIN_BODY.fullmatch(body) is None:
        return None
    cols = np.fromstring(body.translate(_NOT_DIGIT), dtype=np.int64, sep=" ").reshape(-1, 5)
    if not cols[:, 2].all():
        return None
    start = cols[:, 3].astype(np.float64).astype(np.int64)   # read as a float, as htsim (and _connection) do
    zero = np.zeros(len(cols), dtype=np.int64)
    return list(map(Connection._make, zip(*(c.tolist() for c in (cols[:, 0], cols[:, 1], cols[:, 2], cols[:, 4],
                                                                 start, zero, zero)), strict=True)))


def _parse_matrix(text: str, where: str, plain: list[Connection]) -> ConnectionMatrix:
    """The matrix of ``text`` line by line; ``plain``: the flows read in bulk after it."""
    nodes, declared, triggers = -1, {"Connections": -1, "Triggers": 0}, []
    conns: list[Connection] = []
    body = False
    for ln, raw in enumerate(text.split("\n"), start=1):   # newline only: the file's own line numbers
        tok = raw.split()
        at = f"{where}:{ln}"
        if not tok or (tok[0].startswith("#") and not body):
            continue
        try:
            if not body and tok[0] == "Nodes":
                nodes = int(tok[1])
            elif not body and tok[0] in declared:
                declared[tok[0]] = int(tok[1])
            elif _FLOW.match(tok[0]):
                body = True
                conns.append(_connection(tok, at))
            elif tok[0] == "trigger":
                body = True
                triggers.append(_trigger(tok, at))
            else:
                raise FabricError(f"{at}: unknown line {_quote(raw)}")
        except FabricError:                # a ValueError too: it keeps its own message
            raise
        except (IndexError, ValueError):
            raise FabricError(f"{at}: bad line {_quote(raw)}") from None
    conns += plain
    if nodes < 0:
        raise FabricError(f"{where}: no 'Nodes N' line")
    for key, got in (("Connections", len(conns)), ("Triggers", len(triggers))):
        if declared[key] >= 0 and declared[key] != got:
            raise FabricError(f"{where}: {key} {declared[key]} declared, {got} given")
    return ConnectionMatrix(nodes, tuple(conns), tuple(triggers))


def _connection(tok: list[str], at: str) -> Connection:
    m = _FLOW.match(tok[0])
    assert m is not None
    vals = {"id": 0, "start": -1, "size": 0, "trigger": 0, "send_done_trigger": 0}
    keys = iter(tok[1:])
    for key in keys:
        if key not in vals:
            raise FabricError(f"{at}: unknown field {_quote(key)}")
        value = next(keys, None)
        if value is None:
            raise FabricError(f"{at}: field {key!r} has no value")
        if key == "start":
            start = float(value)
            if not 0 <= start < 2 ** 63:   # htsim's simtime_picosec is a uint64; inf and nan are no time
                raise FabricError(f"{at}: start {_quote(value)} is not a time in picoseconds (0 up to 2^63)")
            vals[key] = int(start)
        else:
            vals[key] = int(value)
    if vals["id"] == 0:
        raise FabricError(f"{at}: a flow needs a non-zero id")
    if (vals["start"] < 0) == (vals["trigger"] == 0):
        raise FabricError(f"{at}: a flow needs a start or a trigger, not both")
    return Connection(int(m[1]), int(m[2]), vals["id"], vals["size"], max(vals["start"], 0), vals["trigger"],
                      vals["send_done_trigger"])


def _quote(text: str) -> str:
    """A piece of a line for a message: stripped, at most 40 characters, quoted, one line."""
    return one_line(repr(text.strip()[:40]))


def _trigger(tok: list[str], at: str) -> Trigger:
    if "barrier" not in tok:
        raise FabricError(f"{at}: only barrier triggers are read")
    i, c = tok.index("id"), tok.index("count")
    return Trigger(int(tok[i + 1]), int(tok[c + 1]))


__all__ = ["MAX_K", "MAX_SIZE", "Connection", "ConnectionMatrix", "HtsimParams", "HtsimTree", "NotHtsimFatTree",
           "Trigger", "format_connection_matrix", "htsim_fat_tree", "parse_connection_matrix"]
