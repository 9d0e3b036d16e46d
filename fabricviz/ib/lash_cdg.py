"""LASH's layers: one channel dependency graph per virtual lane, kept as OpenSM 3.3.23 keeps them.

LASH puts each pair of switches (both directions at once) on the first layer whose channel
dependency graph (CDG) stays acyclic with the pair's two paths added, opening a new layer
when none does, then moves pairs from the fullest layer to the emptiest (balancing, driven by
glibc's ``rand()``). A CDG vertex is a channel (switch a → switch b); a dependency is two
consecutive channels of a path.

The bookkeeping follows ``osm_ucast_lash.c`` exactly — including its quirks, because they
decide later answers: a failed trial leaves the use counts of dependencies it found already
present raised; deleting a dependency shifts the later ones down and leaves the last slot's
count behind, which the next new dependency in that slot inherits; so balancing can leave
dependencies in a layer that no path uses any more. A vertex freed while such a dependency
still points at it is a "zombie" (OpenSM then reads freed memory): it is modelled as freed
memory that nothing reuses and counted in :attr:`Layers.zombie_events`, since glibc's reuse of
freed blocks is beyond this model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

#: OpenSM's balance_limit: stop balancing when fullest − emptiest layer < this
BALANCE_LIMIT = 6
#: a freed vertex's "seen" field after free(): glibc writes its free-list key over it (non-zero)
_FREED_SEEN = 0x5A5A5A5A


class GlibcRandom:
    """glibc's ``random()``/``rand()`` (TYPE_3 additive feedback), seeded like ``srandom(seed)``.

    OpenSM never seeds it before LASH's balancing (``scatter_ports`` 0), so its sequence is the
    one of seed 1 from process start."""

    def __init__(self, seed: int = 1) -> None:
        seed = seed or 1
        r = [0] * 344
        r[0] = seed & 0xFFFFFFFF
        for i in range(1, 31):
            # Schrage's method on signed 32-bit words, as glibc computes 16807 * r mod (2^31 - 1)
            prev = r[i - 1] - (1 << 32) if r[i - 1] & 0x80000000 else r[i - 1]
            hi, lo = divmod(prev, 127773) if prev >= 0 else (-((-prev) // 127773), -((-prev) % 127773))
            word = 16807 * lo - 2836 * hi
            if word < 0:
                word += 2147483647
            r[i] = word & 0xFFFFFFFF
        for i in range(31, 34):
            r[i] = r[i - 31]
        for i in range(34, 344):
            r[i] = (r[i - 31] + r[i - 3]) & 0xFFFFFFFF
        self._r = r[-34:]            # ring of the last 34 words

    def rand(self) -> int:
        r = self._r
        v = (r[-31] + r[-3]) & 0xFFFFFFFF
        r.append(v)
        del r[0]
        return v >> 1


class Vertex:
    """One channel of one layer (``cdg_vertex_t``): its dependency slots and counters, plus
    ``ord`` (its place in the layer's topological order) and ``indeg`` (live slots naming it)."""

    __slots__ = ("frm", "to", "seen", "temp", "visit", "epoch", "num_temp", "num_using", "nd",
                 "dv", "dn", "freed", "ord", "indeg")

    def __init__(self, frm: int, to: int, ord_: int) -> None:
        self.frm, self.to = frm, to
        self.seen = 0
        self.temp = 1
        self.visit = 0
        self.epoch = 0
        self.num_temp = 0
        self.num_using = 0
        self.nd = 0                            # dependencies in use (num_deps)
        self.dv: list[Vertex] = []             # slot -> vertex depended on (slots past nd stay)
        self.dn: list[int] = []                # slot -> num_used
        self.freed = False
        self.ord = ord_
        self.indeg = 0


class Layers:
    """The CDGs of all layers over the switch paths ``path(s, d)`` (channel lists).

    Each layer's graph is acyclic between trials, so a trial has a cycle exactly when one of
    its new dependencies closes one; a topological order kept per layer (Marchetti-Spaccamela
    et al.: search only between the two ends' places, then move what was found behind) answers
    that without OpenSM's search of everything reachable. Once a layer holds a zombie, OpenSM's
    search reads it, so that layer falls back to the literal search (:meth:`cycle_from`)."""

    def __init__(self, num_switches: int, lanes: int, path: Callable[[int, int], Sequence[tuple[int, int]]],
                 literal: bool = False):
        self.S = num_switches
        self.path = path
        n = max(lanes, 1)
        self.matrix: list[dict[tuple[int, int], Vertex]] = [{} for _ in range(n)]
        self.order: list[list[Vertex | None]] = [[] for _ in range(n)]
        self.literal = [literal] * n           # a zombie is in the layer: OpenSM's own search
        self.epoch = 0
        self.zombie_events = 0
        self.zombies = 0
        self._cycle = False

    # -- one path in one layer ----------------------------------------------------------
    def add_temp(self, s: int, d: int, lane: int) -> Vertex:
        """generate_cdg_for_sp: the path's channels and dependencies, new ones marked temporary;
        returns the path's first channel (where OpenSM's cycle search starts)."""
        m = self.matrix[lane]
        order = self.order[lane]
        keep_order = not self.literal[lane]
        prev: Vertex | None = None
        first: Vertex | None = None
        for key in self.path(s, d):
            v = m.get(key)
            if v is None:
                v = m[key] = Vertex(key[0], key[1], len(order))
                order.append(v)
            v.num_using += 1
            if prev is None:
                first = prev = v
                continue
            dv = prev.dv
            nd = prev.nd
            try:                                  # slots below nd never repeat a vertex
                j = dv.index(v, 0, nd)
                prev.dn[j] += 1
            except ValueError:
                if nd < len(dv):
                    dv[nd] = v
                    prev.dn[nd] += 1              # the slot's old count is inherited
                else:
                    dv.append(v)
                    prev.dn.append(1)
                prev.nd = nd + 1
                v.indeg += 1
                if prev.temp == 0:
                    prev.num_temp += 1
                if keep_order and not self._cycle and prev.ord > v.ord:
                    self._cycle = self._reorder(order, prev, v)
            prev = v
        assert first is not None
        return first

    def _reorder(self, order: list[Vertex | None], x: Vertex, y: Vertex) -> bool:
        """New dependency x -> y with y placed before x: True if y reaches x (a cycle), else the
        vertices y reaches up to x's place move right behind x, keeping their relative order."""
        ub = x.ord
        found = {id(y): y}
        stack = [y]
        while stack:
            n = stack.pop()
            dv = n.dv
            for j in range(n.nd):
                w = dv[j]
                if w is x:
                    return True
                if w.ord < ub and id(w) not in found:
                    found[id(w)] = w
                    stack.append(w)
        lo = y.ord
        seg = order[lo:ub + 1]
        moved = sorted(found.values(), key=lambda v: v.ord)
        rest = [v for v in seg if v is not None and id(v) not in found]
        new: list[Vertex | None] = [*rest, *moved]
        new += [None] * (len(seg) - len(new))
        order[lo:ub + 1] = new
        for i, v in enumerate(new, lo):
            if v is not None:
                v.ord = i
        return False

    def make_permanent(self, s: int, d: int, lane: int) -> None:
        """set_temp_depend_to_permanent_for_sp."""
        m = self.matrix[lane]
        for key in self.path(s, d):
            v = m[key]
            if v.temp == 1:
                v.temp = 0
            else:
                v.num_temp = 0

    def remove_temp(self, s: int, d: int, lane: int) -> None:
        """remove_temp_depend_for_sp: undo a failed trial (use counts of reused deps stay up)."""
        m = self.matrix[lane]
        for key in self.path(s, d):
            v = m[key]
            if v.temp == 1:
                del m[key]
                self._free(v, lane)
            else:
                new_nd = v.nd - v.num_temp
                for i in range(new_nd, v.nd):
                    v.dv[i].indeg -= 1
                v.nd = new_nd
                v.num_temp = 0
                v.num_using -= 1
                dn = v.dn
                for i in range(v.nd, len(dn)):
                    dn[i] = 0

    def remove_path(self, s: int, d: int, lane: int) -> None:
        """remove_semipermanent_depend_for_sp: take a committed path out of a layer."""
        m = self.matrix[lane]
        keys = self.path(s, d)
        depend = 0                                   # C keeps it across the loop
        for idx, key in enumerate(keys):
            v = m[key]
            if v.num_using == 1:
                del m[key]
                self._free(v, lane)
                continue
            v.num_using -= 1
            if idx + 1 == len(keys):
                continue
            w = m.get(keys[idx + 1])
            try:                                     # not found: OpenSM reuses the last index
                depend = v.dv.index(w, 0, v.nd)      # type: ignore[arg-type]
            except ValueError:
                pass
            if v.dn[depend] == 1:
                v.dv[depend].indeg -= 1
                for i in range(depend, v.nd - 1):
                    v.dv[i] = v.dv[i + 1]
                    v.dn[i] = v.dn[i + 1]
                v.nd -= 1
            else:
                v.dn[depend] -= 1

    def _free(self, v: Vertex, lane: int) -> None:
        """free(): gone from the layer; still named by a dependency, it becomes a zombie."""
        v.freed = True
        if v.epoch != self.epoch:
            v.visit = 0
        v.seen = _FREED_SEEN
        order = self.order[lane]
        if v.ord < len(order) and order[v.ord] is v:
            order[v.ord] = None
        if v.indeg > 0:
            self.zombies += 1
            self.literal[lane] = True
        else:
            for i in range(v.nd):
                v.dv[i].indeg -= 1

    # -- cycle search ------------------------------------------------------------------------
    def cycle_from(self, start: Vertex) -> bool:
        """cycle_exists: depth-first from ``start``; a dependency back onto the current search
        path is a cycle. Live vertices' marks are cleared after each trial (OpenSM clears the
        whole layer; an epoch counter does the same here); freed ones keep theirs."""
        ep = self.epoch

        def visit_of(x: Vertex) -> int:
            return x.visit if (x.freed or x.epoch == ep) else 0

        def seen_of(x: Vertex) -> int:
            return x.seen if (x.freed or x.epoch == ep) else 0

        if start.epoch != ep:                        # untouched since the last clearing
            start.epoch, start.seen = ep, 0
        start.visit = 1
        stack: list[list] = [[start, 0]]
        while stack:
            top = stack[-1]
            cur: Vertex = top[0]
            i = top[1]
            if i < cur.nd:
                top[1] = i + 1
                w = cur.dv[i]
                if visit_of(w) > 0:
                    if len(stack) + 1 > visit_of(w) and seen_of(w) == 0:
                        for fr in stack:
                            fr[0].seen = 1
                        return True
                    continue
                if w.freed:
                    self.zombie_events += 1
                else:
                    w.epoch, w.seen = ep, 0
                w.visit = len(stack) + 1
                stack.append([w, 0])
            else:
                cur.seen = 1
                stack.pop()
        return False

    def begin_trial(self) -> None:
        self._cycle = False

    def trial_has_cycle(self, lane: int, a: Vertex, b: Vertex) -> bool:
        """Both cycle searches of a trial (from each path's first channel), then the layer's
        marks cleared (a new epoch)."""
        if not self.literal[lane]:
            return self._cycle
        self.epoch += 1
        c1 = self.cycle_from(a)
        c2 = self.cycle_from(b)
        self.epoch += 1
        return c1 or c2


class NotEnoughLanes(Exception):
    """ERR 4D02: the pairs need more layers than the ports' VLs allow."""

    def __init__(self, needed: int) -> None:
        super().__init__(needed)
        self.needed = needed


def assign_layers(layers: Layers, lanes_avail: int, progress: Callable[[int, int], None] | None = None
                  ) -> tuple[list[list[int]], int, list[int], list[dict[tuple[int, int], int]]]:
    """lash_core's first pass: every switch pair (i < d, both directions) on the first layer
    that takes it. Returns (layer[i][d], layers needed, paths per layer, virtual_location)."""
    S = layers.S
    lane = [[-1] * S for _ in range(S)]
    counts = [0] * max(lanes_avail, 1)
    vloc: list[dict[tuple[int, int], int]] = [{} for _ in range(max(lanes_avail, 1))]
    needed = 1
    total = S * (S - 1) // 2
    done = 0
    for i in range(S):
        for d in range(i + 1, S):
            v = 0
            cycle = False
            while v < needed:
                layers.begin_trial()
                a = layers.add_temp(i, d, v)
                b = layers.add_temp(d, i, v)
                cycle = layers.trial_has_cycle(v, a, b)
                if cycle:
                    layers.remove_temp(i, d, v)
                    layers.remove_temp(d, i, v)
                    v += 1
                else:
                    layers.make_permanent(i, d, v)
                    layers.make_permanent(d, i, v)
                    counts[v] += 2
                    break
            lane[i][d] = lane[d][i] = v
            if cycle:
                needed += 1
                if needed > lanes_avail:
                    raise NotEnoughLanes(needed)
                layers.begin_trial()
                layers.add_temp(i, d, v)
                layers.add_temp(d, i, v)
                layers.make_permanent(i, d, v)
                layers.make_permanent(d, i, v)
                counts[v] += 2
            vloc[v][(i, d)] = vloc[v][(d, i)] = 1
            done += 1
            if progress is not None and done % 256 == 0:
                progress(done, total)
    return lane, needed, counts, vloc


def balance(layers: Layers, lane: list[list[int]], needed: int, counts: list[int],
            vloc: list[dict[tuple[int, int], int]], rng: GlibcRandom, max_rounds: int = 10_000_000) -> int:
    """balance_virtual_lanes: move random pairs from the fullest layer to the emptiest while the
    emptiest takes them acyclically; ``rand()`` draws the start of each search. Returns the
    number of ``rand()`` calls made (two per round)."""
    S = layers.S
    if needed == 1:
        return 0
    max_l, min_l = 0, needed - 1
    trials = counts[max_l]
    marked: list[list[tuple[int, int]]] = [[] for _ in vloc]      # pairs set to 2, per layer
    calls = 0
    for _ in range(max_rounds):
        src = rng.rand() % S
        dest = rng.rand() % S
        calls += 2
        vl = vloc[max_l]
        while vl.get((src, dest), 0) != 1:
            start = dest
            dest = 0 if dest == S - 1 else dest + 1
            while dest != start and vl.get((src, dest), 0) != 1:
                dest = 0 if dest == S - 1 else dest + 1
            if vl.get((src, dest), 0) != 1:
                src = 0 if src == S - 1 else src + 1
        layers.begin_trial()
        a = layers.add_temp(src, dest, min_l)
        b = layers.add_temp(dest, src, min_l)
        if layers.trial_has_cycle(min_l, a, b):
            layers.remove_temp(src, dest, min_l)
            layers.remove_temp(dest, src, min_l)
            vl[(src, dest)] = vl[(dest, src)] = 2
            marked[max_l] += [(src, dest), (dest, src)]
            trials -= 2
        else:
            layers.make_permanent(src, dest, min_l)
            layers.make_permanent(dest, src, min_l)
            counts[max_l] -= 2
            counts[min_l] += 2
            layers.remove_path(src, dest, max_l)
            layers.remove_path(dest, src, max_l)
            vl[(src, dest)] = vl[(dest, src)] = 0
            vloc[min_l][(src, dest)] = vloc[min_l][(dest, src)] = 1
            lane[src][dest] = lane[dest][src] = min_l
        stop = trials == 0 or counts[max_l] - counts[min_l] < BALANCE_LIMIT
        if stop:
            return calls
        old_min, old_max = min_l, max_l
        lo, hi = 9999, 0
        for k in range(needed):
            if counts[k] < lo:
                lo, min_l = counts[k], k
            if counts[k] > hi:
                hi, max_l = counts[k], k
        if old_min != min_l:
            trials = counts[max_l]
            _unmark(vloc[max_l], marked[max_l])
        if old_max != max_l:
            trials = counts[max_l]
            _unmark(vloc[old_max], marked[old_max])
    raise RuntimeError("LASH balancing did not finish")


def _unmark(vl: dict[tuple[int, int], int], marked: list[tuple[int, int]]) -> None:
    """Pairs that failed to move (2) may be tried again (1)."""
    for k in marked:
        if vl.get(k) == 2:
            vl[k] = 1
    marked.clear()
