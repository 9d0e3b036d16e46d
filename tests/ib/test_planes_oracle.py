"""One subnet manager per plane, checked by OpenSM itself: every plane of a multi-plane design,
exported alone as ibnetdiscover output (``convert --plane K``), routed by the real OpenSM under
ibsim, gives LFTs equal entry for entry to fabricviz's routing of that plane (``route --plane K``).

The designs: ``generate rail --units 1 --planes 2`` (32 DGX B300, every ConnectX-8 split 2 × 2xXDR;
per plane 8 leaves and 4 spines of Quantum-X800 at 400G, 256 CA ports) and ``generate superpod
--system dgx-b300 --units 1 --planes 2`` (the RA's twin-planar SU: 64 DGX B300, per plane 8 leaves
of 64 nodes and 4 spines, 512 CA ports)."""

from __future__ import annotations

import pytest

from fabricviz.formats.ibnetdiscover import export_ibnetdiscover
from fabricviz.generate import rail_optimized, superpod
from fabricviz.ib.planes import route_plane
from fabricviz.model.planes import plane_fabric
from tests.ib import oracle

pytestmark = pytest.mark.oracle


DESIGNS = {"rail": lambda: rail_optimized(1, planes=2), "b300": lambda: superpod("dgx-b300", 1, planes=2)}
_built: dict = {}
#: entries compared per engine: switches × LIDs (CA ports + switches); updn and ftree leave each
#: switch's own LID unset on both sides
COMPARED = {"rail": {"minhop": 12 * 268, "updn": 12 * 267, "ftree": 12 * 267},
            "b300": {"minhop": 12 * 524, "updn": 12 * 523, "ftree": 12 * 523}}


@pytest.mark.parametrize("plane", [0, 1])
@pytest.mark.parametrize("engine", ["minhop", "updn", "ftree"])
@pytest.mark.parametrize("name", ["rail", "b300"])
def test_each_plane_routes_as_opensm_on_that_plane_alone(name, plane, engine, tmp_path):
    reason = oracle.opensm_available()
    if reason:
        pytest.skip(reason)
    design = _built.setdefault(name, DESIGNS[name]())
    text = export_ibnetdiscover(plane_fabric(design, plane))
    # each plane's SM on that plane's first leaf, as ibsim puts it on the file's first node (an SM
    # on a managed switch, as Quantum-X800 switches run one)
    leaf = design.settings.planes.planes[plane].switches[0]
    assert text.split("Switch", 1)[1].split("\n", 1)[0].endswith(f'# "{leaf}" enhanced port 0 lid 0 lmc 0')
    pr = route_plane(design, plane, engine, sm=leaf)
    res = oracle.run_opensm(text, engine, tmp_path / f"{engine}-{plane}")
    assert pr.routing.routed_by == res.routed_by == engine
    assert len(res.switches) == pr.routing.subnet.num_switches == 12
    compared, diff = oracle.lft_differences(pr.routing.subnet, pr.routing.lft, res)
    assert compared == COMPARED[name][engine]
    assert diff == [], f"plane {plane}: {len(diff)}/{compared} entries differ: {diff[:5]}"
