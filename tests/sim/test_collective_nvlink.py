"""Collectives over NVLink domains: ring at NCCL's usable NVLink rate, NVLS inside a domain, NVLS-tree
and SHARP across domains, auto — exact model numbers, and the published nccl-tests numbers they are
held against (each with its source, setting and the tolerance chosen).

Model constants (fabricviz.sim.nvlink_model, from NCCL's source): usable NVLink 20.6 GB/s a link
on Hopper, 40.1 on Blackwell (topo.h); NVLS efficiency 0.85 Hopper, 0.74 Blackwell (tuning.cc);
NVLS latency 25 µs (tuning.cc); at most 32 NVLS heads (device.h). One estimated figure: an NVLink 5
switch chip's 415 G float additions a second, from the 8 × B200 run of NVIDIA/nccl #1807 (its test
below says so). Nothing here is fitted to the numbers it is compared with.
"""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate.nvlink_racks import nvl72_racks
from fabricviz.generate.rail import rail_optimized
from fabricviz.sim.collective import Solver, collective
from fabricviz.sim.units import ParamError

GIB = 2.0 ** 30
H100_NVLS = 18 * 20.6 * 0.85            # GB/s: a GPU's NVLS rate on an HGX H100
GB200_NVLS = 18 * 40.1 * 0.74           # GB/s: on a GB200 NVL72


@pytest.fixture(scope="module")
def dgx():
    return rail_optimized(1, nodes_per_unit=4)


@pytest.fixture(scope="module")
def rack():
    return nvl72_racks(1)


def test_nvls_by_hand_on_one_dgx_h100(dgx):
    """8 GPUs, one domain: S·(1 + 1/8) each way at 18 × 20.6 × 0.85 GB/s, plus 25 µs."""
    r = collective(dgx, "allreduce", [4 * GIB], "nvls", gpus="8")
    t = 25e3 + 4 * GIB * 9 / 8 / H100_NVLS
    assert r.rows[0].time_us == pytest.approx(t / 1e3, rel=1e-12)
    assert round(r.rows[0].busbw, 2) == 489.48
    ag = collective(dgx, "allgather", [4 * GIB], "nvls", gpus="8").rows[0]
    assert ag.time_us == pytest.approx((25e3 + 4 * GIB / H100_NVLS) / 1e3, rel=1e-12)


# NVIDIA/nccl issue #1455 (8 × H100 SXM, NCCL_ALGO=RING|NVLS ./all_reduce_perf -b 2G -e 4G -f 2 -g N):
# "ALGO=RING, busbw is about 365-370 GBps when gpus from 2 to 8"; "ALGO=NVLS ... 370 to 420, 440, 460,
# and 480 GBps when gpus increase from 4 to 5, 6, 7, and 8". Tolerance: ring inside 365–370 ± 1 % (the
# reporter's own spread); NVLS ± 3 % (the figures are rounded to 10 GB/s by the reporter, ± 5 GB/s, and
# NCCL's efficiency constant is one figure for every GPU count). Model: ring 370.03/370.41 (2/4 GiB);
# NVLS 419.6, 449.6, 472.0, 489.5 (4 GiB): −0.1 %, +2.2 %, +2.6 %, +2.0 %.
@pytest.mark.parametrize("gpus", [2, 4, 8])
def test_dgx_h100_ring_lands_in_nccl_1455s_band(dgx, gpus):
    r = collective(dgx, "allreduce", [2 * GIB, 4 * GIB], "ring", gpus=str(gpus))
    for row in r.rows:
        assert 365 * 0.99 <= row.busbw <= 370 * 1.01


@pytest.mark.parametrize("gpus, published, model", [(5, 420, 419.60), (6, 440, 449.55), (7, 460, 472.01),
                                                    (8, 480, 489.48)])
def test_dgx_h100_nvls_lands_near_nccl_1455(dgx, gpus, published, model):
    busbw = collective(dgx, "allreduce", [4 * GIB], "nvls", gpus=str(gpus)).rows[0].busbw
    assert round(busbw, 2) == model
    assert abs(busbw - published) / published <= 0.03


def test_auto_picks_ring_below_five_gpus_and_nvls_above(dgx):
    """NVLS moves S(1 + 1/n) for busbw 2(n−1)/n: below the ring's at 4 GPUs and fewer (2(n−1)/(n+1) · 315
    < 370.8), above it from 5 — as #1455 saw NCCL stay at the ring's figure up to 4 GPUs."""
    won = [collective(dgx, "allreduce", [4 * GIB], "auto", gpus=str(n)).rows[0].algo for n in (2, 3, 4, 5, 8)]
    assert won == ["ring", "ring", "nvls", "nvls", "nvls"]


# coreweave/nccl-tests PR #43 (GB200 NVL72, 18 trays × 4 GPUs, NCCL 2.25.1, NCCL_NVLS_ENABLE=1, algorithm
# and protocol NCCL's choice, all_reduce_perf -b 512M -e 8G -f 2 -g 1; out-of-place busbw, GB/s). The
# model before this change (links only, S(1 + 1/72) a GPU at 18 × 40.1 × 0.74) gave 1014.1 / 1026.4 /
# 1032.7 / 1035.8 / 1037.4: +73 … +24 %. The mechanism: NVLS's reduction is done by the switch chips, and
# a rack gives each chip 71/18 = 3.94 additions per float where an 8-GPU baseboard gives 7/2 = 3.5 —
# the rack's plateau (839 / 835) sits at the 8-GPU one (NVIDIA/nccl #1807: 830+), where the links would
# give it 25 % more. The chips' rate is the one estimated from that 8-GPU run (nvlink_model.NVLS_CHIP_ADDS).
# Tolerance 15 %: the run's own in-place and out-of-place columns differ by up to 6 % (1 GiB: 681 / 724),
# and the chip rate is a lower bound from a run of a different system. Where we miss — 512 MiB (+39 %) and
# 1 GiB (+21 %): the rack carries ~0.5 ms a call more than the bandwidth line up to 2 GiB (546 µs from
# the 512 MiB–2 GiB points alone) and none at 4 and 8 GiB; nothing in NCCL 2.25.1's NVLS path changes
# between 2 and 4 GiB (64 KiB chunks over 32 channels × 32 heads from 512 MiB to 4 GiB, 128 KiB at 8 GiB,
# enqueue.cc), its NVLS latency is 25 µs, and no published figure gives the rest: not modelled.
PR43 = [(512 * 2 ** 20, 586.06, 814.0), (GIB, 681.17, 821.9), (2 * GIB, 757.78, 826.0), (4 * GIB, 839.16, 828.0),
        (8 * GIB, 834.57, 829.0)]
TOLERANCE = 0.15
#: One NVL72 rack's switch-chip ceiling, GB/s of buffer: 18 chips × 415 G additions/s over 71 per float.
NVL72_CHIPS = 18 * 415e9 * 4 / 71 / 1e9


def test_gb200_nvl72_against_coreweave_pr43(rack):
    r = collective(rack, "allreduce", [s for s, _, _ in PR43], "auto")
    assert [x.algo for x in r.rows] == ["nvls"] * 5
    assert [round(x.busbw, 1) for x in r.rows] == [m for _, _, m in PR43]
    off = [x.busbw / p - 1 for x, (_, p, _) in zip(r.rows, PR43, strict=True)]
    assert [round(100 * o, 1) for o in off] == [38.9, 20.7, 9.0, -1.3, -0.7]
    assert [abs(o) <= TOLERANCE for o in off] == [False, False, True, True, True]
    # the misses are a fixed cost, not a rate: published time − model time per size (µs)
    extra = [2 * 71 / 72 * s / p / 1e3 - x.time_us for x, (s, p, _) in zip(r.rows, PR43, strict=True)]
    assert [round(e) for e in extra] == [506, 532, 461, -136, -137]
    ring = collective(rack, "allreduce", [4 * GIB], "ring").rows[0].busbw
    assert round(ring, 1) == 708.9 < 18 * 40.1           # the ring cannot pass a GPU's usable NVLink


def test_nvl72_nvls_is_bound_by_the_switch_chips_not_the_links(rack):
    """At 4 GiB: 25 µs + S / (18 chips × 415 G additions/s × 4 B / 71) — the links would take S·(33/32) at
    534.1 GB/s (32 NVLS heads, NCCL_MAX_NVLS_ARITY), 20 % less time."""
    row = collective(rack, "allreduce", [4 * GIB], "nvls").rows[0]
    assert row.time_us == pytest.approx((25e3 + 4 * GIB / NVL72_CHIPS) / 1e3, rel=1e-12)
    assert 4 * GIB * 33 / 32 / GB200_NVLS < 4 * GIB / NVL72_CHIPS


# The same rack model against 8 GPUs on one HGX B200 (2 NVLink 5 switch chips), NVIDIA/nccl #1807 (NCCL
# 2.27.1, all_reduce_perf on 8 × B200: "Ours is 830+"): the run the chips' rate is taken from, so this is
# the constant reproducing its source (links 830.9, chips 830.0 at large sizes), not an independent check.
def test_hgx_b200_reproduces_the_run_the_chip_rate_comes_from():
    from fabricviz.generate.superpod import superpod
    r = collective(superpod("dgx-b200", 1), "allreduce", [4 * GIB, 8 * GIB], "auto", gpus="8")
    assert [x.algo for x in r.rows] == ["nvls", "nvls"]
    assert [round(x.busbw, 2) for x in r.rows] == [827.71, 828.86]
    assert all(abs(x.busbw / 830 - 1) <= 0.01 for x in r.rows)


# coreweave/nccl-tests README "Expected Performance › GB200 › 2 Racks" (commit bee97e7, NCCL 2.26.2,
# 144 GPUs, CollNet off in its scripts, so no SHARP: NVLS inside each rack, the shards across the racks
# over the NICs), out-of-place busbw and time 512 MiB … 16 GiB. Model: --algo nvls (NVLS-tree). The
# plateau is the chips' again (16 GiB within 3 %); the miss is a fixed cost at every size, 0.8–1.2 ms a
# call (about twice the one rack's), no rate: not modelled, as on one rack.
TWO_RACKS = [(512 * 2 ** 20, 493.94, 2156.8, 791.2), (GIB, 596.10, 3574.4, 812.9), (2 * GIB, 680.30, 6264.0, 824.2),
             (4 * GIB, 743.09, 11469, 830.0), (8 * GIB, 793.06, 21493, 832.9), (16 * GIB, 810.41, 42067, 834.4)]


def test_two_gb200_racks_against_coreweave_readme():
    r = collective(nvl72_racks(2), "allreduce", [s for s, *_ in TWO_RACKS], "nvls")
    assert [round(x.busbw, 1) for x in r.rows] == [m for *_, m in TWO_RACKS]
    off = [x.busbw / p - 1 for x, (_, p, _, _) in zip(r.rows, TWO_RACKS, strict=True)]
    assert [abs(o) <= TOLERANCE for o in off] == [False, False, False, True, True, True]
    extra = [t - x.time_us for x, (_, _, t, _) in zip(r.rows, TWO_RACKS, strict=True)]
    assert [round(e) for e in extra] == [809, 951, 1089, 1191, 1010, 1173]


def test_nvls_across_two_racks_rings_the_shards_over_the_nics():
    """2 racks: NVLS inside each, GPU c's shard (S/72) all-reduced with the other rack's GPU c over its
    NIC: 2 steps of S/144 at 400 Gb/s · EFF — under the switch chips' S/420.8 GB/s, so the chips bound."""
    f = nvl72_racks(2)
    s = Solver(f)
    r = collective(f, "allreduce", [4 * GIB], "nvls", solver=s)
    assert (r.servers, r.channels) == (2, 72)
    intra = 4 * GIB / NVL72_CHIPS
    assert intra > 2 * 4 * GIB / 144 * 8 / (400 * 4096 / 4122)
    assert r.rows[0].time_us == pytest.approx((intra + 25e3 + 2 * 20.9e3) / 1e3, rel=1e-3)
    sharp = collective(f, "allreduce", [4 * GIB], "sharp", solver=s).rows[0]
    assert sharp.busbw > r.rows[0].busbw                  # one NIC transfer each, not a ring of two


def test_sharp_on_four_dgx_is_bound_by_nvlink_not_the_nics(dgx):
    """4 × DGX H100 on Quantum-2: NVLS inside each server (S·9/8 at 315.2 GB/s = 15.3 ms at 4 GiB), each
    NIC sends its S/8 once and gets it back reduced: 4 GiB/8 at 400 Gb/s · EFF = 10.8 ms. NVLink bounds;
    latency NVLS 25 µs + SHARP 31 µs + the NIC step's α (2.74 µs: its two fabric links take the DGX's
    twin-port optics, 60 ns each)."""
    r = collective(dgx, "allreduce", [4 * GIB], "sharp").rows[0]
    assert r.time_us * 1e3 == pytest.approx(4 * GIB * 9 / 8 / H100_NVLS + 25e3 + 31e3 + 2.74e3, abs=0.05e3)
    assert r.busbw > collective(dgx, "allreduce", [4 * GIB], "ring").rows[0].busbw


def test_what_an_algorithm_cannot_run_is_refused(dgx, rack):
    with pytest.raises(ParamError, match="SHARP reduces across servers"):
        collective(rack, "allreduce", [GIB], "sharp")
    with pytest.raises(ParamError, match="NVLS runs all-reduce, all-gather and reduce-scatter"):
        collective(dgx, "alltoall", [GIB], "nvls")
    with pytest.raises(ParamError, match="inside one NVLink domain"):
        collective(dgx, "allgather", [GIB], "nvls")
    with pytest.raises(ParamError, match="at most 32 GPUs"):              # NCCL_MAX_NVLS_ARITY
        collective(rack, "reducescatter", [GIB], "nvls")
    with pytest.raises(ParamError, match="is not one of ring, tree, nvls, sharp, auto"):
        collective(dgx, "allreduce", [GIB], "collnet")


def test_a_partition_cuts_nvlink_inside_the_rack(rack):
    """Two partitions of 36: the ring between them crosses the NICs, NVLS runs per partition."""
    f = rack.copy()
    f.set_meta("nvlink_partitions", [{"domain": "rack1", "gpus": list(range(36))},
                                     {"domain": "rack1", "gpus": list(range(36, 72))}])
    whole = collective(rack, "allreduce", [GIB], "nvls").rows[0].busbw
    cut = collective(f, "allreduce", [GIB], "nvls")
    assert cut.servers == 2 and cut.rows[0].busbw < whole


def test_cli_algo_auto_names_the_winner_per_size(rack, tmp_path, capsys):
    p = tmp_path / "nvl72.json"
    save_fabric(rack, p)
    assert main(["collective", str(p), "--op", "allreduce", "--algo", "auto", "--sizes", "1GiB,4GiB"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("# fabricviz collective: allreduce (auto) over 72 GPUs on 1 servers")
    assert [line.split()[-1] for line in out[4:6]] == ["nvls", "nvls"]
    assert np.isclose(float(out[5].split()[-2]), 828.0, atol=0.05)
    assert main(["collective", str(p), "--op", "alltoall", "--algo", "sharp", "--sizes", "1MB"]) == 2
    assert "--algo" in capsys.readouterr().err
