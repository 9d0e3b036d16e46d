"""Super-spines come in planes: spine i of every pod is cabled to super-spine plane i only."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.generate import leaf_spine
from fabricviz.model import FabricError


def _links(f, a_name, b_prefix):
    """Cables from device ``a_name`` to devices whose name starts with ``b_prefix``, by peer name."""
    ct, pt = f.cables_t, f.ports_t
    live = np.flatnonzero(ct.alive)
    a, b = pt.device[ct.port_a[live]], pt.device[ct.port_b[live]]
    d = f.find(a_name)
    peers = np.concatenate([b[a == d], a[b == d]])
    names = [f.name_of(int(x)) for x in peers]
    out: dict[str, int] = {}
    for n in names:
        if n.startswith(b_prefix):
            out[n] = out.get(n, 0) + 1
    return out


def test_spine_i_of_every_pod_goes_to_plane_i():
    # 3 pods of 4 leaves and 2 spines (4 uplinks a leaf), 4 super-spines: planes {01,02} and {03,04}
    f = leaf_spine(4, 2, 8, uplinks=4, super_spines=4, pods=3)
    for pod in (1, 2, 3):
        assert _links(f, f"pod{pod}-spine01", "superspine") == {"superspine01": 2, "superspine02": 2}
        assert _links(f, f"pod{pod}-spine02", "superspine") == {"superspine03": 2, "superspine04": 2}
    for ss in ("superspine01", "superspine02"):
        assert _links(f, ss, "pod") == {"pod1-spine01": 2, "pod2-spine01": 2, "pod3-spine01": 2}
    # port counts: a super-spine uses pods × spines = 6 ports (a full mesh would need 12)
    ports = f.ports_t
    for i in range(1, 5):
        d = f.find(f"superspine{i:02d}")
        first, n = int(f.devices_t.first_port[d]), int(f.devices_t.nports[d])
        assert int(np.count_nonzero(ports.cable[first:first + n] >= 0)) == 6
    assert f.counts()["cables"] == 96 + 3 * 4 * 4 + 3 * 2 * 4


def test_fewer_super_spines_than_spines_take_spines_by_plane():
    f = leaf_spine(8, 4, 8, super_spines=2, pods=2)
    assert _links(f, "superspine01", "pod") == {"pod1-spine01": 2, "pod1-spine03": 2,
                                                "pod2-spine01": 2, "pod2-spine03": 2}
    assert _links(f, "pod2-spine04", "superspine") == {"superspine02": 2}


def test_super_spines_that_fit_no_plane_are_refused():
    with pytest.raises(FabricError, match="super-spines 3: .* divide, or be a multiple of, the 2 spines"):
        leaf_spine(4, 2, 8, super_spines=3, pods=2)
