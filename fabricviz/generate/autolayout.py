"""Auto layout: a design arranged to fill a screen-shaped (16:9) area, never one long row.

Built on :func:`fabricviz.generate.groups.find_groups`, so generated, hand-made and imported designs
are laid out alike:

* each pod / scalable unit / rack is a block: its leaves in a row (wrapped into a few rows of
  "clusters" when a single pod has many leaves), the servers of each leaf wrapped in rows directly
  under it (a rail-optimised unit's nodes, which reach all its rail leaves, under the whole row),
  and the pod's aggregation tiers in rows above its leaves;
* the blocks sit in a grid whose column count makes the whole drawing closest to 16:9;
* the top tier (spines of a leaf-spine, cores of a 3-level tree, super-spines) is in wrapped rows
  centred above the grid, each switch ordered by the mean x of what it connects to (barycentre);
* SHARP aggregation nodes sit inside their switch (at its right end); anything ungrouped gets a
  grid cell of its own.

Sizes are the canvas's: :func:`fabricviz.generate.geometry.device_rects` is what the canvas items
are drawn from, so the bounding box here is the one the canvas fits. Pure numpy; a radix-48 fat tree
(85k devices) takes well under a second.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from ..ib.sharp import sharp_mask
from ..ib.tiers import switch_mask
from ..model import Fabric
from .geometry import SWITCH_H, device_rects
from .groups import HOSTS, Grouping, cable_tops, find_groups, host_systems, rack_domains

#: Width : height the layout aims for (a screen).
ASPECT = 16 / 9
#: Between server frames; rows ``HOST_GAP_Y`` apart hold the upper row's names (12 left it unnamed)
HOST_GAP_X, HOST_GAP_Y = 8.0, 28.0
ADAPTER_GAP_Y, LOW_FRAME = 12.0, 24.0    # ... rows of frames at most LOW_FRAME high (adapters)
SWITCH_GAP = 16.0                        # between switches in a row
LEAF_DROP = 56.0                         # from a leaf's bottom edge to its first row of servers
#: ... when they are an NVLink rack's compute trays (an NVL72): the rack's frame sits 14 units
#: above its trays and the leaves' cables come into it along lanes under the leaves' names, which
#: at fit (~50 %) are 35 units high; 56 left the names on the frame (issue 29).
RACK_DROP = 112.0
TIER_RISE = 150.0                        # between the switch tiers of a pod
#: Between wrapped rows of one tier: the upper row's names (~40 units at a 2-level DGX tree's fit)
#: above its cables' lanes, one per switch 4 units apart (48 put the lanes through the names).
ROW_GAP = 112.0
CLUSTER_GAP_X, CLUSTER_GAP_Y = 36.0, 90.0   # between the leaves (with servers) of one pod
POD_GAP_X, POD_GAP_Y = 140.0, 220.0      # between grid cells, at least
#: ... and at least this times a typical (median) pod box's height: a 4,096-host pod is ~1,500
#: units high, and 140 units between two would be a 6-pixel gutter at fit for the bundles routed
#: through it (the radix-8…32 trees' pods keep the fixed gaps).
POD_GAP_REL_X, POD_GAP_REL_Y = 0.2, 0.3
TOP_RISE = 300.0                         # from the grid's top to the top tier's lowest row, at least
TOP_RISE_MAX = 0.35                      # ... and at most this times the width (a wide, flat design)
AIR_COST = 0.6         # score per part of the height added under the top tier to look less wide
TOP_RISE_REL = 0.5                       # ... and at least this times a typical pod's height (big pods)
SHARP_INSET = 3.0                        # a SHARP aggregation node inside its switch, from its right end
#: Host-block shapes tried (width : height of a leaf's servers) and pod row counts tried.
HOST_SHAPES = (1.0, 2.0, 0.5, 4.0)
MAX_POD_ROWS = 8
#: A pod box wider than this times its height (or taller than its inverse) costs the layout's score
#: ``FLAT_COST`` per e-fold beyond: such strips (a 64-leaf pod in one row is 69 : 1) stack in one
#: column and their far-level names crowd; the radix-8…32 trees' pods (2 : 1 … 5 : 1) are not touched.
FLAT_POD = 5.0
FLAT_COST = 1.0
GRID = 16.0            # positions are multiples of 1 / GRID units


def with_children(f: Fabric, tops: np.ndarray, xs: np.ndarray, ys: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(ids, xs, ys)`` of ``tops`` and every live GPU/NIC of theirs, each child keeping its
    offset from its server (a layout moves servers; what is inside moves with them)."""
    t = f.devices_t
    nx_ = np.full(t.n, np.nan)
    ny_ = np.full(t.n, np.nan)
    nx_[tops], ny_[tops] = xs, ys
    kids = np.flatnonzero(t.alive & (t.parent >= 0))
    par = t.parent[kids].astype(np.int64)
    kids, par = kids[~np.isnan(nx_[par])], par[~np.isnan(nx_[par])]
    kx = nx_[par] + (t.x[kids].astype(np.float64) - t.x[par])
    ky = ny_[par] + (t.y[kids].astype(np.float64) - t.y[par])
    return (np.concatenate([tops, kids]).astype(np.int64), np.concatenate([xs, kx]),
            np.concatenate([ys, ky]))


@dataclass
class _Rows:
    """Devices placed in wrapped rows per key (a pod's tier, the top tier, the loose cell)."""

    ids: np.ndarray        # devices, sorted by key
    key: np.ndarray        # per device
    count: np.ndarray      # per key
    pitch: np.ndarray      # per key: slot width (widest device + gap)
    height: np.ndarray     # per key: tallest device


def _row_sets(ids: np.ndarray, key: np.ndarray, nkeys: int, w: np.ndarray, h: np.ndarray) -> _Rows:
    s = np.lexsort((ids, key))
    ids, key = ids[s], key[s]
    count = np.bincount(key, minlength=nkeys)
    pitch = np.zeros(nkeys)
    height = np.zeros(nkeys)
    np.maximum.at(pitch, key, w[ids] + SWITCH_GAP)
    np.maximum.at(height, key, h[ids])
    return _Rows(ids, key, count, pitch, height)


class _Plan:
    """The pieces of one design, sized once; :meth:`size` and :meth:`place` try shapes on them."""

    def __init__(self, f: Fabric, g: Grouping) -> None:
        t = f.devices_t
        n = t.n
        self.f, self.g = f, g
        tops = np.flatnonzero(g.top_level)
        self.tops = tops
        r = device_rects(f, tops)
        x, y = t.x[tops].astype(np.float64), t.y[tops].astype(np.float64)
        w, h = np.zeros(n), np.zeros(n)
        cx, cy = np.zeros(n), np.zeros(n)        # rectangle centre minus position
        w[tops], h[tops] = r[2] - r[0], r[3] - r[1]
        cx[tops], cy[tops] = (r[0] + r[2]) / 2 - x, (r[1] + r[3]) / 2 - y
        self.w, self.h, self.cx, self.cy = w, h, cx, cy
        sw = switch_mask(f) & g.top_level
        sharp = sharp_mask(f) & g.top_level
        _, a, b = cable_tops(f)
        self.a, self.b = a, b
        owner = np.full(n, -1, np.int64)
        m = sharp[a] & sw[b]
        owner[a[m]] = b[m]
        m = sharp[b] & sw[a]
        owner[b[m]] = a[m]
        kinds = np.array(g.kinds + ("",), dtype=object)
        gk = kinds[g.group]                          # group -1 → ""
        podlike = g.top_level & np.isin(gk, ("pod", "rack"))
        self.leaf = sw & podlike & (g.tier == 1)
        self.upper = sw & podlike & (g.tier >= 2)
        self.host = g.top_level & ~sw & ~sharp & podlike & (g.block >= 0)
        self.top = g.top_level & (gk == "top")
        self.attached = sharp & (owner >= 0) & (self.leaf | self.upper | self.top)[np.maximum(owner, 0)]
        self.owner = owner
        self.loose = g.top_level & ~(self.leaf | self.upper | self.host | self.top | self.attached)
        self.room = 0.0                  # aggregation nodes sit inside their switches (place)
        # cells of the grid: pods and racks in group order, then one for the loose devices
        pod_groups = np.flatnonzero(np.isin(np.array(g.kinds, dtype=object), ("pod", "rack")))
        cell_of_group = np.full(g.n_groups + 1, -1, np.int64)
        cell_of_group[pod_groups] = np.arange(len(pod_groups))
        self.n_cells = len(pod_groups) + int(self.loose.any())
        cell = np.full(n, -1, np.int64)
        cell[podlike] = cell_of_group[g.group[podlike]]
        cell[self.loose] = len(pod_groups)
        self.cell = cell
        self._clusters()
        # wrapped rows: (cell, tier) for the pods' upper tiers; tier 0 of the loose cell
        ups = np.flatnonzero(self.upper | self.loose)
        self.n_tiers = int(g.tier[self.upper].max()) + 1 if self.upper.any() else 1
        tier_of = np.where(self.loose[ups], 0, g.tier[ups])
        self.rows = _row_sets(ups, cell[ups] * self.n_tiers + tier_of, self.n_cells * self.n_tiers, w, h)
        tids = np.flatnonzero(self.top)
        self.top_rows = _row_sets(tids, np.zeros(len(tids), np.int64), 1, w, h)

    def _clusters(self) -> None:
        """Leaves joined by the servers they share (one leaf in a fat tree, a unit's 8 rails)."""
        g, a, b = self.g, self.a, self.b
        leaves = np.flatnonzero(self.leaf)
        nl, nb = len(leaves), g.n_blocks
        li = np.full(len(self.leaf), -1, np.int64)
        li[leaves] = np.arange(nl)
        m1 = self.host[a] & self.leaf[b]
        m2 = self.host[b] & self.leaf[a]
        blk = np.concatenate([g.block[a[m1]], g.block[b[m2]]])
        lf = np.concatenate([li[b[m1]], li[a[m2]]])
        adj = coo_matrix((np.ones(len(blk)), (lf, nl + blk)), shape=(nl + nb, nl + nb))
        _, comp = connected_components(adj, directed=False)
        nc0 = int(comp.max()) + 1 if len(comp) else 0
        first = np.full(nc0, np.iinfo(np.int64).max)
        np.minimum.at(first, comp[:nl], leaves)
        pod = np.full(nc0, -1, np.int64)
        pod[comp[:nl]] = self.cell[leaves]
        used = first < np.iinfo(np.int64).max
        labels = np.flatnonzero(used)
        order = labels[np.lexsort((first[labels], pod[labels]))]
        index = np.full(nc0, -1, np.int64)
        index[order] = np.arange(len(order))
        nc = len(order)
        self.cl_pod = pod[order]
        self.leaf_ids = leaves
        self.leaf_cl = index[comp[:nl]]
        hosts = np.flatnonzero(self.host)
        self.host_ids = hosts
        self.host_cl = index[comp[nl + g.block[hosts]]]
        # rank of each leaf / host inside its cluster (leaves in their stored group's order, a
        # scalable unit's by rail, else by id; hosts by block then id)
        s = np.lexsort((leaves, _stored_rank(self.f)[leaves], self.leaf_cl))
        self.leaf_ids, self.leaf_cl = leaves[s], self.leaf_cl[s]
        # an imported server's adapters side by side: hosts by block, then server, then id
        system = host_systems(self.f, self.host)
        # (the servers' biggest host block of a cluster first, its management hosts and lone
        # adapters after them; each block starts a row of its own, so the blocks' rectangles,
        # which the canvas draws at middle zoom, never overlap)
        bsize = np.concatenate([g.block_size, [0]])[g.block[hosts]]
        other = np.array([k != HOSTS for k in g.block_kinds] + [False], bool)
        late = other[g.block[hosts]] if len(g.block_kinds) == g.n_blocks else np.zeros(len(hosts), bool)
        s = np.lexsort((hosts, system[hosts], g.block[hosts], -bsize, late, self.host_cl))
        self.host_ids, self.host_cl = hosts[s], self.host_cl[s]
        self.host_rank = _ranks(self.host_cl, nc)
        hb = g.block[self.host_ids]
        new_run = np.ones(len(hb), bool)
        new_run[1:] = (self.host_cl[1:] != self.host_cl[:-1]) | (hb[1:] != hb[:-1])
        self.run_of = np.cumsum(new_run) - 1                 # per host: its block's run in its cluster
        run_start = np.flatnonzero(new_run)
        self.rank_in_run = np.arange(len(hb)) - run_start[self.run_of] if len(hb) else np.zeros(0, np.int64)
        self.run_size = np.diff(np.concatenate([run_start, [len(hb)]])).astype(np.int64)
        self.run_cl = self.host_cl[run_start]
        size = np.bincount(system[self.host_ids], minlength=len(system))[system[self.host_ids]]
        lo = np.full(nc, np.iinfo(np.int64).max)
        hi = np.zeros(nc, np.int64)
        np.minimum.at(lo, self.host_cl, size)
        np.maximum.at(hi, self.host_cl, size)
        self.unit = np.where(lo == hi, hi, 1).astype(np.int64)     # servers' adapters, when all alike
        w, h = self.w, self.h
        self.leaf_span = np.bincount(self.leaf_cl, weights=w[self.leaf_ids] + SWITCH_GAP, minlength=nc)
        self.n_hosts = np.bincount(self.host_cl, minlength=nc)
        self.cell_w = np.zeros(nc)
        self.cell_h = np.zeros(nc)
        np.maximum.at(self.cell_w, self.host_cl, w[self.host_ids] + HOST_GAP_X)
        self.run_w = np.zeros(len(self.run_size))             # slot width per block run
        np.maximum.at(self.run_w, self.run_of, w[self.host_ids] + HOST_GAP_X)
        self.run_h = np.zeros(len(self.run_size))
        # rows of frames as low as a switch (an imported server's adapters) keep the old gap (the
        # real SuperPOD's blocks of 5 such rows would be a third taller)
        tall = np.zeros(nc)
        np.maximum.at(tall, self.host_cl, h[self.host_ids])
        self.gap_y = np.where(tall <= LOW_FRAME, ADAPTER_GAP_Y, HOST_GAP_Y)       # per cluster
        np.maximum.at(self.run_h, self.run_of, h[self.host_ids] + ADAPTER_GAP_Y)     # shapes (run_cols)
        np.maximum.at(self.cell_h, self.host_cl, h[self.host_ids] + self.gap_y[self.host_cl])
        self.cl_rank = _ranks(self.cl_pod, self.n_cells)
        in_rack = np.zeros(len(self.host), bool)
        for d in rack_domains(self.f):
            in_rack[d.servers[d.servers < len(in_rack)]] = True
        racked = np.bincount(self.host_cl, weights=in_rack[self.host_ids], minlength=nc) > 0
        self.drop = np.where(racked, RACK_DROP, LEAF_DROP)      # per cluster
        self.cl_per_cell = np.bincount(self.cl_pod, minlength=self.n_cells)

    # ------------------------------------------------------------------ sizes of one shape
    def host_grid(self, shape: float) -> tuple[np.ndarray, np.ndarray]:
        """Columns (in servers) and rows of each cluster's servers, about ``shape`` wide : high,
        at least as wide as the cluster's leaves (columns in servers: an imported server's
        adapters count as one)."""
        k = np.maximum(self.unit, 1)
        # shaped by the cluster's biggest host block (the first); smaller ones stand beside it
        first = np.zeros(len(k), np.int64)
        if len(self.run_size):
            head = np.ones(len(self.run_size), bool)
            head[1:] = self.run_cl[1:] != self.run_cl[:-1]
            first[self.run_cl[head]] = self.run_size[head]
        n = -(-first // k)
        # shaped as if rows were ADAPTER_GAP_Y apart: names make a block taller, never one of fewer,
        # longer rows (radix 48's 24 servers a leaf went 8 × 3 for 6 × 4, the design a third wider)
        cw, ch = np.maximum(self.cell_w, 1.0) * k, np.maximum(self.cell_h - self.gap_y + ADAPTER_GAP_Y, 1.0)
        cols = np.rint(np.sqrt(n * ch * shape / cw))
        cols = np.maximum(cols, np.floor((self.leaf_span - SWITCH_GAP + HOST_GAP_X) / cw))
        cols = np.clip(cols, 1, np.maximum(n, 1)).astype(np.int64)
        rows = np.maximum(-(-n // cols), 1)
        cols = np.maximum(-(-n // rows), 1)               # full rows: 4 servers as 2 × 2, not 3 + 1
        rows = np.maximum(-(-n // cols), 1)
        return cols, rows

    def run_cols(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The host blocks of a cluster side by side, each ``rows`` high (a server's width of space
        between two): the hosts' width per cluster, and per block run its columns and its left
        offset. Cables from the leaves come down into each block from above, never across another."""
        k = np.maximum(self.unit, 1)[self.run_cl]
        units = -(-self.run_size // k)                    # servers (an imported server's adapters: one)
        # a block smaller than the cluster's biggest is about square (its rows at most the cluster's)
        square = np.maximum(np.rint(np.sqrt(units * self.run_w * k / np.maximum(self.run_h, 1.0))), 1)
        first_run = np.ones(len(units), bool)
        first_run[1:] = self.run_cl[1:] != self.run_cl[:-1]
        rr = np.where(first_run, rows[self.run_cl],
                      np.minimum(rows[self.run_cl], np.maximum(-(-units // square), 1)))
        rc = np.maximum(-(-units // rr), 1)
        step = rc * k * self.run_w + self.cell_w[self.run_cl]
        first = np.cumsum(step) - step
        base = np.zeros(len(rows))
        if len(first):
            lowest = np.full(len(rows), np.inf)
            np.minimum.at(lowest, self.run_cl, first)
            base = np.where(np.isfinite(lowest), lowest, 0.0)
        total = np.bincount(self.run_cl, weights=step, minlength=len(rows)) - self.cell_w
        return np.maximum(total - HOST_GAP_X, 0.0), rc.astype(np.int64), first - base[self.run_cl]

    def size(self, shape: float, pod_rows: int, named: bool = True) -> dict[str, np.ndarray]:
        """Every cluster's and cell's size and offset for a host shape and a pod row count (not
        ``named``: rows of servers :data:`ADAPTER_GAP_Y` apart, as :meth:`choose` compares shapes)."""
        cols, rows = self.host_grid(shape)                 # servers (adapters: servers) per row
        hw = np.where(self.n_hosts > 0, self.run_cols(rows)[0], 0.0)
        content = np.maximum(self.leaf_span - SWITCH_GAP, hw)
        gap = self.gap_y if named else np.full(len(self.gap_y), ADAPTER_GAP_Y)
        hosts_h = rows * (self.cell_h - self.gap_y + gap) - gap
        depth = SWITCH_H / 2 + np.where(self.n_hosts > 0, self.drop + hosts_h, 0.0)
        up = SWITCH_H / 2 + self.room
        # clusters of a cell in rows of ``per`` clusters
        per = np.maximum(-(-self.cl_per_cell // pod_rows), 1)
        crow = self.cl_rank // per[self.cl_pod]
        n_crows = -(-self.cl_per_cell // per)
        base = np.concatenate([[0], np.cumsum(n_crows)[:-1]])
        rk = base[self.cl_pod] + crow                       # global cluster-row key
        nrk = int(n_crows.sum())
        row_w = np.bincount(rk, weights=content + CLUSTER_GAP_X, minlength=nrk) - CLUSTER_GAP_X
        x_in = np.cumsum(content + CLUSTER_GAP_X) - (content + CLUSTER_GAP_X)
        row_first = np.full(nrk, np.inf)
        np.minimum.at(row_first, rk, x_in)
        x_in = x_in - row_first[rk]
        row_d = np.zeros(nrk)
        np.maximum.at(row_d, rk, depth)
        row_cell = np.repeat(np.arange(self.n_cells), n_crows)
        row_pitch = up + row_d + CLUSTER_GAP_Y
        y_row = np.cumsum(row_pitch) - row_pitch
        y_row = y_row - (np.concatenate([[0.0], np.cumsum(row_pitch)])[base])[row_cell]
        clw = np.zeros(self.n_cells)
        np.maximum.at(clw, row_cell, row_w)
        clh = np.bincount(row_cell, weights=row_pitch, minlength=self.n_cells)
        clh = np.where(self.cl_per_cell > 0, clh - CLUSTER_GAP_Y, 0.0)
        # upper tiers (and the loose cell) wrap to the cell's width
        rs, nt = self.rows, self.n_tiers
        kc = np.repeat(np.arange(self.n_cells), nt)
        base_w = np.maximum(clw[kc], rs.pitch - SWITCH_GAP)
        cnt = rs.count
        square = np.ceil(np.sqrt(cnt * (rs.height + ROW_GAP) * ASPECT / np.maximum(rs.pitch, 1)))
        per_k = np.where(clw[kc] > 0, np.floor((base_w + SWITCH_GAP) / np.maximum(rs.pitch, 1)), square)
        per_k = np.clip(per_k, 1, np.maximum(cnt, 1))
        n_r = np.where(cnt > 0, -(-cnt // per_k), 0)
        per_k = np.where(cnt > 0, -(-cnt // np.maximum(n_r, 1)), 1)     # balance the rows
        kh = np.where(cnt > 0, n_r * (rs.height + ROW_GAP) - ROW_GAP + self.room, 0.0)
        kw = np.where(cnt > 0, per_k * rs.pitch - SWITCH_GAP, 0.0)
        cw = np.maximum(clw, kw.reshape(self.n_cells, nt).max(axis=1, initial=0.0))
        khr = kh.reshape(self.n_cells, nt)
        gaps = (khr > 0).sum(axis=1) - (self.cl_per_cell == 0)
        ch = clh + khr.sum(axis=1) + np.maximum(gaps, 0) * TIER_RISE
        return dict(cols=cols, rows=rows, hw=hw, content=content, up=np.array(up), x_in=x_in, y_row=y_row, rk=rk,
                    row_w=row_w, row_cell=row_cell, per_k=per_k, kh=kh, cw=cw, ch=ch)

    @staticmethod
    def gaps(ch: np.ndarray) -> tuple[float, float]:
        """Room between grid columns and rows for pods ``ch`` high (see :data:`POD_GAP_REL_X`)."""
        typical = float(np.median(ch)) if len(ch) else 0.0
        return max(POD_GAP_X, POD_GAP_REL_X * typical), max(POD_GAP_Y, POD_GAP_REL_Y * typical)

    def grid(self, cw: np.ndarray, ch: np.ndarray, cols: int
             ) -> tuple[np.ndarray, np.ndarray, float, float]:
        """Column widths, row heights and the grid's width and height at ``cols`` columns."""
        n = len(cw)
        if n == 0:
            return np.zeros(0), np.zeros(0), 0.0, 0.0
        gap_x, gap_y = self.gaps(ch)
        rows = -(-n // cols)
        pw = np.zeros(rows * cols)
        ph = np.zeros(rows * cols)
        pw[:n], ph[:n] = cw, ch
        colw = pw.reshape(rows, cols).max(axis=0)
        rowh = ph.reshape(rows, cols).max(axis=1)
        return (colw, rowh, float(colw.sum() + (cols - 1) * gap_x),
                float(rowh.sum() + (rows - 1) * gap_y))

    def top_size(self, width: float) -> tuple[int, int, float, float]:
        """Top tier wrapped to ``width``: per row, rows, its width and height (0 when none)."""
        tr = self.top_rows
        n = int(tr.count[0]) if len(tr.count) else 0
        if n == 0:
            return 0, 0, 0.0, 0.0
        p, hgt = float(tr.pitch[0]), float(tr.height[0])
        per = math.floor((width + SWITCH_GAP) / p) if width > 0 else math.ceil(
            math.sqrt(n * (hgt + ROW_GAP) * ASPECT / p))
        per = min(max(per, 1), n)
        rows = -(-n // per)
        per = -(-n // rows)
        return per, rows, per * p - SWITCH_GAP, rows * (hgt + ROW_GAP) - ROW_GAP + self.room

    @staticmethod
    def rise_floor(ch: np.ndarray) -> float:
        """The least room under the top tier for pods ``ch`` high (see :data:`TOP_RISE_REL`)."""
        return max(TOP_RISE, TOP_RISE_REL * float(np.median(ch))) if len(ch) else TOP_RISE

    def top_rise(self, width: float, grid_h: float, top_h: float, ch: np.ndarray) -> float:
        """Room between the grid and the top tier: :data:`TOP_RISE` (or :data:`TOP_RISE_REL` of a
        typical pod's height, pods ``ch`` high), more when the design would be wider than a screen
        (longer cables to the top tier, at gentler angles)."""
        if not top_h or not self.n_cells:
            return 0.0
        low = self.rise_floor(ch)
        want = width / ASPECT - grid_h - top_h
        return float(min(max(low, want), max(low, TOP_RISE_MAX * width)))

    def choose(self) -> tuple[float, int, int]:
        """The host shape, pod row count and grid column count closest to :data:`ASPECT`."""
        best: tuple[float, float, int, int] | None = None
        most = int(self.cl_per_cell.max()) if self.n_cells else 1
        for i, shape in enumerate(HOST_SHAPES):
            for pod_rows in range(1, min(MAX_POD_ROWS, max(most, 1)) + 1):
                # without the names' room under rows of servers: it makes the drawing taller, never
                # another grid (radix 48's went 8 pods a row for 6, with more empty room)
                s = self.size(shape, pod_rows, named=False)
                flat = self.flat_cost(s["cw"], s["ch"])
                for cols in _col_choices(self.n_cells):
                    _, _, gw, gh = self.grid(s["cw"], s["ch"], cols)
                    _, _, tw, th = self.top_size(gw)
                    width = max(gw, tw)
                    rise = self.top_rise(width, gh, th, s["ch"])
                    height = gh + th + rise
                    if width <= 0 or height <= 0:
                        continue
                    empty = (-self.n_cells) % cols / cols      # a ragged last grid row
                    air = (rise - TOP_RISE) / height if rise else 0.0     # room added to look less wide
                    score = (abs(math.log(width / height / ASPECT)) + AIR_COST * air + 0.12 * (pod_rows - 1)
                             + 0.02 * i + 0.5 * empty + flat)
                    if best is None or score < best[0] - 1e-12:
                        best = (score, shape, pod_rows, cols)
        if best is None:
            return HOST_SHAPES[0], 1, 1
        return best[1], best[2], best[3]

    def flat_cost(self, cw: np.ndarray, ch: np.ndarray) -> float:
        """:data:`FLAT_COST` per e-fold a typical pod box (the median) is flatter or taller than
        :data:`FLAT_POD` (0 without pods)."""
        pods = (cw > 0) & (ch > 0)
        if not pods.any():
            return 0.0
        aspect = float(np.median(cw[pods] / ch[pods]))
        return FLAT_COST * max(0.0, abs(math.log(aspect)) - math.log(FLAT_POD))

    # ------------------------------------------------------------------ positions
    def place(self, shape: float, pod_rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
        """x and y (per device id) of every top-level device for the chosen shape."""
        n = len(self.w)
        X, Y = np.zeros(n), np.zeros(n)
        s = self.size(shape, pod_rows)
        up = float(s["up"])
        colw, rowh, gw, gh = self.grid(s["cw"], s["ch"], cols)
        ci = np.arange(self.n_cells)
        gap_x, gap_y = self.gaps(s["ch"])
        col_x = np.concatenate([[0.0], np.cumsum(colw + gap_x)])[ci % cols]
        row_y = np.concatenate([[0.0], np.cumsum(rowh + gap_y)])[ci // cols]
        cell_left = col_x + (colw[ci % cols] - s["cw"]) / 2
        cell_top = row_y
        # clusters: their row inside the cell, centred; leaves spread, servers in a grid under them
        nt = self.n_tiers
        khr = s["kh"].reshape(self.n_cells, nt)
        above = khr.sum(axis=1) + (khr > 0).sum(axis=1) * TIER_RISE
        pod = self.cl_pod
        row_left = cell_left[s["row_cell"]] + (s["cw"][s["row_cell"]] - s["row_w"]) / 2
        left = row_left[s["rk"]] + s["x_in"]
        leaf_y = (cell_top + above)[pod] + s["y_row"][s["rk"]] + up     # leaf centres
        content = s["content"]
        lid, lcl = self.leaf_ids, self.leaf_cl
        wg = self.w[lid] + SWITCH_GAP
        cum = np.cumsum(wg)
        start = np.concatenate([[0.0], np.cumsum(self.leaf_span)])[lcl]
        scale = (content[lcl] + SWITCH_GAP) / np.maximum(self.leaf_span[lcl], 1.0)
        X[lid] = left[lcl] - SWITCH_GAP / 2 + (cum - start - wg / 2) * scale - self.cx[lid]
        Y[lid] = leaf_y[lcl] - self.cy[lid]
        hid, hcl, hr = self.host_ids, self.host_cl, self.rank_in_run
        _hw, rc, x0 = self.run_cols(s["rows"])
        c, k = rc[self.run_of], np.maximum(self.unit[hcl], 1)
        unit, within = hr // k, hr % k
        host_left = left[hcl] + (content[hcl] - s["hw"][hcl]) / 2 + x0[self.run_of]
        host_top = leaf_y[hcl] + SWITCH_H / 2 + self.drop[hcl]
        col = (unit % c) * k + within
        X[hid] = host_left + col * self.run_w[self.run_of] + self.w[hid] / 2 - self.cx[hid]
        Y[hid] = host_top + (unit // c) * self.cell_h[hcl] + self.h[hid] / 2 - self.cy[hid]
        # upper tiers of each cell, lowest first (barycentre over what is already placed)
        rs = self.rows
        placed = np.zeros(n, bool)
        placed[lid] = placed[hid] = True
        k = np.arange(self.n_cells * nt)
        kc = k // nt
        # tiers stack upwards from the clusters: the highest tier at the cell's top
        contrib = np.where(khr > 0, khr + TIER_RISE, 0.0)
        higher = (np.cumsum(contrib[:, ::-1], axis=1)[:, ::-1] - contrib).ravel()
        key_top = cell_top[kc] + higher
        for t in list(range(1, nt)) + [0]:
            sel = rs.key % nt == t
            if sel.any():
                self._rows_at(rs, sel, key_top, cell_left[kc], s["cw"][kc], s["per_k"], X, Y, placed)
        # the top tier, centred over the grid, its lowest row TOP_RISE (or more) above it
        tr = self.top_rows
        if len(tr.ids):
            per, nrows, tw, th = self.top_size(gw)
            width = max(gw, tw)
            top0 = -self.top_rise(width, gh, th, s["ch"]) - th
            self._rows_at(tr, np.ones(len(tr.ids), bool), np.array([top0]),
                          np.array([(gw - width) / 2]), np.array([width]), np.array([per]), X, Y, placed)
        at = np.flatnonzero(self.attached)
        o = self.owner[at]
        # inside its switch's frame, at its right end: part of the switch, under no cable (cables
        # leave a switch from its top and bottom edges)
        X[at] = X[o] + self.cx[o] + self.w[o] / 2 - SHARP_INSET - self.w[at] / 2 - self.cx[at]
        Y[at] = Y[o] + self.cy[o] - self.cy[at]
        # on a 1/GRID grid, exact in float32: laid out again from its own positions, the same bits
        return np.round(X * GRID) / GRID, np.round(Y * GRID) / GRID

    def _rows_at(self, rs: _Rows, sel: np.ndarray, key_top: np.ndarray, key_left: np.ndarray,
                 key_w: np.ndarray, per_k: np.ndarray, X: np.ndarray, Y: np.ndarray,
                 placed: np.ndarray) -> None:
        """Place rows ``sel`` of ``rs``: ordered by barycentre of placed neighbours, wrapped at
        ``per_k`` per row, spread over the key's width, the first row at the bottom."""
        ids, key = rs.ids[sel], rs.key[sel]
        bary = self._barycentre(ids, X, placed)
        s = np.lexsort((ids, bary, key))
        ids, key = ids[s], key[s]
        rank = _ranks(key, len(rs.count))
        per = per_k[key].astype(np.int64)
        cnt = rs.count[key]
        n_rows = -(-cnt // per)
        row = rank // per
        col = rank % per
        in_row = np.minimum(per, cnt - row * per)
        slot = key_w[key] / per
        pitch_y = rs.height[key] + ROW_GAP
        X[ids] = key_left[key] + (col + 0.5 + (per - in_row) / 2) * slot - self.cx[ids]
        top = key_top[key] + self.room
        Y[ids] = top + (n_rows - 1 - row) * pitch_y + rs.height[key] / 2 - self.cy[ids]
        placed[ids] = True

    def _barycentre(self, ids: np.ndarray, X: np.ndarray, placed: np.ndarray) -> np.ndarray:
        """Mean drawn x of the placed devices each of ``ids`` is cabled to (inf: none)."""
        n = len(X)
        mine = np.zeros(n, bool)
        mine[ids] = True
        a, b = self.a, self.b
        xa = X[a] + self.cx[a]
        xb = X[b] + self.cx[b]
        m1 = mine[a] & placed[b]
        m2 = mine[b] & placed[a]
        s = np.bincount(a[m1], weights=xb[m1], minlength=n) + np.bincount(b[m2], weights=xa[m2], minlength=n)
        c = np.bincount(a[m1], minlength=n) + np.bincount(b[m2], minlength=n)
        return np.where(c[ids] > 0, s[ids] / np.maximum(c[ids], 1), np.inf)


def _stored_rank(f: Fabric) -> np.ndarray:
    """Per device id: its place in the switch list of the group stored in ``meta["groups"]``
    (0 for a switch of no stored group)."""
    rank = np.zeros(f.devices_t.n, np.int64)
    for entry in f.settings.groups:
        for r, name in enumerate(entry.switches):
            d = f.find(name)
            if d is not None:
                rank[d] = r
    return rank


def _ranks(key: np.ndarray, nkeys: int) -> np.ndarray:
    """Index of each element within its run of equal ``key`` (``key`` sorted)."""
    count = np.bincount(key, minlength=nkeys)
    start = np.concatenate([[0], np.cumsum(count)[:-1]])
    return np.arange(len(key)) - start[key]


def _col_choices(n: int) -> list[int]:
    """Grid column counts worth trying for ``n`` cells (all, or a spread when there are many)."""
    if n <= 1:
        return [1]
    if n <= 256:
        return list(range(1, n + 1))
    return sorted({max(1, min(n, int(round(v)))) for v in np.geomspace(1, n, 160)})


def auto_layout(f: Fabric, grouping: Grouping | None = None,
                progress: Callable[[float], None] | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(ids, xs, ys)`` for every live device (see the module doc), for ``Fabric.set_positions``
    (the GUI wraps it in one undo command); GPUs and NICs keep their offsets in their server.
    ``progress(fraction)`` is called between the steps (a job cancels by raising from it)."""
    report = progress if progress is not None else (lambda _x: None)
    g = grouping if grouping is not None else find_groups(f)
    report(0.3)
    plan = _Plan(f, g)
    if not len(plan.tops):
        return with_children(f, plan.tops, np.zeros(0), np.zeros(0))
    report(0.5)
    shape = plan.choose()
    report(0.7)
    X, Y = plan.place(*shape)
    tops = plan.tops
    return with_children(f, tops, X[tops], Y[tops])


def apply_auto_layout(f: Fabric) -> Fabric:
    """Lay ``f`` out in place (generators and importers without positions)."""
    ids, xs, ys = auto_layout(f)
    if len(ids):
        f.set_positions(ids, xs, ys)
    return f


__all__ = ["ASPECT", "apply_auto_layout", "auto_layout", "device_rects", "with_children"]
