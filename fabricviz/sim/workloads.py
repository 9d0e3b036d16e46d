"""Traffic patterns over GPUs or NICs: the flows the engines route and share out.

A :class:`Flows` is a struct of numpy arrays, one row per flow: source and
destination device ids (a GPU reaches the fabric through its bound NIC, a NIC
directly), size in bytes (``inf`` = long-lived), a demand cap in Gb/s
(``inf`` = as fast as the path allows), a start time, a ring ``step``
(-1 = not part of a stepped collective; step s+1 starts when step s is done) and the
InfiniBand service level ``sl`` (0..15; what the application asks the SA for, see
:mod:`.vlarb`). ``sl_given`` says whether the SLs were given (per flow or for the whole
workload) or are the default 0, which a deadlock-free engine's path SL may replace.

Patterns (all deterministic for a seed):

* ``ring_allreduce`` — NCCL ring: 2(N−1) steps, in each step rank i sends
  size/N bytes to rank i+1 (reduce-scatter then all-gather);
* ``all_to_all`` — every rank sends size/N to every other rank;
* ``permutation`` — a random derangement (no rank sends to itself);
* ``shift`` — rank i sends to rank (i+k) mod N;
* ``incast`` — ranks 1..N send to rank 0.

Every spec can give sizes (:data:`SPEC_HELP`): finite flows run to completion, and the run
reports their flow completion times (:mod:`.fct`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..ib.sharp import sharp_mask
from ..model import Fabric, FabricError
from ..model.fabric import KIND_CODE
from ..model.numbers import ascii_int
from .reach import Reach, host_reach
from .units import ParamError


@dataclass(frozen=True, init=False)
class Flows:
    """Flow list; every array has one entry per flow.

    ``bytes``, ``rate_gbps``, ``start_s``, ``step`` and ``sl`` may be omitted (``None``): they
    default to ``inf``, ``inf``, ``0.0``, ``-1`` and SL 0 for every flow (``sl`` may be one
    number for all).
    """

    src: np.ndarray
    dst: np.ndarray
    bytes: np.ndarray
    rate_gbps: np.ndarray
    start_s: np.ndarray
    step: np.ndarray
    sl: np.ndarray
    sl_given: bool

    def __init__(self, src: ArrayLike, dst: ArrayLike, bytes: ArrayLike | None = None,
                 rate_gbps: ArrayLike | None = None, start_s: ArrayLike | None = None,
                 step: ArrayLike | None = None, sl: ArrayLike | None = None) -> None:
        for name, v in (("src", src), ("dst", dst), ("bytes", bytes), ("rate_gbps", rate_gbps),
                        ("start_s", start_s), ("step", step)):
            object.__setattr__(self, name, v)
        object.__setattr__(self, "sl_given", sl is not None)
        n = len(self.src)
        if sl is None:
            arr = np.zeros(n, np.uint8)
        else:
            raw = np.asarray(sl)
            raw = np.full(n, raw) if raw.ndim == 0 else raw
            if raw.shape != (n,):
                raise FabricError(f"flows: sl has {raw.shape} entries, expected ({n},)")
            whole = raw.dtype.kind in "iu" or (raw.dtype.kind == "f" and bool(np.all(raw == np.round(raw))))
            if n and (not whole or raw.min() < 0 or raw.max() > 15):
                raise FabricError(f"flows: SL must be an integer 0..15, got {raw[(raw < 0) | (raw > 15)][:1]}")
            arr = raw.astype(np.uint8)
        object.__setattr__(self, "sl", arr)
        self.__post_init__()

    def __post_init__(self) -> None:
        n = len(self.src)
        src = np.asarray(self.src, np.int64)
        object.__setattr__(self, "src", src)
        object.__setattr__(self, "dst", np.asarray(self.dst, np.int64))
        for name, default, dtype in (("bytes", np.inf, float), ("rate_gbps", np.inf, float),
                                     ("start_s", 0.0, float), ("step", -1, np.int64)):
            v = getattr(self, name)
            arr = np.full(n, default, dtype) if v is None else np.asarray(v, dtype)
            if arr.shape != (n,):
                raise FabricError(f"flows: {name} has {arr.shape} entries, expected ({n},)")
            object.__setattr__(self, name, arr)
        if self.dst.shape != (n,):
            raise FabricError("flows: src and dst differ in length")

    def __len__(self) -> int:
        return len(self.src)

    def select(self, mask: np.ndarray) -> Flows:
        out = Flows(self.src[mask], self.dst[mask], self.bytes[mask], self.rate_gbps[mask],
                    self.start_s[mask], self.step[mask], self.sl[mask])
        object.__setattr__(out, "sl_given", self.sl_given)
        return out

    def with_sl(self, sl: ArrayLike, given: bool = True) -> Flows:
        """The same flows with service level(s) ``sl`` (one for all, or one per flow);
        ``given=False`` keeps them replaceable (the path SL a routing engine hands out)."""
        out = Flows(self.src, self.dst, self.bytes, self.rate_gbps, self.start_s, self.step, sl)
        object.__setattr__(out, "sl_given", given)
        return out

    def concurrent(self) -> Flows:
        """The flows that run at the same time at t=0 (first ring step; steady state)."""
        first = (self.step <= 0) & (self.start_s <= 0)
        return self.select(first)


def endpoints(fabric: Fabric, over: str = "auto") -> np.ndarray:
    """Ranks of a collective: GPUs bound to a NIC, or cabled NICs (not SHARP aggregation
    nodes), in id order.

    ``over`` is ``gpu``, ``nic`` or ``auto`` (GPUs when there are bound ones).
    """
    t = fabric.devices_t
    gpus = np.flatnonzero(t.alive & (t.kind == KIND_CODE["gpu"]) & (t.bound >= 0))
    if over == "gpu" or (over == "auto" and len(gpus)):
        if not len(gpus):
            raise ParamError("over", over, "this fabric has no GPU bound to a NIC; run over nic")
        return gpus
    if over not in ("nic", "auto"):
        raise ParamError("over", over, "is not one of gpu, nic, auto")
    # SHARP aggregation nodes are CAs inside switches, not hosts: no traffic to or from them
    nics = np.flatnonzero(t.alive & (t.kind == KIND_CODE["nic"]) & ~sharp_mask(fabric))
    pt = fabric.ports_t
    cabled = np.array([bool(np.any(pt.cable[t.first_port[d]: t.first_port[d] + t.nports[d]] >= 0))
                       for d in nics], bool)
    nics = nics[cabled] if len(nics) else nics
    if len(nics) < 2:
        raise FabricError("this fabric has fewer than two cabled NICs to send traffic between")
    return nics


def _need(ranks: np.ndarray, n: int, what: str) -> None:
    if len(ranks) < n:
        raise FabricError(f"{what} needs at least {n} ranks, there are {len(ranks)}")


def ring_allreduce(ranks: np.ndarray, size_bytes: float = 1e9) -> Flows:
    """NCCL-style ring all-reduce of ``size_bytes`` per rank: 2(N−1) steps of size/N."""
    _need(ranks, 2, "ring all-reduce")
    n = len(ranks)
    steps = 2 * (n - 1)
    src = np.tile(ranks, steps)
    dst = np.tile(np.roll(ranks, -1), steps)
    step = np.repeat(np.arange(steps), n)
    return Flows(src, dst, np.full(n * steps, size_bytes / n), step=step)


def all_to_all(ranks: np.ndarray, size_bytes: float = 1e9) -> Flows:
    """Every rank sends ``size_bytes / N`` to every other rank at once."""
    _need(ranks, 2, "all-to-all")
    n = len(ranks)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    off = i != j
    return Flows(ranks[i[off]], ranks[j[off]], np.full(int(off.sum()), size_bytes / n))


def permutation(ranks: np.ndarray, seed: int = 0, size_bytes: float = np.inf) -> Flows:
    """A random derangement: every rank sends to exactly one other rank and receives from one."""
    _need(ranks, 2, "a permutation")
    rng = np.random.default_rng(seed)
    n = len(ranks)
    while True:                      # rejection: about e tries on average
        perm = rng.permutation(n)
        if not np.any(perm == np.arange(n)):
            break
    return Flows(ranks, ranks[perm], np.full(n, size_bytes))


def shift(ranks: np.ndarray, k: int = 1, size_bytes: float = np.inf) -> Flows:
    """Rank i sends to rank (i + k) mod N."""
    _need(ranks, 2, "shift")
    n = len(ranks)
    if k % n == 0:
        raise FabricError(f"shift:{k}: with {n} ranks every rank would send to itself")
    return Flows(ranks, np.roll(ranks, -k), np.full(n, size_bytes))


def incast(ranks: np.ndarray, n: int | None = None, size_bytes: float = np.inf) -> Flows:
    """Ranks 1..n send to rank 0 (N-to-1)."""
    n = len(ranks) - 1 if n is None else int(n)
    if n < 1:
        raise FabricError(f"incast:{n}: need at least one sender")
    _need(ranks, n + 1, f"incast:{n}")
    return Flows(ranks[1: n + 1], np.full(n, ranks[0]), np.full(n, size_bytes))


WORKLOADS = ("ring", "alltoall", "permutation", "shift", "incast")

#: Size units (case-insensitive): decimal B, KB, MB, GB, TB and binary KiB, MiB, GiB, TiB.
SIZE_UNITS = {"b": 1.0, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
              "kib": 2.0 ** 10, "mib": 2.0 ** 20, "gib": 2.0 ** 30, "tib": 2.0 ** 40}
_SIZE = re.compile(r"^\s*((?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?)\s*([a-z]*)\s*$", re.I)   # ASCII digits
#: How a workload's size is written, for error messages.
SIZE_HELP = "use e.g. 4096B, 64MB, 1GiB: B/KB/MB/GB/TB decimal, KiB/MiB/GiB/TiB binary"


def has_unit(text: str) -> bool:
    """Whether a spec field is a size with a unit (``4MB``) rather than a bare number (``8``)."""
    m = _SIZE.match(text)
    return bool(m and m.group(2))


def parse_size(text: str) -> float:
    """``1GB``, ``64MiB``, ``4096`` (no unit: bytes) → bytes; finite and positive."""
    m = _SIZE.match(text)
    unit = m.group(2).lower() if m else ""
    if m is None or unit not in SIZE_UNITS and unit:
        raise FabricError(f"bad size {text!r} ({SIZE_HELP})")
    v = float(m.group(1)) * SIZE_UNITS.get(unit, 1.0)
    if not (v > 0 and math.isfinite(v)):
        raise FabricError(f"bad size {text!r}: must be positive and finite")
    return v


def _size(spec: str, text: str) -> float:
    try:
        return parse_size(text)
    except ParamError:
        raise
    except FabricError as e:
        raise ParamError("workload", spec, str(e)) from None


def reachable_endpoints(fabric: Fabric, over: str = "auto", reach: Reach | None = None) -> np.ndarray:
    """:func:`endpoints` a run can reach (:mod:`.reach`): the ranks a workload is made of."""
    ranks = endpoints(fabric, over)
    reach = host_reach(fabric) if reach is None else reach
    return ranks[reach.keep(ranks)]


def make_workload(fabric: Fabric, spec: str, seed: int = 0, over: str = "auto",
                  reach: Reach | None = None, sl: int | None = None) -> Flows:
    """Flows for a spec (:data:`SPEC_HELP`) over the ranks a run can reach (``reach``:
    :func:`~.reach.host_reach` of the fabric by default); ``sl``: the service level of every flow
    (None: not given, SL 0 or the routing's path SL)."""
    if sl is not None and not (isinstance(sl, (int, np.integer)) and 0 <= sl <= 15):
        raise ParamError("sl", sl, "is not a service level 0..15")
    flows = _pattern(fabric, spec, seed, over, reach)
    return flows if sl is None else flows.with_sl(int(sl))


#: The workload grammar, as the CLI help and the README give it.
SPEC_HELP = ("ring[:SIZE] and alltoall[:SIZE] (SIZE per rank, default 1GB; a bare number is bytes); "
             "permutation[:SEED][:SIZE], shift[:K][:SIZE], incast[:N][:SIZE] (SIZE per flow, with a unit: "
             "permutation:4MB, incast:8:1MB; default long-lived); B/KB/MB/GB decimal, KiB/MiB/GiB binary")


def split_spec(spec: str, what: str, example: str) -> tuple[str, float]:
    """``ARG[:SIZE]`` of a pattern with an integer argument: (the argument text, '' when absent;
    the size in bytes, inf when absent). A field with a unit is the size; it comes last."""
    _, _, rest = spec.partition(":")
    fields = [f.strip() for f in rest.split(":")] if rest else []
    size = np.inf
    if fields and has_unit(fields[-1]):
        size = _size(spec, fields.pop())
    if len(fields) > 1 or (fields and has_unit(fields[0])):
        raise ParamError("workload", spec, f"{what} (e.g. {example})")
    return (fields[0] if fields else ""), size


@dataclass(frozen=True)
class Pattern:
    """A workload spec read (:func:`parse_pattern`): the pattern's name (ring, alltoall,
    permutation, shift, incast), its integer argument (SEED, K or N; None: not given) and the
    size in bytes (inf: long-lived)."""

    name: str
    arg: int | None
    size: float


def parse_pattern(spec: str) -> Pattern:
    """The pattern of a workload spec (:data:`SPEC_HELP`), without a design: what ``simulate
    --workload`` and ``whatif --metric`` both read; ParamError ``workload`` naming the problem."""
    name, _, arg = spec.partition(":")
    name = name.strip().lower().replace("-", "").replace("_", "")
    if name in ("ring", "allreduce", "ringallreduce", "alltoall", "a2a"):
        if ":" in arg:
            raise ParamError("workload", spec, f"{name} takes one SIZE per rank (e.g. {name}:1GB)")
        return Pattern("alltoall" if name in ("alltoall", "a2a") else "ring", None,
                       _size(spec, arg) if arg else 1e9)
    grammar = {"permutation": ("permutation takes [:SEED][:SIZE]", "permutation:4MB, permutation:3:4MB",
                               "permutation takes an integer SEED (permutation:3:4MB)"),
               "shift": ("shift takes an integer K (shift:4)", "shift:4:1MB", "shift takes an integer K (shift:4)"),
               "incast": ("incast takes a sender count (incast:8)", "incast:8:1MB",
                          "incast takes a sender count (incast:8)")}
    canon = {"perm": "permutation", "shiftk": "shift"}.get(name, name)
    if canon not in grammar:
        raise ParamError("workload", spec, f"unknown pattern (use {', '.join(WORKLOADS)})")
    what, example, bad = grammar[canon]
    a, size = split_spec(spec, what, example)
    try:
        value = ascii_int(a) if a else None
    except ValueError:
        raise ParamError("workload", spec, bad) from None
    if canon == "permutation" and value is not None and value < 0:
        raise ParamError("workload", spec, bad.replace("an integer", "a non-negative integer"))
    return Pattern(canon, value, size)


def _pattern(fabric: Fabric, spec: str, seed: int, over: str, reach: Reach | None) -> Flows:
    pat = parse_pattern(spec)
    ranks = reachable_endpoints(fabric, over, reach)
    if pat.name == "ring":
        return ring_allreduce(ranks, pat.size)
    if pat.name == "alltoall":
        return all_to_all(ranks, pat.size)
    if pat.name == "permutation":
        return permutation(ranks, seed=seed if pat.arg is None else pat.arg, size_bytes=pat.size)
    if pat.name == "shift":
        return shift(ranks, 1 if pat.arg is None else pat.arg, pat.size)
    return incast(ranks, pat.arg, pat.size)
