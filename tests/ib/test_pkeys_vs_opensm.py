"""Differential test: P_Key tables from ``route --dump-tables`` against the real OpenSM.

A k=4 fat tree (fabricviz.generate) is exported to ibnetdiscover, run under ibsim
with OpenSM 3.3.23 and a partitions.conf of our own, and every CA port's, every
switch port 0's and every switch port facing a CA's P_Key table is read back
with ``smpquery pkeys`` (tests/ib/pkey_oracle.py) and compared entry for entry
with fabricviz's. GUIDs are the ones ibsim presents (CA port N = node GUID + N),
which is what the export re-imported gives, as in test_vs_opensm.py.
Skipped (with the apt-get line) when OpenSM, ibsim or smpquery is missing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fabricviz.cli import main
from fabricviz.formats.ibnetdiscover import export_ibnetdiscover, loads, sniff
from fabricviz.formats.partitions_conf import loads as conf_loads
from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib.partitions import resolve
from fabricviz.ib.pkeys import IBSIM, compute_tables
from fabricviz.ib.subnet import discover
from fabricviz.model import FabricError
from tests.ib import pkey_oracle


@pytest.fixture(scope="module")
def live():
    reason = pkey_oracle.pkeys_available()
    if reason:
        pytest.skip(reason)
    return True


def _conf(g: list[int]) -> str:
    """Several partitions: full and limited members, ALL_CAS / ALL_SWITCHES / SELF / GUIDs,
    the default partition, P_Keys whose network-order sort differs from numeric order,
    a merged partition, an automatic P_Key, an empty and an unknown-GUID-only partition."""
    x = [f"0x{v:016x}" for v in g]
    return f"""# fabricviz differential test
Default=0x7fff, ipoib : ALL=limited, SELF=full ;
compute=0x0010, ipoib, defmember=full : ALL_CAS ;
storage=0x8020 : {x[0]}=full, {x[1]}, {x[2]}=both,
    {x[3]}=limited, {x[4]} ;
mgmt=0x0100 : ALL_SWITCHES=full, {x[0]}, {x[4]}=full ;   # sorts first in OpenSM's map
tenantA=0x0201 : {x[5]}=full, {x[6]}=full, {x[7]}, {x[0]} ;
tenantA=0x0201 : {x[7]}=full ;
lonely=0x0300 : {x[8]}, {x[9]} ; auto : {x[10]}=full, {x[0]}=limited ;
empty=0x0400 : ;
ghost=0x0500 : 0x1234=full ;
Default : {x[11]}=full ;
"""


def _quirks(g: list[int]) -> str:
    """What OpenSM's parser does that a reader may not expect: prefixes for keywords and
    membership words, an empty membership word (full), the full bit in the file's P_Key,
    name lookups in map order, octal numbers, several statements on a line, no final ';'."""
    x = [f"0x{v:016x}" for v in g]
    return f"""a=0x0001 : ALL_C=f, {x[0]}=lim ;
a=0x0200 : {x[1]}= , {x[2]}=xyz ; a : {x[3]}=full, {x[4]} ;
Default=0x8010 : {x[5]}=b ;
Default : {x[6]}=full ;
oct=0400, def=f :
  {x[7]},
  N, {x[8]}=l ; 12 : {x[9]}=full
"""


def _dump_tables(path: Path) -> dict[tuple[int, int | None], list[int]]:
    out: dict[tuple[int, int | None], list[int]] = {}
    for line in path.read_text().splitlines():
        word, port, *entries = line.split()
        assert word == "pkey"
        guid, _, num = port.partition(":")
        out[(int(guid, 16), int(num) if num else None)] = [int(e, 16) for e in entries]
    return out


def _trim(t: list[int]) -> list[int]:
    n = len(t)
    while n and not t[n - 1]:
        n -= 1
    return t[:n]


def _compare(ours: dict, theirs: dict) -> tuple[int, int, list]:
    """(ports compared, entries compared, differences)."""
    entries, diff = 0, []
    for key in sorted(set(ours) | set(theirs), key=str):
        a, b = ours.get(key), theirs.get(key)
        if a is None or b is None:
            diff.append((key, a, b))
            continue
        n = max(len(a), len(b))
        entries += n
        a2, b2 = a + [0] * (n - len(a)), b + [0] * (n - len(b))
        if a2 != b2:
            diff.append((key, [hex(v) for v in a], [hex(v) for v in b]))
    return len(set(ours) | set(theirs)), entries, diff


def run_case(conf_text: str | None, tmp_path: Path, sm_node: str | None = None, fabric=None):
    """Route the exported k=4 tree (or ``fabric``) with ``route --dump-tables`` and read back
    OpenSM's tables. ``sm_node``: a design node to run the SM on (exported first, where ibsim
    puts the SM)."""
    f = k_ary_fat_tree(4) if fabric is None else fabric
    if sm_node:
        f.meta["sm_node"] = sm_node
    text = export_ibnetdiscover(f)
    topo = tmp_path / "export.net"
    topo.write_text(text)
    g = loads(text, "export.net", dialect=sniff(text))
    sn = discover(g)
    ca = [int(x) for x in sn.ca_guid.tolist()]
    conf = {"mixed": _conf, "quirks": _quirks}[conf_text](ca) if conf_text in ("mixed", "quirks") \
        else conf_text
    args = ["route", str(topo), "--dump-tables", str(tmp_path / "tables.txt")]
    if conf is not None:
        (tmp_path / "partitions.conf").write_text(conf)
        args += ["--partitions", str(tmp_path / "partitions.conf")]
    assert main(args) == 0
    ours = _dump_tables(tmp_path / "tables.txt")
    sw_of = {(int(sn.sw_guid[int(s)]), int(p)) for s, p in zip(sn.ca_sw.tolist(), sn.ca_sw_port.tolist(), strict=True)}

    def queries(res):
        q = [(res.port_lids[c], None) for c in ca]
        q += [(res.port_lids[int(s)], 0) for s in sn.sw_guid.tolist()]
        q += [(res.port_lids[s], p) for s, p in sorted(sw_of)]
        return q

    res, tables = pkey_oracle.run_opensm_pkeys(text, conf, tmp_path / "osm", queries)
    lid_owner = {lid: guid for guid, lid in res.port_lids.items()}
    theirs = {}
    for (lid, port), t in tables.items():
        guid = lid_owner[lid]
        theirs[(guid, None if port is None else port)] = _trim(t)
    return ours, theirs, conf, sn


@pytest.mark.parametrize("case", ["mixed", "no-file", "comments-only", "sm-on-host", "quirks"])
@pytest.mark.oracle
def test_pkey_tables_match_opensm(live, case, tmp_path):
    conf = {"mixed": "mixed", "no-file": None, "comments-only": "# nothing here\n\n",
            "sm-on-host": "mixed", "quirks": "quirks"}[case]
    sm = "node05/mlx5_0" if case == "sm-on-host" else None
    ours, theirs, _, sn = run_case(conf, tmp_path, sm)
    if sm:       # SELF is that CA port: full in Default, and in "storage" via its GUID
        sm_guid = int(sn.fabric.ports_t.guid[sn.sm_port])
        assert ours[(sm_guid, None)][0] == 0xFFFF
    ports, entries, diff = _compare(ours, theirs)
    assert ports == 16 + 20 + 16          # CA ports, switch ports 0, switch ports facing CAs
    assert diff == [], f"{len(diff)}/{ports} tables differ: {diff[:4]}"
    assert entries >= ports


@pytest.mark.oracle
def test_pkey_tables_of_a_torus_match_opensm(live, tmp_path):
    """The same partitions on a 4×4 torus (16 switches, each with wrap-around links and a host)."""
    from fabricviz.generate.direct import torus
    ours, theirs, _, sn = run_case("mixed", tmp_path, fabric=torus((4, 4)))
    ports, entries, diff = _compare(ours, theirs)
    assert ports == 16 + 16 + 16          # CA ports, switch ports 0, switch ports facing CAs
    assert diff == [], f"{len(diff)}/{ports} tables differ: {diff[:4]}"
    assert entries >= ports


@pytest.mark.oracle
def test_leading_semicolon_is_what_opensm_misreads(live, tmp_path):
    """Why the reader refuses a ';' opening a line: OpenSM reads the rest of that line as
    members of the open statement, fails ("bad PortGUID") and runs with everyone full."""
    f = k_ary_fat_tree(4)
    text = export_ibnetdiscover(f)
    conf = "a=0x10 :\n ALL_CAS=full\n; b=0x20 : ALL=full ;\n"
    res, tables = pkey_oracle.run_opensm_pkeys(text, conf, tmp_path / "osm", lambda r: [(5, None)])
    assert _trim(tables[(5, None)]) == [0xFFFF]
    assert "PARSE ERROR: line 3: bad PortGUID" in (tmp_path / "osm" / "osm.log").read_text()
    with pytest.raises(FabricError, match=r"p:3: ';' with nothing before it"):
        conf_loads(conf, "p")


@pytest.mark.oracle
def test_pkey_table_overflow_matches_opensm(live, tmp_path):
    """70 partitions on one CA port: ibsim's tables hold 64 (OpenSM ERR 0512 drops the rest),
    and the switch port facing it is then full, so OpenSM clears its enforcement."""
    f = k_ary_fat_tree(4)
    text = export_ibnetdiscover(f)
    g = loads(text, "export.net", dialect=sniff(text))
    sn = discover(g)
    victim = int(sn.ca_guid[3])
    conf = "".join(f"p{i}=0x{0x100 + i:04x} : 0x{victim:016x}=full ;\n" for i in range(70))
    tabs = compute_tables(sn, resolve(conf_loads(conf), sn), IBSIM)
    i = sn.ca_guid.tolist().index(victim)
    key = (int(sn.sw_guid[int(sn.ca_sw[i])]), int(sn.ca_sw_port[i]))

    def queries(res):
        return [(res.port_lids[victim], None), (res.port_lids[key[0]], key[1])]

    res, tables = pkey_oracle.run_opensm_pkeys(text, conf, tmp_path / "osm", queries)
    assert tables[(res.port_lids[victim], None)] == tabs.ca[victim]
    assert tables[(res.port_lids[key[0]], key[1])] == tabs.switch_ext[key]
    assert len(tabs.dropped[victim]) == 7 and tabs.enforce[key] is False
    assert "ERR 0512" in (tmp_path / "osm" / "osm.log").read_text()
