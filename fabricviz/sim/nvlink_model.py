"""What a collective gets out of NVLink: NCCL's own figures, named, with where they are from.

Every constant here but one is read from NCCL's source (github.com/NVIDIA/nccl, ``master`` as of
2026-06, commit 5067397c; NVLS's arity and latency are the same in ``v2.25.1-1``), never fitted to a measurement; the
one, :data:`NVLS_CHIP_ADDS`, is estimated from a published run of another system (below):

* :data:`NCCL_LINK_GBYTES`: the bandwidth NCCL's topology search gives one NVLink link, per
  direction (``src/graph/topo.h``: ``SM80_NVLINK_BW 20.0``, ``SM90_NVLINK_BW 20.6``,
  ``SM100_NVLINK_BW 40.1`` GB/s) — against a line rate of 25 GB/s (NVLink 3 and 4) and
  50 GB/s (NVLink 5) per link and direction: NVLink's framing and protocol cost (82.4 % on
  Hopper, 80.2 % on Blackwell). A GPU's usable NVLink = its links × this.
* :data:`NVLS_EFFICIENCY`: NCCL's NVLink SHARP efficiency (``src/graph/tuning.cc``
  ``nvlsEfficiency``: Hopper 0.85, Blackwell 0.74), on top of the usable NVLink rate.
* :data:`NVLS_LATENCY_US`: NCCL's NVLS latency on NVLink, Simple protocol (``tuning.cc``
  ``hwLatencies[NVLINK][NVLS][Simple]`` = 25 µs; its base latency for NVLS is 0), and
  :data:`NVLS_NET_LATENCY_US` the NVLS-tree's network latency per tree level
  (``hwLatencies[NET][NVLSTree][Simple]`` = 20.9 µs).
* :data:`SHARP_NET_LATENCY_US`: CollNet (SHARP) direct's network latency
  (``hwLatencies[NET][CollNetDirect][Simple]`` = 31 µs).

* :data:`NVLS_MAX_HEADS`: NCCL's NVLS arity (``src/include/device.h`` ``NCCL_MAX_NVLS_ARITY 32``):
  the NVLS graph has ``min(GPUs, 32)`` heads (``src/graph/search.cc``), each pulling the reduced
  shard of ``1/heads`` of the buffer and multicasting it; above 32 ranks NCCL runs NVLS
  all-gather and reduce-scatter no more (``src/enqueue.cc``: ``nRanks > NCCL_MAX_NVLS_ARITY``).
* :data:`NVLS_CHIP_ADDS`: what one NVLink switch chip's reduction units add, float additions per
  second — the NVLS ceiling the links do not set. NVIDIA publishes no such figure: it is
  **estimated** from one published 8-GPU run (NVIDIA/nccl #1807: 8 × B200 on an HGX baseboard of
  2 NVLink 5 switch chips, NCCL 2.27.1, all-reduce busbw "830+" GB/s, nccl-tests' float): algbw
  830 · 8/14 = 474.3 GB/s = 118.6 G floats/s, each the sum of 8 inputs (7 additions), over 2
  chips: 415 G additions per chip and second. That run sits at the link bound too (18 × 40.1 ×
  0.74 GB/s for S·9/8 a GPU: busbw 830.9), so the figure is the lowest rate the run allows; it is
  then held against the 72-GPU rack it was not taken from. An all-reduce of ``g`` ranks makes
  ``g − 1`` additions per float, spread over the domain's chips: on an 8-GPU baseboard 7 over 2
  chips, on an NVL72 rack 71 over 18 — 13 % more work per chip, where the links would give the
  rack 25 % more busbw. No figure for Hopper's NVSwitch: there the links bound (#1455).

Large messages run NCCL's Simple protocol (its tuner picks Simple above a few MB: LL and LL128
carry flags with the data, 50 % and 120/128 of the bandwidth), so bandwidth terms here are
Simple's. Where a generation is not in the tables (a user's part, ``generation`` 0), the
link's line rate is taken as it is.
"""

from __future__ import annotations

from ..model.nvlink import NvlinkSpec

#: NCCL's per-link NVLink bandwidth, one direction, GB/s, by NVLink generation (topo.h).
NCCL_LINK_GBYTES = {2: 20.0, 3: 20.0, 4: 20.6, 5: 40.1}
#: NCCL's NVLS efficiency by NVLink generation (tuning.cc nvlsEfficiency: Hopper, Blackwell).
NVLS_EFFICIENCY = {4: 0.85, 5: 0.74}
NVLS_LATENCY_US = 25.0
NVLS_NET_LATENCY_US = 20.9
SHARP_NET_LATENCY_US = 31.0
#: NCCL_MAX_NVLS_ARITY (device.h): NVLS heads at most, and the most ranks of NVLS all-gather/reduce-scatter.
NVLS_MAX_HEADS = 32
#: Float additions per second one NVLink switch chip makes, by NVLink generation (estimated: module doc).
NVLS_CHIP_ADDS = {5: 415e9}
#: Bytes of nccl-tests' float, the element the switch adds.
FLOAT_BYTES = 4
#: Switch ASICs that reduce in the network (SHARP v2 Quantum, v3 Quantum-2, v4 Quantum-X800),
#: per NVIDIA's SHARP documentation; Switch-IB 2's SHARP v1 handles small messages only.
SHARP_ASICS = ("Quantum", "Quantum-2", "Quantum-X800")


def usable_gbytes(spec: NvlinkSpec) -> float:
    """A GPU's NVLink bandwidth as NCCL uses it, one direction (GB/s)."""
    per_link = NCCL_LINK_GBYTES.get(spec.generation, spec.link_gbytes)
    return spec.links_per_gpu * min(per_link, spec.link_gbytes)


def efficiency(spec: NvlinkSpec) -> float:
    """Usable share of the NVLink line rate."""
    return usable_gbytes(spec) / spec.gpu_gbytes


def nvls_gbytes(spec: NvlinkSpec) -> float:
    """What NVLS moves per GPU and direction (GB/s); 0 when the switch chips cannot reduce."""
    if not spec.nvls or spec.generation not in NVLS_EFFICIENCY:
        return 0.0
    return usable_gbytes(spec) * NVLS_EFFICIENCY[spec.generation]


def nvls_heads(g: int) -> int:
    """NVLS heads NCCL builds for ``g`` ranks of one domain (its graph search: one a GPU, at most 32)."""
    return min(g, NVLS_MAX_HEADS)


def nvls_reduce_gbytes(spec: NvlinkSpec, g: int, sharing: int = 1) -> float:
    """The switch chips' ceiling on an NVLS reduction over ``g`` ranks of ``spec``'s domain, as buffer
    bytes a second (GB/s): chips × :data:`NVLS_CHIP_ADDS` additions over ``g − 1`` per float; ``sharing``
    collectives reducing in the same chips at once split them. Infinite where no figure is known."""
    adds = NVLS_CHIP_ADDS.get(spec.generation)
    if adds is None or g < 2 or spec.switch_chips < 1:
        return float("inf")
    return spec.switch_chips * adds / sharing / (g - 1) * FLOAT_BYTES / 1e9
