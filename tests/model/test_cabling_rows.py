"""The cable-part choice groups new cables by (tech, speed, width, millimetres) with one packed
1-D sort (a 98,304-GPU Clos's 294,912 cables: 0.35 s → 5 ms); the groups, their order and each
cable's group are np.unique's over the rows, also where a row does not pack (the fallback)."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.model.cabling import unique_rows


@pytest.mark.parametrize("mm_high", [5_000, 1 << 36, 1 << 40])
def test_packed_rows_are_numpys_unique_rows(mm_high):
    rng = np.random.default_rng(7)
    n = 5000
    keys = np.stack([rng.integers(0, 3, n), rng.integers(0, 256, n), rng.integers(0, 4, n),
                     rng.integers(0, mm_high, n)], axis=1).astype(np.int64)
    keys[::7] = keys[3]                                  # repeated rows
    want_u, want_inv = np.unique(keys, axis=0, return_inverse=True)
    u, inv = unique_rows(keys)
    assert np.array_equal(u, want_u) and np.array_equal(inv, want_inv.ravel())
    assert len(u) < n


def test_rows_that_do_not_pack_take_numpys_way():
    keys = np.array([[1, 2, 3, -5], [1, 2, 3, 7], [0, 300, 1, 7], [1, 2, 3, -5]], np.int64)
    u, inv = unique_rows(keys)
    assert u.tolist() == [[0, 300, 1, 7], [1, 2, 3, -5], [1, 2, 3, 7]] and inv.tolist() == [1, 2, 0, 1]
    u, inv = unique_rows(np.zeros((0, 4), np.int64))
    assert u.shape == (0, 4) and inv.tolist() == []
