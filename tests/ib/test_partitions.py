"""Partitions engine: membership resolution, P_Key tables as OpenSM 3.3.23 programs them,
who can talk, the ``partitions`` and ``route --dump-tables`` commands, lint, design storage.

The k=4 expectations come from a real OpenSM run (tests/ib/pkeys_k4_opensm.txt, read back
with smpquery under ibsim); test_pkeys_vs_opensm.py re-checks them live when OpenSM is here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabricviz.check.lint import lint
from fabricviz.cli import main
from fabricviz.formats.ibnetdiscover import export_ibnetdiscover, loads, sniff
from fabricviz.formats.native import load_fabric, save_fabric
from fabricviz.formats.partitions_conf import loads as conf_loads
from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib.partitions import design_partitions, resolve, to_meta
from fabricviz.ib.pkeys import IBSIM, can_talk, compute_tables, peer_table, port_table, shared_pkeys
from fabricviz.ib.subnet import discover

HERE = Path(__file__).resolve().parent


def _k4():
    text = export_ibnetdiscover(k_ary_fat_tree(4))
    return text, loads(text, "export.net", dialect=sniff(text))


def _read_tables(text: str) -> dict[str, list[int]]:
    return {ln.split()[1]: [int(x, 16) for x in ln.split()[2:]]
            for ln in text.splitlines() if ln.startswith("pkey ")}


# ------------------------------------------------------------------ one port's table

def test_port_table_first_sweep_order():
    # pending order = partition order; the default P_Key keeps index 0 (0xffff was there)
    assert port_table([0x7FFF, 0x8100, 0x0001], 64) == ([0x7FFF, 0x8100, 0x0001] + [0] * 61, [])
    # default full member: the entry becomes 0xffff in place
    assert port_table([0x0100, 0xFFFF], 8)[0] == [0xFFFF, 0x0100, 0, 0, 0, 0, 0, 0]


def test_port_table_existing_entries_keep_their_place():
    existing = [0xFFFF, 0, 0x8010, 0x0020]
    # 0x0020 and 0x8010 are "updated" (kept where they are), the new 0x0030 goes after the last
    tbl, dropped = port_table([0x7FFF, 0x8020, 0x0010, 0x0030], 8, existing)
    assert tbl == [0x7FFF, 0, 0x0010, 0x8020, 0x0030, 0, 0, 0] and dropped == []
    # a non-default P_Key at index 0 is moved (to index 1, the first after nothing placed),
    # and the default, found away from index 0, goes back to index 0
    tbl, _ = port_table([0x8005, 0x7FFF], 4, [0x8005, 0xFFFF])
    assert tbl == [0x7FFF, 0x8005, 0, 0]


def test_port_table_indx0_and_overflow():
    tbl, _ = port_table([0x7FFF, 0x8010], 4, indx0=0x8010)
    assert tbl == [0x8010, 0x7FFF, 0, 0]
    tbl, dropped = port_table([0x7FFF] + [0x100 + i for i in range(5)], 4)
    assert tbl == [0x7FFF, 0x100, 0x101, 0x102] and dropped == [0x103, 0x104]
    # a hole (an old entry whose P_Key is gone) is reused once the end is reached
    tbl, dropped = port_table([0x7FFF, 0x0200, 0x0300, 0x0400], 4, [0xFFFF, 0, 0x0200, 0x0300])
    assert tbl == [0x7FFF, 0x0400, 0x0200, 0x0300] and dropped == []


def test_peer_table_enforcement():
    tbl, on = peer_table([0x7FFF, 0, 0x8010, 0x0020] + [0] * 4, 64)
    assert tbl[:4] == [0x7FFF, 0x8010, 0x0020, 0] and on
    full = [0x100 + i for i in range(64)]
    assert peer_table(full, 64) == (full, False)          # exactly full: OpenSM clears enforcement
    assert peer_table([0x7FFF] + full, 64) == ([0x7FFF] + full[:63], False)
    assert peer_table(full[:40], 64)[1] is True


def test_shared_pkeys_needs_one_full_member():
    assert shared_pkeys([0x7FFF, 0x8010], [0x7FFF, 0x0010]) == [0x0010]
    assert shared_pkeys([0x7FFF, 0x0020], [0x7FFF, 0x0020]) == []
    assert shared_pkeys([0xFFFF], [0x7FFF]) == [0x7FFF]
    assert not can_talk([0x7FFF], [0x7FFF]) and can_talk([0x8005], [0x0005])


# ------------------------------------------------------------------ a whole subnet vs OpenSM

def test_k4_tables_equal_what_opensm_programmed(tmp_path):
    text, _ = _k4()
    topo = tmp_path / "k4.net"
    topo.write_text(text)
    out = tmp_path / "tables.txt"
    assert main(["route", str(topo), "--partitions", str(HERE / "pkeys_k4_partitions.conf"),
                 "--dump-tables", str(out)]) == 0
    ours = out.read_text().splitlines()
    theirs = [ln for ln in (HERE / "pkeys_k4_opensm.txt").read_text().splitlines() if ln.startswith("pkey")]
    assert ours == theirs
    assert len(ours) == 52
    assert ours[0] == "pkey 0xb83fd20300000101 0x7fff 0x0100 0x0001 0x0201 0x8010 0x8020"
    assert "pkey 0xb83fd20300000110:0 0xffff 0x8100" in ours          # the SM's switch: SELF=full


def test_no_file_and_empty_file_mean_everyone_full():
    _, g = _k4()
    sn = discover(g)
    for conf in (None, conf_loads("# nothing\n", "p")):
        t = compute_tables(sn, resolve(conf, sn), IBSIM)
        assert {tuple(v[:2]) for v in t.ca.values()} == {(0xFFFF, 0)}
        assert {tuple(v[:2]) for v in t.switch_ext.values()} == {(0xFFFF, 0)}


def test_resolution_rules():
    _, g = _k4()
    sn = discover(g)
    ca = [int(x) for x in sn.ca_guid.tolist()]
    conf = conf_loads(f"a=0x10 : ALL=full, 0x{ca[0]:x}=limited ;\n"        # later mention wins
                      f"a=0x10 : 0x{ca[1]:x}=limited ;\n"
                      f"b=0x20 : 0x{ca[2]:x}=both, 0xdead ;\n"              # both = full
                      "c=0x30 : ;\n"                                          # empty: dropped
                      "Default : SELF=limited ;\n", "p")                      # SM demoted
    res = resolve(conf, sn)
    by = res.by_pkey()
    assert sorted(by) == [0x10, 0x20, 0x7FFF]
    assert len(by[0x10].full) == 16 + 20 - 2 and by[0x10].limited == {ca[0], ca[1]}
    assert by[0x20].full == {ca[2]} and res.unknown == [(0xDEAD, 3)]
    assert res.sm_guid in by[0x7FFF].limited and not by[0x7FFF].full
    assert [p.pkey for p in res.partitions] == [0x10, 0x20, 0x7FFF]   # network byte order


# ------------------------------------------------------------------ commands, storage, lint

def _design(tmp_path: Path, conf_text: str) -> tuple[Path, Path]:
    design = tmp_path / "k4.json"
    save_fabric(k_ary_fat_tree(4), design)
    conf = tmp_path / "p.conf"
    conf.write_text(conf_text)
    return design, conf


def test_partitions_command(tmp_path, capsys):
    f = k_ary_fat_tree(4)
    sn = discover(f)
    names = {int(g): f.name_of(int(f.devices_t.parent[int(f.ports_t.device[int(p)])]))
             for g, p in zip(sn.ca_guid.tolist(), sn.ca_ports.tolist(), strict=True)}
    guid = {v: k for k, v in names.items()}
    text = (f"blue=0x0010 : 0x{guid['node01']:x}=full, 0x{guid['node02']:x}, 0x{guid['node03']:x} ;\n"
            f"red=0x0020 : 0x{guid['node02']:x}, 0x{guid['node03']:x} ;\n")
    design, conf = _design(tmp_path, text)
    assert main(["partitions", str(design), "--conf", str(conf), "--who-can-reach", "node02"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"3 partitions on 36 end ports (partitions from {conf})",
                   "0x0010  blue     full 1, limited 2",
                   "0x0020  red      full 0, limited 2",
                   "0x7fff  Default  full 1, limited 35",
                   "node02 can talk to 1 host:",
                   "  node01  via 0x0010, 0x7fff"]      # node01 runs the SM: full in Default
    assert main(["partitions", str(design), "--conf", str(conf), "--json", "--who-can-reach", "node01"]) == 0
    doc = json.loads(capsys.readouterr().out)
    hosts = doc["who_can_reach"]["hosts"]
    assert len(hosts) == 15 and hosts[:3] == [{"host": "node02", "pkeys": ["0x0010", "0x7fff"]},
                                              {"host": "node03", "pkeys": ["0x0010", "0x7fff"]},
                                              {"host": "node04", "pkeys": ["0x7fff"]}]
    # stored in the design: the next run needs no --conf, and lint sees them
    assert main(["partitions", str(design), "--conf", str(conf), "--store"]) == 0
    capsys.readouterr()
    assert main(["partitions", str(design), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["partitions"][0] == {
        "name": "blue", "pkey": "0x0010", "ipoib": False, "full": 1, "limited": 2}
    rep = lint(load_fabric(design))
    assert [x.message for x in rep.by_rule("partition-limited-only")] == \
        ["all 2 members are limited: no two of them can talk"]
    assert rep.by_rule("partition-default-only")[0].message == \
        "13 host port(s) in no partition but the default 0x7fff"


def test_bad_conf_exits_2_with_one_line(tmp_path, capsys):
    design, conf = _design(tmp_path, "a=0x10 : ALL ;\nb=0x20 ALL ;\n")
    for argv in (["partitions", str(design), "--conf", str(conf)],
                 ["route", str(design), "--partitions", str(conf), "--dump-tables", str(tmp_path / "t")]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"fabricviz: error: {conf}:2: no partition definition found")
        assert "\n" not in err
    assert not (tmp_path / "t").exists()


def test_native_round_trip_exact(tmp_path):
    f = k_ary_fat_tree(4)
    conf = conf_loads("Default=0x7fff,ipoib : ALL=full ;\nx=0x8012, mtu=4 :\n mgid=ff12:401b::1\n 0x5=both ;\n", "p")
    f.meta["partitions"] = to_meta(conf)
    path = tmp_path / "a.json"
    save_fabric(f, path)
    g = load_fabric(path)
    assert g.meta == f.meta
    back = design_partitions(g.meta)
    assert back is not None
    assert [(p.name, p.pkey, p.members, p.flags, p.mgroups) for p in back.statements] == \
        [(p.name, p.pkey, p.members, p.flags, p.mgroups) for p in conf.statements]
    save_fabric(g, tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_lint_unknown_guid_and_capacity():
    f = k_ary_fat_tree(4)
    sn = discover(f)
    victim = int(sn.ca_guid[0])
    text = "ghost=0x0005 : 0x1234=full ;\n" + "".join(
        f"p{i}=0x{0x100 + i:04x} : 0x{victim:x}=full ;\n" for i in range(130))
    f.meta["partitions"] = to_meta(conf_loads(text, "p"))
    rep = lint(f)
    assert [x.message for x in rep.by_rule("partition-unknown-guid")] == \
        ["1 member GUID(s) match no end port; OpenSM ignores them: 0x0000000000001234"]
    cap = rep.by_rule("partition-pkey-capacity")
    assert [x.message for x in cap] == ["in up to 131 partitions; a ConnectX port holds 128 P_Keys "
                                        "(OpenSM drops the rest, ERR 0512)"]
    assert cap[0].severity == "error"
    assert lint(k_ary_fat_tree(4)).by_rule("partition-unknown-guid") == []   # no partitions: no rule


@pytest.mark.parametrize("bad", [{"statements": "x"}, {"statements": [{"name": "a", "pkey": "0x0"}]},
                                 {"statements": [{"name": "a", "pkey": "0x10", "members": [["ALLX", "full"]]}]}])
def test_bad_meta_is_reported_not_raised(bad):
    f = k_ary_fat_tree(4)
    f.meta["partitions"] = bad
    found = lint(f).by_rule("partition-unknown-guid")
    assert len(found) == 1 and found[0].message.startswith("partitions not checked: meta.partitions")


def test_store_needs_a_design_file(tmp_path, capsys):
    text, _ = _k4()
    topo = tmp_path / "k4.net"
    topo.write_text(text)
    conf = tmp_path / "p.conf"
    conf.write_text("a=0x10 : ALL=full ;\n")
    assert main(["partitions", str(topo), "--conf", str(conf), "--store"]) == 2
    assert capsys.readouterr().err.strip() == \
        f"fabricviz: error: {topo}: --store needs a fabricviz design file, not ibnetdiscover"
    assert topo.read_text() == text


def test_dump_tables_without_partitions_is_opensm_with_no_file(tmp_path):
    text, _ = _k4()
    topo = tmp_path / "k4.net"
    topo.write_text(text)
    assert main(["route", str(topo), "--dump-tables", str(tmp_path / "t")]) == 0
    tables = _read_tables((tmp_path / "t").read_text())
    assert len(tables) == 52 and set(map(tuple, tables.values())) == {(0xFFFF,)}


def test_route_warns_about_unknown_guids_and_full_tables(tmp_path, capsys):
    text, g = _k4()
    topo = tmp_path / "k4.net"
    topo.write_text(text)
    victim = int(discover(g).ca_guid[0])
    conf = tmp_path / "p.conf"
    conf.write_text("x=0x0005 : 0x1234=full ;\n" + "".join(
        f"p{i}=0x{0x100 + i:04x} : 0x{victim:x}=full ;\n" for i in range(130)))
    lfts = tmp_path / "lfts.dump"
    assert main(["route", str(topo), "--partitions", str(conf), "--dump-tables", str(tmp_path / "t"),
                 "--dump-lfts", str(lfts)]) == 0
    warn = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("warning:")]
    assert warn == [
        "warning: partitions: port GUID 0x0000000000001234 (line 1) is no end port of the subnet; ignored",
        f"warning: 0x{victim:016x}: P_Key table full, 3 P_Key(s) not programmed: 0x817f, 0x8180, 0x8181",
        f"warning: 0x{_peer(g, victim)}: switch P_Key table too small, partition enforcement off"]
    # a bad file: exit 2 and no file written at all
    conf.write_text("a=0x10 : ALL ;\nb=0x10000 : ALL ;\n")
    for out in (lfts, tmp_path / "t"):
        out.unlink()
    assert main(["route", str(topo), "--partitions", str(conf), "--dump-tables", str(tmp_path / "t"),
                 "--dump-lfts", str(lfts)]) == 2
    assert not lfts.exists() and not (tmp_path / "t").exists()


def _peer(g, guid: int) -> str:
    sn = discover(g)
    i = sn.ca_guid.tolist().index(guid)
    return f"{int(sn.sw_guid[int(sn.ca_sw[i])]):016x}:{int(sn.ca_sw_port[i])}"
