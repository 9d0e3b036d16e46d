"""fabricviz diff cross-checked with ibutils' ibtopodiff, an independent implementation.

The real fabric is a design exported to ibnetdiscover and brought up under ibsim; OpenSM's
``opensm-subnet.lst`` of it is what ``ibtopodiff -e`` reads as discovered. The design (possibly
edited: a cable removed or moved, on either side) goes to ibtopodiff as our ibdm topology export,
and to ``fabricviz diff`` as the design; the discovered fabric goes to fabricviz as the ibnetdiscover
file. Both reports are reduced to the same terms, the set of design links not found as designed and
the set of found links the design lacks (by design port names), and must be equal.

Hosts report NodeDescriptions ``nodeNN HCA-1``: ibtopodiff's edge match starts from hosts it
matches by name, and it only takes a host's name from a ``HOST HCA-N`` description.

Where ibtopodiff's edge heuristics cannot be compared (what it says is not what happened):
a host moved to another leaf leaves that leaf unmatched ("Hosts that should connect to switch … are
connecting to multiple switches") and two uplinks crossed between two spines leave both spines
unmatched ("There are:2 candidate discovered switches"); then it reports links of nodes it matched
wrongly. fabricviz matches those by GUID; those cases are in test_diff.py. Rates are not compared:
ibsim brings every link up 4x SDR whatever the file says, and ibdm knows no speed after QDR.
"""

import pytest

from fabricviz.check.diff import diff_fabrics
from fabricviz.formats.ibdm_topo_export import export_ibdm_topo, ibnl_dir, save
from fabricviz.formats.ibnetdiscover import export_ibnetdiscover, loads
from fabricviz.generate.fattree import fat_tree
from fabricviz.model.guid import format_guid
from tests.check.ibdm_oracle import (
    build_shim,
    from_fabricviz,
    from_ibtopodiff,
    ibdm_names,
    ibtopodiff,
    ibutils_missing,
)
from tests.ib.oracle import opensm_available, run_opensm

pytestmark = [pytest.mark.oracle, pytest.mark.slow]


def base():
    """Fat tree radix 8, 6 hosts (leaf02:3-4 and spine ports 3-8 free), hosts as ``nodeNN HCA-1``."""
    f = fat_tree(levels=2, radix=8, hosts=6)
    t = f.devices_t
    f.settings.set_node_descriptions({
        format_guid(int(t.guid[n.id])): (n.name, f"{n.parent.name} HCA-{int(t.local[n.id]) + 1}")
        for n in f.devices("nic")})
    return f


def move(f, port, to):
    p = f.port(port)
    far = p.peer.name
    f.remove_cables([p.cable.id])
    f.add_cable(far, to)


def unplug(f, port):
    f.remove_cables([f.port(port).cable.id])


#: case -> (edit of the design, edit of the real fabric, design links not as designed, extra found links)
CASES = {
    "as designed": (None, None, set(), set()),
    "design lacks an uplink": (lambda d: unplug(d, "leaf01:5"), None, set(), {("leaf01:5", "spine01:1")}),
    "design lacks a host cable": (lambda d: unplug(d, "leaf02:1"), None, set(),
                                  {("leaf02:1", "node05/mlx5_0:1")}),
    "an uplink missing in the fabric": (None, lambda r: unplug(r, "leaf01:6"), {("leaf01:6", "spine02:1")}, set()),
    "a host on another port of its leaf": (None, lambda r: move(r, "leaf02:1", "leaf02:3"),
                                           {("leaf02:1", "node05/mlx5_0:1")}, {("leaf02:3", "node05/mlx5_0:1")}),
    "an uplink on another port of its spine": (None, lambda r: move(r, "spine02:1", "spine02:5"),
                                               {("leaf01:6", "spine02:1")}, {("leaf01:6", "spine02:5")}),
    "the design moved a host, the fabric did not": (lambda d: move(d, "leaf02:2", "leaf02:4"), None,
                                                    {("leaf02:4", "node06/mlx5_0:1")},
                                                    {("leaf02:2", "node06/mlx5_0:1")}),
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    reason = ibutils_missing() or opensm_available()
    if reason:
        pytest.skip(f"ibtopodiff cross-check skipped: {reason}")
    folder = tmp_path_factory.mktemp("ibdm")
    runs: dict[str, object] = {}

    def discovered(real, key):
        """(opensm-subnet.lst path, the fabric read back from the ibnetdiscover file) of ``real``."""
        if key not in runs:
            text = export_ibnetdiscover(real)
            run_dir = folder / f"osm-{len(runs)}"
            run_opensm(text, "minhop", run_dir)
            runs[key] = (run_dir / "opensm-subnet.lst", loads(text, "discovered.ibnd"))
        return runs[key]

    return folder, build_shim(folder), discovered


def both(tools, design, real, key, topo_text=None):
    folder, shim, discovered = tools
    lst, found = discovered(real, key)
    topo_path = folder / "design.ibdm.topo"
    save(design, topo_path)
    if topo_text is not None:
        topo_path.write_text(topo_text)
    names = ibdm_names(export_ibdm_topo(design), design)
    theirs = from_ibtopodiff(ibtopodiff(topo_path, ibnl_dir(topo_path), lst, shim, folder), names)
    ours = from_fabricviz(diff_fabrics(design, found))
    return ours, theirs


@pytest.mark.parametrize("case", list(CASES))
def test_fabricviz_diff_and_ibtopodiff_report_the_same_links(tools, case):
    edit_design, edit_real, unrealised, extra = CASES[case]
    design, real = base(), base()
    if edit_design:
        edit_design(design)
    if edit_real:
        edit_real(real)
    ours, theirs = both(tools, design, real, "real" if edit_real is None else case)
    assert theirs.other == [] and ours.other == []
    assert (ours.unrealised, ours.extra) == (unrealised, extra)
    assert (theirs.unrealised, theirs.extra) == (unrealised, extra)
    assert theirs.ports_ok == ours.ports_ok          # both ends of each cable found as designed


def test_a_broken_export_is_caught_by_ibtopodiff(tools):
    """The check can fail: our export with one port number wrong disagrees with the fabric."""
    design = base()
    text = export_ibdm_topo(design).topo
    bad = (text.replace("P5 -4x-> QM9700-R8 spine01 P1", "P5 -4x-> QM9700-R8 spine01 P3")
           .replace("P1 -4x-> QM9700-R8 leaf01 P5", "P3 -4x-> QM9700-R8 leaf01 P5"))
    assert bad.count("spine01 P3") == 1 and bad.count("P3 -4x-> QM9700-R8 leaf01 P5") == 1
    ours, theirs = both(tools, design, base(), "real", topo_text=bad)
    assert (ours.unrealised, ours.extra) == (set(), set())
    assert (theirs.unrealised, theirs.extra) == ({("leaf01:5", "spine01:3")}, {("leaf01:5", "spine01:1")})
