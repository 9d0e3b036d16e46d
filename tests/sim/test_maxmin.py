"""Max-min fair share: V1 parking lots exactly, agreement with textbook filling, conservation."""

import numpy as np
import scipy.sparse as sp

from fabricviz.sim.maxmin import maxmin


def _solve(rows, caps, demand=None, weight=None):
    A = sp.csr_matrix(np.array(rows, float))
    return maxmin(A, np.array(caps, float), demand, weight)


def test_v1_parking_lot_three_links_all_half():
    res = _solve([[1, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]], [1, 1, 1])
    np.testing.assert_allclose(res.rate, [0.5, 0.5, 0.5, 0.5], rtol=0, atol=1e-15)


def test_v1_two_links_unequal_load():
    res = _solve([[1, 1], [1, 0], [1, 0], [0, 1]], [1, 1])
    np.testing.assert_allclose(res.rate, [1 / 3, 1 / 3, 1 / 3, 2 / 3], rtol=0, atol=1e-15)


def test_v1_two_links_unequal_capacity():
    res = _solve([[1, 1], [1, 0], [0, 1]], [1, 2])
    np.testing.assert_allclose(res.rate, [0.5, 0.5, 1.5], rtol=0, atol=1e-15)


def test_demand_caps_and_weights():
    # flow 0 capped at 0.2: the other two share the rest of the link
    res = _solve([[1], [1], [1]], [1], demand=[0.2, np.inf, np.inf])
    np.testing.assert_allclose(res.rate, [0.2, 0.4, 0.4])
    assert res.bottleneck[0] == -1 and res.bottleneck[1] == 0
    # weighted: 1 flow of weight 1 vs 1 flow of weight 3 on one link
    res = _solve([[1], [1]], [4], weight=[1, 3])
    np.testing.assert_allclose(res.rate, [1, 3])


def _reference(A, cap, demand):
    """Textbook progressive filling: raise all, freeze at the first full link (dense, slow)."""
    A = A.toarray()
    F, L = A.shape
    rate = np.zeros(F)
    active = np.ones(F, bool)
    rem = cap.astype(float).copy()
    while active.any():
        n = A[active].sum(0)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(n > 0, rem / n, np.inf)
        s = min(share.min(), (demand[active] - rate[active]).min())
        rate[active] += s
        rem -= s * n
        full = (n > 0) & (rem <= 1e-9 * cap)
        frz = active & ((A[:, full].sum(1) > 0) | (rate >= demand - 1e-12))
        active &= ~frz
    return rate


def test_agrees_with_textbook_filling_on_random_instances():
    rng = np.random.default_rng(7)
    for trial in range(30):
        F, L = rng.integers(5, 60), rng.integers(3, 25)
        dense = (rng.random((F, L)) < 0.2) * rng.choice([1.0, 0.5, 0.25], (F, L))
        dense[np.arange(F), rng.integers(0, L, F)] = 1.0          # every flow crosses a link
        cap = rng.choice([1.0, 2.0, 0.5, 4.0], L)
        demand = np.where(rng.random(F) < 0.3, rng.random(F), np.inf)
        A = sp.csr_matrix(dense)
        got = maxmin(A, cap, demand)
        want = _reference(A, cap, demand)
        np.testing.assert_allclose(got.rate, want, rtol=1e-9, atol=1e-12, err_msg=f"trial {trial}")
        # conservation: no link above capacity, no flow above its demand
        assert np.all(got.link_load <= cap * (1 + 1e-12))
        assert np.all(got.rate <= demand * (1 + 1e-12))
        # max-min certificate: each flow is capped by its demand or crosses a full link
        # on which no flow gets more than it does
        full = got.link_load >= cap * (1 - 1e-9)
        for f in range(F):
            if got.rate[f] >= demand[f] * (1 - 1e-9):
                continue
            links = np.flatnonzero(dense[f] > 0)
            ok = [l for l in links if full[l] and got.rate[dense[:, l] > 0].max() <= got.rate[f] * (1 + 1e-9)]
            assert ok, f"flow {f} has no bottleneck"
