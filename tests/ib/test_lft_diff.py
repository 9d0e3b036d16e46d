"""LFT diffs and LID owners as arrays (fabricviz.ib.lft_diff), on a k=4 fat tree (20 switches,
16 HCAs, 36 LIDs) before and after leaf01's uplink to spine01 is pulled.

Expected counts are checked twice: exact numbers, and a plain loop that matches the switches of
both routings by GUID and compares their LFT rows LID by LID.
"""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib.lft_diff import lft_changes, lid_destinations
from fabricviz.ib.routing import route


@pytest.fixture(scope="module")
def before_after():
    f = k_ary_fat_tree(4)
    r = route(f)
    c = f.port("leaf01:3").cable.id
    assert f.port("leaf01:3").peer.name == "spine01:1"
    g = f.copy()
    g.remove_cables([c])
    return f, r, g, route(g, previous=r)


def naive_changes(new, old):
    """Entries and switches whose LFT differ, switch by switch (by GUID), LID by LID."""
    old_rows = {int(g): old.lft[i] for i, g in enumerate(old.subnet.sw_guid.tolist())}
    entries, switches = 0, 0
    for i, guid in enumerate(new.subnet.sw_guid.tolist()):
        row = new.lft[i]
        prev = old_rows.get(int(guid), np.full(0, 255, np.uint8))
        n = 0
        for lid in range(max(len(row), len(prev))):
            a = int(row[lid]) if lid < len(row) else 255
            b = int(prev[lid]) if lid < len(prev) else 255
            n += a != b
        entries += n
        switches += n > 0
    return entries, switches


def test_a_pulled_uplink_changes_49_entries_on_10_switches(before_after):
    f, r, g, r2 = before_after
    assert r.lft.shape == (20, 37) and r2.lids.ca_lid.tolist() == r.lids.ca_lid.tolist()   # LIDs kept
    assert lft_changes(r2, r) == (49, 10) == naive_changes(r2, r)
    # back: the cable returns; the re-sweep keeps still-least-hop entries, so the diff is its own
    r3 = route(f, previous=r2)
    assert lft_changes(r3, r2) == naive_changes(r3, r2)
    assert lft_changes(r3, r2)[0] > 0


def test_no_previous_is_none_and_the_same_routing_changes_nothing(before_after):
    _f, r, _g, r2 = before_after
    assert lft_changes(r, None) is None
    assert lft_changes(r, r) == (0, 0) and lft_changes(r2, r2) == (0, 0)


def test_lid_destinations_are_lid_owner_sorted(before_after):
    f, r, _g, _r2 = before_after
    lids, is_sw, idx = lid_destinations(r)
    assert len(lids) == 36 and int(is_sw.sum()) == 20 and lids.tolist() == list(range(1, 37))
    owner = r.lid_owner()
    assert {int(x): ("sw" if s else "ca", int(i)) for x, s, i in zip(lids, is_sw, idx, strict=True)} == owner
