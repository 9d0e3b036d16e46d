"""RoCE pieces: ECN RED marking, PFC hysteresis and headroom, ECMP hashing, DCQCN limits."""

import numpy as np
import pytest

from fabricviz.ethernet.dcqcn import DcqcnParams, dcqcn_step
from fabricviz.ethernet.ecmp import flow_sports, hash5, switch_seeds
from fabricviz.ethernet.ecn import EcnParams, ecn_thresholds, path_marking, red_probability
from fabricviz.ethernet.pfc import PfcParams, credit_limit, headroom_bytes, pfc_update, xoff_levels


def test_red_marking_and_defaults():
    kmin, kmax, pmax = ecn_thresholds(np.array([40.0, 100.0]))
    np.testing.assert_allclose(kmin, [5e3, 400e3])
    np.testing.assert_allclose(kmax, [200e3, 1600e3])
    np.testing.assert_allclose(pmax, [0.01, 0.2])
    q = np.array([0, 5e3, 102.5e3, 200e3, 200e3 + 1])
    p = red_probability(q, np.full(5, 5e3), np.full(5, 200e3), np.full(5, 0.01))
    np.testing.assert_allclose(p, [0, 0, 0.005, 0.01, 1.0])
    # above 100G the map grows sub-linearly so Kmax stays under the 4 MB XOFF cap
    kmin, kmax, _ = ecn_thresholds(np.array([50.0, 200.0, 400.0, 800.0]))
    np.testing.assert_allclose(kmin, [200e3, 600e3, 800e3, 800e3])
    np.testing.assert_allclose(kmax, [800e3, 2400e3, 3200e3, 3200e3])
    assert np.all(xoff_levels(PfcParams(), kmax) >= kmax)
    k = ecn_thresholds(np.array([40.0]), EcnParams(kmin=1e3, kmax=2e3, pmax=0.5))
    assert [float(v[0]) for v in k] == [1e3, 2e3, 0.5]


def test_path_marking_combines_hops():
    import scipy.sparse as sp
    inc = sp.csr_matrix(np.array([[1, 1, 0], [0, 0, 1]], float))
    p = path_marking(inc, np.array([0.5, 0.5, 0.1]))
    np.testing.assert_allclose(p, [0.75, 0.1])


def test_pfc_hysteresis_and_headroom():
    prm = PfcParams(xoff=100e3, mtu=4096)
    xoff = xoff_levels(prm, np.zeros(3))
    paused = np.zeros(3, bool)
    paused = pfc_update(paused, np.array([99e3, 100e3, 150e3]), xoff, prm)
    assert paused.tolist() == [False, True, True]
    # stays paused until the counter falls to XON = XOFF − 2 MTU
    paused = pfc_update(paused, np.array([99e3, 95e3, 91.808e3]), xoff, prm)
    assert paused.tolist() == [False, True, False]
    # HPCC-ns3 headroom: 3·C·d/8 (+2 MTU); 100G, 1 µs → 37.5 KB + 2 MTU
    assert headroom_bytes(np.array([100.0]), np.array([1000.0]), 1000)[0] == pytest.approx(37.5e3 + 2e3)
    # default XOFF follows the speed's ECN Kmax (40G: 256 KB floor, 100G: 2 MB, 400G: 4 MB cap)
    np.testing.assert_allclose(xoff_levels(PfcParams(), np.array([200e3, 1600e3, 6400e3])),
                               [256e3, 2e6, 4e6])
    np.testing.assert_allclose(credit_limit(np.array([0, 300e3]), PfcParams(credit_buffer=256e3)), [256e3, 0])


def test_ecmp_hash_is_seeded_uniform_and_polarizes_with_one_seed():
    n = 40_000
    src, dst = np.arange(n) % 97, np.arange(n) % 89
    sport = flow_sports(n, seed=1)
    assert sport.min() >= 49152 and sport.max() <= 65535
    h = hash5(src, dst, sport, np.full(n, 7, np.uint64))
    counts = np.bincount((h % np.uint64(4)).astype(int), minlength=4)
    assert np.all(np.abs(counts - n / 4) < 0.03 * n / 4)
    assert np.array_equal(h, hash5(src, dst, sport, np.full(n, 7, np.uint64)))
    assert not np.array_equal(h, hash5(src, dst, sport, np.full(n, 8, np.uint64)))
    same = switch_seeds(np.array([3, 9]), 5, True)
    per = switch_seeds(np.array([3, 9]), 5, False)
    assert same[0] == same[1] and per[0] != per[1]


def test_dcqcn_limits():
    prm = DcqcnParams()
    x = np.array([40.0])
    # no marking: rate stays at line rate, α decays
    rc, rt, a = dcqcn_step(x, x, np.ones(1), x, np.zeros(1), x, 1e-6, prm)
    assert rc[0] == pytest.approx(40.0, rel=1e-12) and a[0] < 1.0
    # certain marking: the rate drops by Rc·α/(2τ)·dt
    rc, rt, a = dcqcn_step(x, x, np.ones(1), x, np.ones(1), x, 1e-6, prm)
    assert rc[0] == pytest.approx(40.0 * (1 - 1e-6 / (2 * 50e-6)), rel=1e-9)
    # never below the floor nor above line rate
    rc, rt, a = dcqcn_step(np.array([0.01]), np.array([0.01]), np.ones(1), np.array([0.01]),
                           np.ones(1), x, 1e-3, prm)
    assert rc[0] == pytest.approx(prm.min_gbps)
