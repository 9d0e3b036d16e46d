"""Which virtual lane each routed path uses on each hop: the SLs of the paths through the SL2VL tables.

A packet keeps its SL (in the LRH) from source to destination; each port it leaves puts it on
the VL that port's SL2VL table gives for (input port, output port, SL). The CA port a path
starts on uses its own table (``(CA node GUID, 0, port)`` in :class:`~.qos.QosTables`); a switch
uses the table of the (in port, out port) pair the hop takes, so a path can change VL hop by hop
where the tables differ per port. An SL mapped to VL15 (the management lane) is dropped by
the port (IBA 7.6.6), so that path goes no further.

The SL of a path: ``routing.info.path_sl`` (:class:`~.path_sl.PathSL`, set by dfsssp and
lash) for every SL OpenSM may answer (``sl_choices``: dfsssp's balancing spreads a base SL),
else the one SL the caller gives (default 0).

The SL2VL tables (:class:`SL2VL`): those :func:`~.qos.compute_qos` gives for the design's QoS
options when QoS is on; otherwise (``qos FALSE``, no options, ``None``) every port maps SL n to
VL n, the one-to-one tables dfsssp and lash are documented to need — so minhop, updn and ftree
paths, all on SL0, stay on VL0.

:func:`walk_vls` follows every (CA source, CA destination LID) route of the LFTs once per
(destination, SL), as arrays (a few destinations at a time), and returns the VLs used on each
egress port and the channel dependencies per VL that :mod:`.creditloops` looks for cycles in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .path_sl import PathSL
from .qos import QosOptions, QosTables, compute_qos
from .qos_meta import design_qos
from .subnet import NO_PATH, Subnet

if TYPE_CHECKING:
    from .qos import QosTables
    from .routing import Routing

NUM_VLS = 16
MGMT_VL = 15                 # VL15: a data packet mapped to it is dropped
MAX_HOPS = 64                # routes longer than this are forwarding loops in the LFTs
#: (destination, source) pairs walked per batch: bounds the arrays on big fabrics.
BATCH_PAIRS = 1 << 20


@dataclass(frozen=True)
class SL2VL:
    """SL→VL of every switch (in port, out port) pair and of every CA port, as arrays.

    ``by_out`` [S, P+1, 16] when the table depends only on the output port (what OpenSM
    programs: one table per output port for every input port), else ``full`` [S, P+1, P+1, 16]
    indexed [switch, in port, out port, SL]. ``ca`` [CA ports, 16] for the first hop.
    """

    by_out: np.ndarray | None
    full: np.ndarray | None
    ca: np.ndarray
    identity: bool = False

    def switch_vl(self, s: np.ndarray, i: np.ndarray, q: np.ndarray, sl: np.ndarray) -> np.ndarray:
        """VL leaving switch ``s`` by port ``q`` for a packet of SL ``sl`` that came in on ``i``."""
        if self.identity:
            return np.asarray(sl, np.int64)
        if self.full is not None:
            return self.full[s, i, q, sl].astype(np.int64)
        assert self.by_out is not None
        return self.by_out[s, q, sl].astype(np.int64)

    @property
    def by_in(self) -> bool:
        """True when some switch maps an SL differently per input port."""
        return self.full is not None


def identity_sl2vl(sn: Subnet) -> SL2VL:
    """SL n → VL n on every port."""
    n_ca = len(sn.ca_ports)
    return SL2VL(None, None, np.broadcast_to(np.arange(NUM_VLS, dtype=np.uint8), (n_ca, NUM_VLS)), True)


def sl2vl_of(sn: Subnet, tables: Any = None) -> SL2VL:
    """The :class:`SL2VL` of ``tables``: None or QoS off (identity), a :class:`~.qos.QosTables`,
    :class:`~.qos.QosOptions` (computed here), one 16-entry table for every port, or arrays
    [S, P+1, 16] (by output port) / [S, P+1, P+1, 16] (by input and output port)."""
    if isinstance(tables, SL2VL):
        return tables
    if isinstance(tables, QosOptions):
        tables = compute_qos(sn, tables)
    if tables is None or (isinstance(tables, QosTables) and not tables.enabled):
        return identity_sl2vl(sn)
    S, P1, n_ca = sn.num_switches, sn.nbr_dev.shape[1], len(sn.ca_ports)
    ident = np.arange(NUM_VLS, dtype=np.uint8)
    if isinstance(tables, QosTables):
        return _from_qos(sn, tables)
    arr = np.asarray(tables, np.uint8)
    ca = np.broadcast_to(ident, (n_ca, NUM_VLS))
    if arr.shape == (NUM_VLS,):
        return SL2VL(np.broadcast_to(arr, (S, P1, NUM_VLS)), None, np.broadcast_to(arr, (n_ca, NUM_VLS)))
    if arr.shape == (S, P1, NUM_VLS):
        return SL2VL(arr, None, ca)
    if arr.shape == (S, P1, P1, NUM_VLS):
        return SL2VL(None, arr, ca)
    raise ValueError(f"SL2VL tables of shape {arr.shape}: expected (16,), ({S}, {P1}, 16) or ({S}, {P1}, {P1}, 16)")


def _from_qos(sn: Subnet, tables: QosTables) -> SL2VL:
    """Dense arrays from OpenSM's tables; a pair it writes no table for keeps SL n → VL n."""
    S, P1 = sn.num_switches, sn.nbr_dev.shape[1]
    full = np.broadcast_to(np.arange(NUM_VLS, dtype=np.uint8), (S, P1, P1, NUM_VLS)).copy()
    sw_of = {int(g): s for s, g in enumerate(sn.sw_guid.tolist())}
    f = sn.fabric
    dev_guid = f.devices_t.guid[f.ports_t.device[sn.ca_ports]].astype(np.uint64) if len(sn.ca_ports) \
        else np.zeros(0, np.uint64)
    ca_of = {(int(g), int(n)): j for j, (g, n) in enumerate(zip(dev_guid.tolist(),
                                                              f.ports_t.num[sn.ca_ports].tolist(), strict=True))}
    ca = np.broadcast_to(np.arange(NUM_VLS, dtype=np.uint8), (len(sn.ca_ports), NUM_VLS)).copy()
    for (guid, i, o), t in tables.sl2vl.items():
        s = sw_of.get(int(guid))
        if s is not None:
            if i < P1 and o < P1:
                full[s, i, o] = t
        elif i == 0 and (int(guid), o) in ca_of:
            ca[ca_of[(int(guid), o)]] = t
    # one table per output port for every external in port (in port 0 carries SM traffic only)?
    same = all((full[s, 1:n + 1] == full[s, 1:2]).all() for s, n in enumerate(sn.sw_nports.tolist()) if n)
    if P1 < 2 or same:
        return SL2VL(full[:, 1 if P1 > 1 else 0], None, ca)
    return SL2VL(None, full, ca)


def design_sl2vl(routing: Routing) -> SL2VL:
    """The SL2VL tables of the design's QoS options (``fabric.meta["qos"]``), identity without them."""
    return sl2vl_of(routing.subnet, design_qos(routing.subnet.fabric))


@dataclass(frozen=True)
class VlWalk:
    """What :func:`walk_vls` found.

    Node ids of the VL channel graph: ``(switch × (P+1) + port) × 16 + VL``.
    """

    dep_a: np.ndarray          # node a packet holds a credit on (its input channel and VL) …
    dep_b: np.ndarray          # … while it waits for one on this node (output channel and VL)
    dep_dlid: np.ndarray       # destination LID of the route that adds the dependency
    port_vls: np.ndarray       # [S, P+1] uint16: bit v set when some route leaves that port on VL v
    ca_vls: np.ndarray         # [CA ports] uint16: VLs each CA port sends on
    dropped: int               # (source, destination, SL) routes an SL2VL table sends to VL15

    def vls_used(self, switch_links: bool = True) -> tuple[int, ...]:
        """VLs some route uses: on switch-to-switch channels (``switch_links``) or anywhere."""
        if switch_links:
            nodes = np.concatenate([self.dep_a, self.dep_b])
            return tuple(int(v) for v in np.unique(nodes % NUM_VLS).tolist())
        mask = int(np.bitwise_or.reduce(np.concatenate([self.port_vls.ravel(), self.ca_vls]), initial=0))
        return tuple(v for v in range(NUM_VLS) if mask >> v & 1)


def destination_lids(routing: Routing) -> np.ndarray:
    """Every CA LID (base LID + LMC offsets), ascending."""
    lids = routing.lids
    base = lids.ca_lid[lids.ca_lid > 0]
    out = [base + off for off in range(lids.lids_per_ca_port)]
    return np.unique(np.concatenate(out)) if out else np.zeros(0, np.int64)


def _start_pairs(routing: Routing, dl: np.ndarray, src: np.ndarray,
                 path_sl: PathSL) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(destination index into ``dl``, CA port j, SL) of every route from a CA port of ``src`` to
    ``dl`` for every SL choice of every LID of the source (self routes left out)."""
    lids = routing.lids
    step = lids.lids_per_ca_port
    base = lids.ca_lid[src].astype(np.int64)
    di = np.repeat(np.arange(len(dl)), len(src))
    j = np.tile(src, len(dl))
    jb = np.tile(base, len(dl))
    dlid = dl[di]
    keep = (dlid < jb) | (dlid >= jb + step)
    di, j, jb, dlid = di[keep], j[keep], jb[keep], dlid[keep]
    parts_d, parts_j, parts_s = [], [], []
    split = np.maximum(path_sl.split.astype(np.int64), 1)
    for off in range(step):
        b = np.clip(path_sl.sls(jb + off, dlid), 0, NUM_VLS - 1)
        spread = split[b]
        for k in range(int(spread.max()) if len(spread) else 0):
            m = spread > k
            parts_d.append(di[m])
            parts_j.append(j[m])
            parts_s.append(np.minimum(b[m] + k, NUM_VLS - 1))
    return _cat(parts_d), _cat(parts_j), _cat(parts_s)


def _cat(xs: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(xs) if xs else np.zeros(0, np.int64)


class _States:
    """Distinct (destination, switch, in port, SL) states of a batch, by a dense key: marks and
    positions live in two buffers reused from hop to hop (no sort, no allocation per hop).
    The in port is part of the key only when an SL2VL table depends on it."""

    def __init__(self, S: int, P1: int, by_in: bool, per: int) -> None:
        self.S, self.PK = S, (P1 if by_in else 1)
        self.by_in = by_in
        size = per * S * self.PK * NUM_VLS
        self.mark = np.zeros(size, bool)
        self.pos = np.zeros(size, np.int64)

    def unique(self, di: np.ndarray, s: np.ndarray, i: np.ndarray, sl: np.ndarray):
        """((di, s, i, sl) of the distinct states, each input's index among them)."""
        ki = i if self.by_in else 0
        key = ((di * self.S + s) * self.PK + ki) * NUM_VLS + sl
        self.mark[key] = True
        uniq = np.flatnonzero(self.mark)
        self.mark[uniq] = False
        self.pos[uniq] = np.arange(len(uniq))
        inv = self.pos[key]
        rest, usl = np.divmod(uniq, NUM_VLS)
        rest, _k = np.divmod(rest, self.PK)
        udi, us = np.divmod(rest, self.S)
        ui = np.zeros(len(uniq), np.int64)
        ui[inv] = i                        # the in port of (one of) the merged states
        return (udi, us, ui, usl), inv


#: Dense state keys per batch (destinations × switches × in ports × 16): bounds the two buffers.
STATE_KEYS = 1 << 21


def walk_vls(routing: Routing, sl: int = 0, path_sl: PathSL | None = None, sl2vl: Any = None) -> VlWalk:
    """Follow every CA-to-CA-LID route of ``routing`` with its SL through the SL2VL tables.

    ``path_sl``: the SL per path (None: ``routing.info.path_sl``, when there is none ``sl``
    for every path); ``sl2vl``: anything :func:`sl2vl_of` takes (None: identity). See the module doc.
    """
    if not 0 <= int(sl) < NUM_VLS:
        raise ValueError(f"SL {sl}: an SL is 0..15")
    sn, lft = routing.subnet, routing.lft
    if path_sl is None:
        path_sl = routing.info.path_sl
    table = sl2vl_of(sn, sl2vl)
    S, P1 = sn.num_switches, sn.nbr_dev.shape[1]
    port_vls = np.zeros((S, P1), np.uint16)
    ca_vls = np.zeros(len(sn.ca_ports), np.uint16)
    lids = routing.lids
    src = np.flatnonzero((sn.ca_sw >= 0) & (lids.ca_lid > 0))
    dl_all = destination_lids(routing)
    PK = P1 if table.by_in else 1
    per = max(1, min(len(dl_all), STATE_KEYS // (S * PK * NUM_VLS), BATCH_PAIRS // max(len(src), 1)))
    states = _States(S, P1, table.by_in, per)
    deps_a: list[np.ndarray] = []
    deps_b: list[np.ndarray] = []
    deps_d: list[np.ndarray] = []
    dropped = 0
    one_sl = path_sl is None or not len(path_sl.table)
    if one_sl:                # every path on one SL: the sources are the CAs' (switch, in port)s
        sl0 = int(sl) if path_sl is None else int(path_sl.default)
        v0 = table.ca[src, sl0].astype(np.int64)
        ok0 = v0 != MGMT_VL
        live = src[ok0]
        if len(src) > 1:                       # a lone CA sends to no one
            ca_vls[live] |= (1 << v0[ok0]).astype(np.uint16)
        ends = np.unique(np.stack([sn.ca_sw[live], sn.ca_sw_port[live] if table.by_in
                                   else np.zeros(len(live), np.int64)]), axis=1)
    for lo in range(0, len(dl_all), per):
        dl = dl_all[lo:lo + per].astype(np.int64)
        if one_sl:
            di = np.repeat(np.arange(len(dl)), ends.shape[1])
            s = np.tile(ends[0], len(dl)).astype(np.int64)
            i = np.tile(ends[1], len(dl)).astype(np.int64)
            sls = np.full(len(di), sl0, np.int64)
            dead = lids.ca_lid[src[~ok0]].astype(np.int64)[:, None]      # their own LIDs: no route
            dropped += int(np.count_nonzero((dl[None, :] < dead) | (dl[None, :] >= dead + lids.lids_per_ca_port)))
        else:
            assert path_sl is not None
            di, j, sls = _start_pairs(routing, dl, src, path_sl)
            v0 = table.ca[j, sls].astype(np.int64)
            ok = v0 != MGMT_VL
            dropped += int((~ok).sum())
            np.bitwise_or.at(ca_vls, j[ok], (1 << v0[ok]).astype(np.uint16))
            di, j, sls = di[ok], j[ok], sls[ok]
            s = sn.ca_sw[j].astype(np.int64)
            i = sn.ca_sw_port[j].astype(np.int64)
        (di, s, i, sls), _inv = states.unique(di, s, i, sls)
        prev: np.ndarray | None = None      # node of the channel each packet came in on
        prev_inv = np.zeros(0, np.int64)
        for _hop in range(MAX_HOPS):
            if not len(s):
                break
            q = lft[s, dl[di]].astype(np.int64)
            valid = (q != NO_PATH) & (q > 0) & (q < P1)
            qq = np.where(valid, q, 0)
            v = table.switch_vl(s, i, qq, sls)
            drop = valid & (v == MGMT_VL)
            dropped += int(drop.sum())
            valid &= ~drop
            r = np.where(valid, sn.nbr_sw[s, qq], -1)
            node = np.where(valid, (s * P1 + qq) * NUM_VLS + v, -1)
            hit = (s[valid] * P1 + qq[valid]) * NUM_VLS + v[valid]
            used = np.unique(hit)
            np.bitwise_or.at(port_vls.reshape(-1), used // NUM_VLS, (1 << (used % NUM_VLS)).astype(np.uint16))
            if prev is not None:
                b = node[prev_inv]
                m = (b >= 0) & (r[prev_inv] >= 0)          # into a switch-to-switch channel
                deps_a.append(prev[m])
                deps_b.append(b[m])
                deps_d.append(dl[di[prev_inv]][m])
            go = r >= 0
            if not go.any():
                break
            ni = sn.nbr_port[s[go], qq[go]].astype(np.int64)
            nxt, prev_inv = states.unique(di[go], r[go], ni, sls[go])
            prev = node[go]
            di, s, i, sls = nxt
    return VlWalk(_cat(deps_a), _cat(deps_b), _cat(deps_d), port_vls, ca_vls, dropped)


def switch_port_cables(sn: Subnet) -> np.ndarray:
    """[S, P+1] cable id on each switch port (-1: none)."""
    f = sn.fabric
    dev = np.asarray(sn.switches, np.int64)
    first = f.devices_t.first_port[dev].astype(np.int64)
    P1 = sn.nbr_dev.shape[1]
    nums = np.arange(P1)
    valid = (nums[None, :] >= 1) & (nums[None, :] <= sn.sw_nports.astype(np.int64)[:, None])
    pids = first[:, None] + nums[None, :] - 1
    return np.where(valid, f.ports_t.cable[np.where(valid, pids, 0)], -1).astype(np.int64)


def cable_vls(routing: Routing, walk: VlWalk) -> tuple[np.ndarray, np.ndarray]:
    """(cable ids, VL bit mask) of every cable some route uses, both directions together."""
    sn = routing.subnet
    f = sn.fabric
    cab = switch_port_cables(sn)
    ok = (cab >= 0) & (walk.port_vls > 0)
    ca_cab = f.ports_t.cable[sn.ca_ports].astype(np.int64) if len(sn.ca_ports) else np.zeros(0, np.int64)
    cok = (ca_cab >= 0) & (walk.ca_vls > 0)
    ids = np.concatenate([cab[ok], ca_cab[cok]])
    masks = np.concatenate([walk.port_vls[ok], walk.ca_vls[cok]]).astype(np.int64)
    cables = np.unique(ids)
    out = np.zeros(len(cables), np.int64)
    np.bitwise_or.at(out, np.searchsorted(cables, ids), masks)
    return cables, out


def engine_layers(routing: Routing) -> tuple[np.ndarray, tuple[str, ...]] | None:
    """The deadlock-free engine's layers as SL → layer index (-1: no layer) and one name per
    layer (``layer 1 (SL6)``, ``layer 0 (SL0–5)``), or None when the engine made none.

    dfsssp finds ``vls_needed`` layers, then balancing spreads a busy layer over several SLs
    (``vl_split``: each layer's SLs start at its block, OpenSM's ``vl_split_count``); lash's
    layers are its SLs from ``lash_start_vl`` on. The layer is what broke the credit loops; the
    SLs within one layer only share its load."""
    psl = routing.info.path_sl
    if psl is None:
        return None
    of = np.full(NUM_VLS, -1, np.int64)
    names: list[str] = []
    split = routing.info.vl_split
    if split is not None:
        sl = 0
        for start, n in enumerate(np.asarray(split, np.int64).tolist()):
            if n > 0 and start >= sl:
                of[start:start + n] = len(names)
                names.append(f"layer {len(names)} (SL{start}" + (f"–{start + n - 1})" if n > 1 else ")"))
                sl = start + n
        return of, tuple(names)
    used = sorted(psl.counts())
    for k, sl in enumerate(used):
        of[sl] = k
        names.append(f"layer {k} (SL{sl})")
    return of, tuple(names)


def layer_masks(masks: np.ndarray, layer_of: np.ndarray) -> np.ndarray:
    """VL bit masks → layer bit masks, reading a VL as the SL it carries (identity SL2VL)."""
    masks = np.asarray(masks, np.int64)
    out = np.zeros(len(masks), np.int64)
    for v in range(NUM_VLS):
        if layer_of[v] >= 0:
            out |= np.where(masks >> v & 1, 1 << int(layer_of[v]), 0)
    return out


def mask_vls(mask: int) -> tuple[int, ...]:
    """The VLs of a bit mask, ascending."""
    return tuple(v for v in range(NUM_VLS) if int(mask) >> v & 1)


__all__ = ["MGMT_VL", "NUM_VLS", "SL2VL", "VlWalk", "cable_vls", "design_sl2vl", "destination_lids",
           "engine_layers", "identity_sl2vl", "layer_masks", "mask_vls", "sl2vl_of", "switch_port_cables",
           "walk_vls"]
