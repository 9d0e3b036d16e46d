"""Prefetching for LASH's layer kernels: the pairs to come, their rows asked for ahead of use.

The layer work is a chain of dependent loads per hop (the pair's path offset, its channels, each
channel's vertex in the layer, the vertex's row and dependency slots): on the radix-56 fat tree
these rows are scattered over ~1 GB, and the kernel waited on memory for most of its time
(perf: ~16 misses of ~110 ns per balancing move, one after the other). The pairs to come are
known before their turn: the first fit takes (i, d + 1) after (i, d), and balancing draws its
pairs with rand() whatever the answers were, so the kernels draw them a few moves early. These
functions ask the memory system for a pair's data in stages, each stage reading what the one
before it fetched (``llvm.prefetch``: a hint, never a fault, no answer depends on it).
"""

from __future__ import annotations

from llvmlite import binding as _llvm
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .lash_order import NO_REFCOUNTS

#: the intrinsic's name, mangled for typed pointers (i8*) before LLVM 17 and opaque ones (ptr)
#: since (LLVM's reader remangles either, but this is the name each expects)
_PREFETCH = "llvm.prefetch.p0" if _llvm.llvm_version_info[0] >= 17 else "llvm.prefetch.p0i8"
#: moves between a pair's first stage (its lane entry and path offsets) and its turn
AHEAD = 8


@intrinsic
def prefetch(typingctx, arr, i, j):
    """Ask for the cache line of ``arr[i, j]`` (``j`` ignored for a 1-D array): read, keep in
    every cache level. Nothing is loaded into a register and no bound is checked."""
    if not isinstance(arr, types.Array) or arr.ndim not in (1, 2):
        return None
    if not isinstance(i, types.Integer) or not isinstance(j, types.Integer):
        return None
    sig = types.void(arr, i, j)

    def codegen(context, builder, signature, args):
        aryty, ity, jty = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        idx = [context.cast(builder, args[1], ity, types.intp)]
        if aryty.ndim == 2:
            idx.append(context.cast(builder, args[2], jty, types.intp))
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, idx, wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                            _PREFETCH)
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def warm_offsets(ptr, lane, S, s, d):
    """Stage 1: the pair's lane entry and both paths' offsets."""
    prefetch(lane, s, d)
    prefetch(lane, d, s)
    prefetch(ptr, s * S + d, 0)
    prefetch(ptr, d * S + s, 0)


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def warm_channels(ptr, pc, S, s, d):
    """Stage 2: both paths' channels (offsets fetched by stage 1)."""
    prefetch(pc, ptr[s * S + d], 0)
    prefetch(pc, ptr[d * S + s], 0)


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def warm_vids(ptr, pc, vid, S, s, d, l1, l2):
    """Stage 3: each channel's vertex entry in layers l1 and l2 (l2 < 0: l1 only)."""
    for base in (s * S + d, d * S + s):
        for k in range(ptr[base], ptr[base + 1]):
            c = pc[k]
            prefetch(vid, l1, c)
            if l2 >= 0:
                prefetch(vid, l2, c)


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def warm_rows(ptr, pc, vid, V, dv, S, s, d, l1, l2):
    """Stage 4: the vertices' rows and first dependency slots in layers l1 and l2."""
    for base in (s * S + d, d * S + s):
        for k in range(ptr[base], ptr[base + 1]):
            c = pc[k]
            v = vid[l1, c]
            if v >= 0:
                prefetch(V, v, 0)
                prefetch(dv, v, 0)
            if l2 >= 0:
                v = vid[l2, c]
                if v >= 0:
                    prefetch(V, v, 0)
                    prefetch(dv, v, 0)


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def pair_on_layer(lane, S, src, dest, layer):
    """Balancing's pair for a draw (src, dest): OpenSM's walk on from it, dest first, to the
    first pair on ``layer``."""
    while lane[src, dest] != layer:
        start = dest
        dest = 0 if dest == S - 1 else dest + 1
        while dest != start and lane[src, dest] != layer:
            dest = 0 if dest == S - 1 else dest + 1
        if lane[src, dest] != layer:
            src = 0 if src == S - 1 else src + 1
    return src, dest


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def warm_moves(ring, head, ptr, pc, lane, vid, V, dv, S, min_l, max_l):
    """Balancing's stages for the moves to come: ``ring[(head + k) % AHEAD]`` holds the draw k + 1
    moves ahead (columns 0-1) and, from 6 ahead, the pair it should land on (2-3, walked with
    the layers as they are now; a move in between may change it, then the hint is wasted)."""
    n = ring.shape[0]
    j = head - 1 if head > 0 else n - 1                  # AHEAD moves ahead: the draw's lane entry
    warm_offsets(ptr, lane, S, ring[j, 0], ring[j, 1])
    j = (head + 5) % n
    s, d = pair_on_layer(lane, S, ring[j, 0], ring[j, 1], max_l)
    ring[j, 2] = s
    ring[j, 3] = d
    if s != ring[j, 0] or d != ring[j, 1]:
        warm_offsets(ptr, lane, S, s, d)
    j = (head + 3) % n
    if ring[j, 2] >= 0:                                  # -1: not walked yet (the first moves)
        warm_channels(ptr, pc, S, ring[j, 2], ring[j, 3])
    j = (head + 1) % n
    if ring[j, 2] >= 0:
        warm_vids(ptr, pc, vid, S, ring[j, 2], ring[j, 3], min_l, max_l)
    if ring[head, 2] >= 0:
        warm_rows(ptr, pc, vid, V, dv, S, ring[head, 2], ring[head, 3], min_l, max_l)
