"""DCQCN presets: the values of congestion.md §2.1–2.3, one step of each by hand, and the
400G incast of issue 15 under both (paper: senders cut ~100×; nvidia: the port stays full)."""

import numpy as np
import pytest

from fabricviz.ethernet.dcqcn import NVIDIA, PAPER, DcqcnParams, dcqcn_preset, dcqcn_step
from fabricviz.generate import leaf_spine
from fabricviz.sim.compare import compare_techs

pytestmark = pytest.mark.slow     # every test here shares a 400G incast fluid run (~2 s idle)

C = 400.0


def test_presets_carry_the_reference_values():
    assert dcqcn_preset("paper") == PAPER == DcqcnParams()
    assert (PAPER.g, PAPER.tau, PAPER.tau_prime, PAPER.timer, PAPER.byte_counter, PAPER.fast_recovery,
            PAPER.rai_gbps, PAPER.hai_gbps, PAPER.clamp_target) == \
        (1 / 256, 50e-6, 55e-6, 55e-6, 10e6, 5, 0.04, 0.0, True)
    n = dcqcn_preset("nvidia")
    # RPG_TIME_RESET 300 µs, RPG_BYTE_RESET 32767 B, RPG_THRESHOLD 1, RPG_AI_RATE 5 Mb/s,
    # RPG_HAI_RATE 50 Mb/s, RPG_MIN_RATE 1 Mb/s, DCE_TCP_RTT 1 µs, RATE_REDUCE_MONITOR_PERIOD 4 µs,
    # MIN_TIME_BETWEEN_CNPS 4 µs, INITIAL_ALPHA_VALUE 1023, DCE_TCP_G 1019, CLAMP_TGT_RATE 0 / …_AFTER_TIME_INC 1
    assert (n.timer, n.byte_counter, n.fast_recovery, n.rai_gbps, n.hai_gbps, n.min_gbps) == \
        (300e-6, 32767.0, 1, 0.005, 0.05, 0.001)
    assert (n.tau_prime, n.decrease_period, n.tau, n.alpha0, n.g) == (1e-6, 4e-6, 4e-6, 1023 / 1024, 5 / 1024)
    assert (n.clamp_target, n.clamp_after_timer, n.preset) == (False, True, "nvidia")
    with pytest.raises(ValueError, match="not one of paper, nvidia"):
        dcqcn_preset("mlx")


def _one(prm, rc, rt, p, dt=1e-6, alpha=1.0):
    a = np.array
    return dcqcn_step(a([rc]), a([rt]), a([alpha]), a([rc]), a([p]), a([C]), dt, prm)


def test_a_cnp_clamps_the_target_in_the_paper_but_not_on_connectx():
    # every packet marked (p = 1): the paper pulls Rt down to Rc (Euler: Rt − dt·(Rt − Rc)/τ),
    # ConnectX leaves Rt at 400 (the timer cannot have fired within 4 µs of the last cut)
    rc, rt, al = _one(PAPER, 200.0, 400.0, 1.0)
    assert rt[0] == pytest.approx(400 - 1e-6 * 200 / 50e-6, rel=1e-9)
    rc, rt, al = _one(NVIDIA, 200.0, 400.0, 1.0, alpha=NVIDIA.alpha0)
    assert rt[0] == 400.0
    # one cut per 4 µs by α/2, integrated exactly over 1 µs: Rc · exp(−α / (2 · 4))
    assert rc[0] == pytest.approx(200 * np.exp(-NVIDIA.alpha0 / 8), rel=1e-9)


def test_connectx_recovers_by_fast_recovery_and_hyper_increase():
    # no marks: increase events at R/B (byte counter) + 1/T (timer); each moves Rc half way to
    # Rt and, both counters past F, raises Rt by R_HAI
    rc, rt, al = _one(NVIDIA, 100.0, 300.0, 0.0)
    R = 100e9 / 8 / 1000                                 # packets/s
    events = R / (32767 / 1000) + 1 / 300e-6
    assert rc[0] == pytest.approx(300 - 200 * np.exp(-events / 2 * 1e-6), rel=1e-9)
    assert rt[0] == pytest.approx(300 + 0.05 * events * 1e-6, rel=1e-9)
    assert al[0] == pytest.approx(np.exp(-5 / 1024), rel=1e-9)      # α decays by (1 − g) per µs


@pytest.fixture(scope="module")
def incast():
    f = leaf_spine(4, 2, 8)                              # 400GbE, 8 NICs into one NIC port
    return {p: compare_techs(f, "incast:8", "fluid", 2e-3, 0, over="nic", dcqcn=p) for p in ("paper", "nvidia")}


def test_paper_preset_cuts_the_incast_senders_a_hundredfold(incast):
    c = incast["paper"]
    assert c.ib.throughput_gbps == pytest.approx(C)
    assert c.roce.result.fluid.dcqcn_preset == "paper"
    # the 16 MB burst keeps p = 1 while it drains: Rc halves every 50 µs, then climbs by 40 Mb/s per 55 µs
    assert c.roce.throughput_gbps / c.ib.throughput_gbps < 0.05
    rc = np.array([fr.flow_cc_rate_gbps for fr in c.roce.result.frames])
    assert rc.min() < 1.0


def test_nvidia_preset_keeps_the_port_full_at_fair_share(incast):
    c = incast["nvidia"]
    res = c.roce.result
    assert res.fluid.dcqcn_preset == "nvidia" and c.to_dict()["dcqcn_preset"] == "nvidia"
    rx = int(res.routes.path(0)[-1])
    # the receiver's queue never empties after the first 100 µs, so its egress round-robins over
    # 8 backlogged ingress ports (7 hosts + the spine link): every sender gets exactly C/8
    frames = [fr for fr in res.frames if fr.time_s > 1e-4]
    assert min(fr.link_queue[rx] for fr in frames) > 0.5e6
    assert all(fr.link_util[rx] == pytest.approx(1.0, abs=1e-9) for fr in frames)
    np.testing.assert_allclose(res.flow_rates(), C / 8, rtol=1e-6)
    assert c.roce.throughput_gbps / c.ib.throughput_gbps == pytest.approx(1.0, abs=1e-6)
