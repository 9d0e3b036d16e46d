"""The ibdm topology export (ibutils' ibdm.topo + IBNL system definitions), checked by ibdm itself:
``ibdmchk -t`` builds the cluster from it, assigns LIDs, routes every CA to CA path and looks for
credit loops; a broken export is refused. (Its agreement with the discovered fabric is checked with
``ibtopodiff`` in tests/check/test_diff_vs_ibtopodiff.py.)"""

import re

import pytest

from fabricviz.cli import main
from fabricviz.formats.ibdm_topo_export import export_ibdm_topo, ibnl_dir, save
from fabricviz.formats.native import save_fabric
from fabricviz.generate.fattree import fat_tree
from fabricviz.generate.rail import rail_optimized
from fabricviz.model import Fabric, FabricError
from tests.check.ibdm_oracle import ibdmchk, ibutils_missing


def tiny():
    f = Fabric(name="tiny")
    f.add_device("ib_switch", "QM9700", "my leaf", guid=0x10)
    dgx = f.add_device("server", "DGX-H100", "dgx01")
    f.add_device("nic", "CX7-1P", "lone", guid=0x20)
    f.add_device("nic", "CX7-1P", "b07-p1 HCA-2", guid=0x30)
    for i, nic in enumerate(f.device(dgx).nics[:2]):
        f.add_cable(f"{nic.name}:1", f"my leaf:{i + 1}")
    f.add_cable("lone:1", "my leaf:3")
    f.add_cable("b07-p1 HCA-2:1", "my leaf:4")
    f.set_port_rate(f.port("my leaf:4").id, "1xQDR")
    return f


def test_systems_ports_and_rates_as_ibdm_reads_them():
    t = export_ibdm_topo(tiny())
    assert t.topo.splitlines()[2:] == [
        "",
        "CX7-1P b07-p1",                          # "HOST HCA-N": node UN of system HOST
        "   P1 -1x-10G-> QM9700 my_leaf P4",       # 1x QDR: ibdm's 1x and 10 Gb/s lanes
        "",
        "CX7-1P-x8 dgx01",                        # a server's NICs: nodes U1..U8 of one system
        "   U1/P1 -4x-> QM9700 my_leaf P1",        # NDR: no speed ibdm knows, width only
        "   U2/P1 -4x-> QM9700 my_leaf P2",
        "",
        "CX7-1P-2 lone",                          # same part, another node layout: another type
        "   P1 -4x-> QM9700 my_leaf P3",
        "",
        "QM9700 my_leaf",                         # a space is no part of an ibdm name
        "   P1 -4x-> CX7-1P-x8 dgx01 U1/P1",
        "   P2 -4x-> CX7-1P-x8 dgx01 U2/P1",
        "   P3 -4x-> CX7-1P-2 lone P1",
        "   P4 -1x-10G-> CX7-1P b07-p1 P1",
    ]
    assert sorted(t.ibnl) == ["CX7-1P", "CX7-1P-2", "CX7-1P-x8", "QM9700"]
    assert t.ibnl["CX7-1P"] == "TOPSYSTEM CX7-1P\n\nNODE CA 1 CX7-1P U2\n   1 -> P1\n"
    assert t.ibnl["QM9700"].splitlines()[:4] == ["TOPSYSTEM QM9700", "", "NODE SW 64 QM9700 U1", "   1 -> P1"]
    assert len(t.ibnl["QM9700"].splitlines()) == 3 + 64
    assert t.ibnl["CX7-1P-x8"].count("NODE CA 1 CX7-1P U") == 8
    assert "   1 -> U8/P1" in t.ibnl["CX7-1P-x8"]
    f = tiny()
    assert t.port_names[f.port_id("my leaf:4")] == "my_leaf/P4"
    assert t.port_names[f.port_id("dgx01/mlx5_1:1")] == "dgx01/U2/P1"
    assert t.node_names[f.find("b07-p1 HCA-2")] == "b07-p1/U2"


def test_convert_writes_the_topology_and_its_ibnl_files(tmp_path, capsys):
    src = tmp_path / "tiny.json"
    save_fabric(tiny(), src)
    out = tmp_path / "tiny.ibdm.topo"
    assert main(["convert", str(src), str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {out} (ibdm-topo): ")
    assert out.read_text() == export_ibdm_topo(tiny()).topo
    assert sorted(p.name for p in ibnl_dir(out).iterdir()) == ["CX7-1P-2.ibnl", "CX7-1P-x8.ibnl", "CX7-1P.ibnl",
                                                               "QM9700.ibnl"]


@pytest.fixture(scope="module")
def checker():
    reason = ibutils_missing()
    if reason:
        pytest.skip(f"ibdmchk check skipped: {reason}")
    return ibdmchk


def report(text):
    """ibdmchk's -I-/-E- lines (not its -W- Unused port lines: a switch with free ports is fine)."""
    return [ln for ln in text.splitlines() if ln.startswith(("-I-", "-E-"))]


@pytest.mark.oracle
@pytest.mark.parametrize("make,sm,systems,cas", [
    (lambda: fat_tree(levels=2, radix=8, hosts=8), "leaf01/U1", "14/14", 8),
    (lambda: rail_optimized(units=1, nodes_per_unit=4), "su1-dgx01/U1", "16/44", 32),
])
def test_ibdmchk_builds_routes_and_checks_the_exported_cluster(checker, tmp_path, make, sm, systems, cas):
    topo = tmp_path / "design.ibdm.topo"
    save(make(), topo)
    _rc, out = checker(topo, ibnl_dir(topo), sm, tmp_path)    # it crashes as it exits, after its report
    lines = report(out)
    assert [ln for ln in lines if ln.startswith("-E-")] == []
    assert f"-I- Defined {systems} systems/nodes " in lines
    assert f"-I- Scanned:{cas * (cas - 1)} CA to CA paths " in lines
    assert lines[-1] == "-I- no credit loops found"


@pytest.mark.oracle
def test_ibdmchk_refuses_a_broken_export(checker, tmp_path):
    """The check can fail: a port the system does not have, and a type with no IBNL file."""
    topo = tmp_path / "design.ibdm.topo"
    save(fat_tree(levels=2, radix=8, hosts=8), topo)
    good = topo.read_text()
    topo.write_text(good.replace("P1 -4x-> QM9700-R8 leaf01 P1", "P9 -4x-> QM9700-R8 leaf01 P1"))
    rc, out = checker(topo, ibnl_dir(topo), "leaf01/U1", tmp_path)
    assert rc == 1 and "-E- Fail to parse topology file:" in out
    assert re.search(r"-E- Fail to make (cable|system)", out)
    topo.write_text(good)
    (ibnl_dir(topo) / "CX7-1P.ibnl").unlink()
    rc, out = checker(topo, ibnl_dir(topo), "leaf01/U1", tmp_path)
    assert rc == 1 and "-E- Fail to find System class:CX7-1P" in out


def test_a_topology_that_cannot_be_written_leaves_no_ibnl_files_behind(tmp_path):
    out = tmp_path / "taken.ibdm.topo"
    out.mkdir()                                   # a directory where the file should go
    with pytest.raises(FabricError, match=f"^{re.escape(str(out))}: cannot save: "):
        save(tiny(), out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken.ibdm.topo"]
