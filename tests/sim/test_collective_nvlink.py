"""Collectives over NVLink domains: ring at NCCL's usable NVLink rate, NVLS inside a domain, NVLS-tree
and SHARP across domains, auto — exact model numbers, and the published nccl-tests numbers they are
held against (each with its source, setting and the tolerance chosen).

Model constants (fabricviz.sim.nvlink_model, from NCCL's source): usable NVLink 20.6 GB/s a link
on Hopper, 40.1 on Blackwell (topo.h); NVLS efficiency 0.85 Hopper, 0.74 Blackwell (tuning.cc);
NVLS latency 25 µs (tuning.cc). Nothing here is fitted to the numbers it is compared with.
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
# and protocol NCCL's choice, all_reduce_perf -b 512M -e 8G -f 2 -g 1; out-of-place busbw):
# 586.06 / 681.17 / 757.78 / 839.16 GB/s at 512 MiB / 1 / 2 / 4 GiB. Where we miss: fabricviz's NVLS
# is NCCL's own tuning model (usable NVLink × 0.74, S(1 + 1/n) a GPU), which gives ~1035 GB/s at 72
# GPUs; the rack reaches 839 (-19 % of the model) and carries a ~0.5 ms fixed cost per call (its time
# is 1807 µs at 512 MiB, 3109 at 1 GiB: 540 µs more than the bandwidth line) that neither NCCL's 25 µs
# NVLS latency nor anything published explains. The same constants land within 2 % on 8 × B300
# (NVIDIA/nccl #2140: 845 GB/s) and on the H100 above, so we do not fit them to the rack: the test
# holds the documented miss — the model above the rack by 15–80 %, the gap closing as size grows.
PR43 = [(512 * 2 ** 20, 586.06, 1014.1), (GIB, 681.17, 1026.4), (2 * GIB, 757.78, 1032.7), (4 * GIB, 839.16, 1035.8)]


def test_gb200_nvl72_against_coreweave_pr43(rack):
    r = collective(rack, "allreduce", [s for s, _, _ in PR43], "auto")
    assert [x.algo for x in r.rows] == ["nvls"] * 4
    assert [round(x.busbw, 1) for x in r.rows] == [m for _, _, m in PR43]
    over = [x.busbw / p for x, (_, p, _) in zip(r.rows, PR43, strict=True)]
    assert all(1.15 < o < 1.80 for o in over) and over == sorted(over, reverse=True)
    ring = collective(rack, "allreduce", [4 * GIB], "ring").rows[0].busbw
    assert round(ring, 1) == 708.9 < 18 * 40.1           # the ring cannot pass a GPU's usable NVLink


def test_nvls_across_two_racks_rings_the_shards_over_the_nics():
    """2 racks: NVLS inside each, GPU c's shard (S/72) all-reduced with the other rack's GPU c over its
    NIC: 2 steps of S/144 at 400 Gb/s · EFF — under NVLink's S·(73/72)/534.1 GB/s, so NVLink bounds."""
    f = nvl72_racks(2)
    s = Solver(f)
    r = collective(f, "allreduce", [4 * GIB], "nvls", solver=s)
    assert (r.servers, r.channels) == (2, 72)
    intra = 4 * GIB * (1 + 1 / 72) / GB200_NVLS
    assert intra > 2 * 4 * GIB / 144 * 8 / (400 * 4096 / 4122)
    assert r.rows[0].time_us == pytest.approx((intra + 25e3 + 2 * 20.9e3) / 1e3, rel=1e-3)
    sharp = collective(f, "allreduce", [4 * GIB], "sharp", solver=s).rows[0]
    assert sharp.busbw > r.rows[0].busbw                  # one NIC transfer each, not a ring of two


def test_sharp_on_four_dgx_is_bound_by_nvlink_not_the_nics(dgx):
    """4 × DGX H100 on Quantum-2: NVLS inside each server (S·9/8 at 315.2 GB/s = 15.3 ms at 4 GiB), each
    NIC sends its S/8 once and gets it back reduced: 4 GiB/8 at 400 Gb/s · EFF = 10.8 ms. NVLink bounds;
    latency NVLS 25 µs + SHARP 31 µs + the NIC step's α (2.6 µs)."""
    r = collective(dgx, "allreduce", [4 * GIB], "sharp").rows[0]
    assert r.time_us * 1e3 == pytest.approx(4 * GIB * 9 / 8 / H100_NVLS + 25e3 + 31e3 + 2.6e3, abs=0.1e3)
    assert r.busbw > collective(dgx, "allreduce", [4 * GIB], "ring").rows[0].busbw


def test_what_an_algorithm_cannot_run_is_refused(dgx, rack):
    with pytest.raises(ParamError, match="SHARP reduces across servers"):
        collective(rack, "allreduce", [GIB], "sharp")
    with pytest.raises(ParamError, match="NVLS runs all-reduce, all-gather and reduce-scatter"):
        collective(dgx, "alltoall", [GIB], "nvls")
    with pytest.raises(ParamError, match="inside one NVLink domain"):
        collective(dgx, "allgather", [GIB], "nvls")
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
    assert np.isclose(float(out[5].split()[-2]), 1035.8, atol=0.05)
    assert main(["collective", str(p), "--op", "alltoall", "--algo", "sharp", "--sizes", "1MB"]) == 2
    assert "--algo" in capsys.readouterr().err
