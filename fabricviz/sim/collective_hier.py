"""Collectives that know the hierarchy: NVLS inside NVLink domains, SHARP on the InfiniBand
switches, and ``auto`` (the fastest of what the parts support, per size, as NCCL's tuner picks).

Ranks come in units (:func:`~.collective_plan.units`: an NVLink domain or partition — a DGX's
baseboard, an NVL72 rack —, else a server), ``g`` ranks in each of ``D`` units, GPU ``c`` of
every unit on its own NIC. ``S`` is the buffer nccl-tests names. Each algorithm is a set of
stages that NCCL pipelines chunk by chunk: the time is the stages' latencies added up plus the
slowest stage's bandwidth term (β), never their sum.

* **NVLS** (NVLink SHARP, the switch chips reduce; all-reduce, and all-gather / reduce-scatter
  inside one domain): a GPU's ``ld_reduce`` pulls every shard from every GPU (egress ``S``,
  ingress ``S/h``), its multicast store sends its reduced shard once and the switch writes it to
  all (egress ``S/h``, ingress ``S``): ``S·(1 + 1/h)`` each way at the GPU's NVLS rate
  (:func:`~.nvlink_model.nvls_gbytes`: usable NVLink × NCCL's ``nvlsEfficiency``), ``h`` NCCL's
  NVLS heads (:func:`~.nvlink_model.nvls_heads`: ``min(g, 32)``); all-gather and reduce-scatter
  move ``S`` one way, on at most 32 ranks (as NCCL). The reduction itself is bounded by the switch
  chips: ``S/4 · (g − 1)`` float additions over the domain's chips
  (:func:`~.nvlink_model.nvls_reduce_gbytes`; chips of a rack split between the collective's
  partitions in it); the slower of links and chips sets β. Latency: NCCL's NVLS figure. Across units (NCCL's
  NVLS-tree) the shards' all-reduce between the units runs over the NICs as a ring per NIC:
  GPU c of each unit to GPU c of the next, 2(D−1) steps of ``S/(g·D)`` (rates from the design's
  paths, :class:`~.collective.Solver`), plus NCCL's NVLS-tree network latency per tree level.
* **SHARP** (CollNet on InfiniBand switches whose ASIC reduces: :data:`~.nvlink_model.SHARP_ASICS`;
  all-reduce): inside the unit a reduce-scatter and an all-gather (NVLS where the chips can,
  else a ring over NVLink, ``2(g−1)/g·S`` each way), and each NIC sends its ``S/g`` shard up once
  and gets the reduced shard back once (the switches reduce): one transfer of ``S/g`` per NIC.
  Latency: NCCL's CollNet-direct network figure.
* **auto**: per size the fastest of ring, tree (all-reduce), NVLS and SHARP where they apply;
  all-to-all and broadcast run their own plan. The row says which won.

Not modelled: NCCL's protocol switch at small sizes (LL/LL128; the bandwidth terms are Simple's),
channel counts and chunking (NVLS's 64–128 KiB chunks over 32 heads × 32 channels change nothing
measurable between 512 MiB and 8 GiB on the NVL72 rack, coreweave/nccl-tests PR #43), and the
InfiniBand SHARP tree's own aggregation limits (outstanding operations, buffers).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..model import Fabric
from ..model.fabric import KIND_CODE
from ..model.nvlink import nvlink_map
from .collective_plan import Step, server_groups
from .nvlink_model import (
    NVLS_LATENCY_US,
    NVLS_MAX_HEADS,
    NVLS_NET_LATENCY_US,
    SHARP_ASICS,
    SHARP_NET_LATENCY_US,
    nvls_gbytes,
    nvls_heads,
    nvls_reduce_gbytes,
    usable_gbytes,
)
from .units import ParamError

HIER_ALGOS = ("nvls", "sharp", "auto")
#: Every algorithm a collective takes, in the order the CLI and the Collectives dock offer them.
ALGO_CHOICES = ("ring", "tree") + HIER_ALGOS
#: The ops an algorithm runs (one not listed runs every op).
ALGO_OPS = {"tree": ("allreduce",), "sharp": ("allreduce",), "nvls": ("allreduce", "allgather", "reducescatter")}


@dataclass(frozen=True)
class Timed:
    """One algorithm on one set of ranks: latency (ns) and β per byte of the buffer (ns/B)."""

    latency_ns: float
    beta: Callable[[float], float]          # size (B) -> the slowest stage's bandwidth term (ns)

    def time_ns(self, size: float) -> float:
        return self.latency_ns + self.beta(size)


def _units(fabric: Fabric, ranks: np.ndarray) -> np.ndarray:
    """(units, g) rank matrix; refused when the units hold different numbers of ranks."""
    groups = server_groups(fabric, ranks)
    if len({len(s) for s in groups}) != 1:
        raise ParamError("gpus", str(len(ranks)), "NVLS and SHARP need the same number of GPUs in every "
                         "NVLink domain (or server)")
    return np.array(groups)


def _domain_rates(fabric: Fabric, ranks: np.ndarray) -> tuple[float, float]:
    """(slowest usable NVLink, slowest NVLS rate) over the ranks, GB/s one way; 0 when a rank has none."""
    nv = nvlink_map(fabric)
    dom = nv.domain[ranks]
    if (dom < 0).any():
        return 0.0, 0.0
    specs = [nv.domains[k].spec for k in np.unique(dom).tolist()]
    return min(usable_gbytes(s) for s in specs), min(nvls_gbytes(s) for s in specs)


def _chip_ceiling(fabric: Fabric, groups: np.ndarray) -> float:
    """The slowest unit's switch-chip reduction ceiling (GB/s of buffer): the units of one physical
    domain (partitions of a rack) reduce in the same chips at once."""
    nv = nvlink_map(fabric)
    dom = nv.domain[groups[:, 0]]
    if (dom < 0).any():
        return float("inf")
    kinds, sharing = np.unique(dom, return_counts=True)
    return min(nvls_reduce_gbytes(nv.domains[k].spec, groups.shape[1], int(c))
               for k, c in zip(kinds.tolist(), sharing.tolist(), strict=True))


def _nvls_intra(rate: float, ceiling: float, g: int) -> Callable[[float], float]:
    """β of an NVLS all-reduce inside a unit of ``g`` ranks: S·(1 + 1/heads) at the GPU's NVLS rate, or
    the switch chips' reduction, whichever is slower (ns for S bytes)."""
    per = max((1.0 + 1.0 / nvls_heads(g)) / rate, 1.0 / ceiling)
    return lambda size: size * per


def _ring_over_nics(solver, groups: np.ndarray, frac: float, repeat: int) -> tuple[float, Callable[[float], float]]:
    """GPU c of each unit to GPU c of the next, ``repeat`` steps of ``frac`` of the buffer each."""
    src = groups.ravel()
    dst = np.roll(groups, -1, axis=0).ravel()
    step = Step(src, dst, np.full(len(src), frac), repeat)
    lat = repeat * solver.step_ns(step, 0.0)
    return lat, lambda size: repeat * solver.step_ns(step, size) - lat


def sharp_capable(fabric: Fabric) -> bool:
    """An InfiniBand design whose every switch's ASIC reduces in the network."""
    t = fabric.devices_t
    ib = np.flatnonzero(t.alive & (t.kind == KIND_CODE["ib_switch"]))
    eth = np.flatnonzero(t.alive & (t.kind == KIND_CODE["eth_switch"]))
    if not len(ib) or len(eth):
        return False
    return all((fabric.part_of(int(d)) or _NoPart).asic in SHARP_ASICS for d in
               {int(t.part[d]): d for d in ib.tolist()}.values())


class _NoPart:
    asic = None


def nvls(fabric: Fabric, op: str, ranks: np.ndarray, solver) -> Timed:
    """NVLS inside the units, a ring per NIC between them (see the module doc)."""
    if op not in ("allreduce", "allgather", "reducescatter"):
        raise ParamError("algo", "nvls", f"NVLS runs all-reduce, all-gather and reduce-scatter, not {op}")
    groups = _units(fabric, ranks)
    d, g = groups.shape
    _, rate = _domain_rates(fabric, ranks)
    if rate <= 0 or g < 2:
        raise ParamError("algo", "nvls", "needs NVLink domains whose switch chips reduce (NVLink SHARP: "
                         "H100/H200 and Blackwell NVSwitch), 2 or more GPUs in each")
    if op != "allreduce":
        if d > 1 or g > NVLS_MAX_HEADS:
            raise ParamError("algo", "nvls", f"NCCL runs {op} over NVLS inside one NVLink domain of at most "
                             f"{NVLS_MAX_HEADS} GPUs only")
        if op == "reducescatter":
            per = max(1.0 / rate, 1.0 / _chip_ceiling(fabric, groups))
            return Timed(NVLS_LATENCY_US * 1e3, lambda size: size * per)
        return Timed(NVLS_LATENCY_US * 1e3, lambda size: size / rate)
    intra = _nvls_intra(rate, _chip_ceiling(fabric, groups), g)
    if d == 1:
        return Timed(NVLS_LATENCY_US * 1e3, intra)
    lat, inter = _ring_over_nics(solver, groups, 1.0 / (g * d), 2 * (d - 1))
    levels = int(np.ceil(np.log2(d)))
    return Timed(NVLS_LATENCY_US * 1e3 + 2 * levels * NVLS_NET_LATENCY_US * 1e3 + lat,
                 lambda size: max(intra(size), inter(size)))


def sharp(fabric: Fabric, op: str, ranks: np.ndarray, solver) -> Timed:
    """In-network reduction on the switches, NVLS or a ring inside the units (see the module doc)."""
    if op != "allreduce":
        raise ParamError("algo", "sharp", f"SHARP (CollNet) runs all-reduce here, not {op}")
    if not sharp_capable(fabric):
        raise ParamError("algo", "sharp", f"needs an InfiniBand fabric of switches that reduce in the network "
                         f"({', '.join(SHARP_ASICS)})")
    groups = _units(fabric, ranks)
    d, g = groups.shape
    if d < 2:
        raise ParamError("algo", "sharp", "SHARP reduces across servers or NVLink domains; the ranks are in one")
    usable, rate = _domain_rates(fabric, ranks)
    if g == 1:
        lat_in, intra = 0.0, (lambda size: 0.0)
    elif rate > 0:
        lat_in, intra = NVLS_LATENCY_US * 1e3, _nvls_intra(rate, _chip_ceiling(fabric, groups), g)
    elif usable > 0:
        lat_in = 2 * (g - 1) * solver.nvlink_step_ns
        intra = lambda size: 2.0 * (g - 1) / g * size / usable     # noqa: E731
    else:
        raise ParamError("algo", "sharp", "the GPUs of a server need NVLink to reduce before the NIC")
    lat, inter = _ring_over_nics(solver, groups, 1.0 / g, 1)
    return Timed(lat_in + SHARP_NET_LATENCY_US * 1e3 + lat, lambda size: max(intra(size), inter(size)))


HIER = {"nvls": nvls, "sharp": sharp}


def candidates(op: str) -> tuple[str, ...]:
    """What ``auto`` weighs for ``op``."""
    if op == "allreduce":
        return ("ring", "tree", "nvls", "sharp")
    if op in ("allgather", "reducescatter"):
        return ("ring", "nvls")
    return ("ring",)
