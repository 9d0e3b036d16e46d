"""The InfiniBand readers survive any file (issue 11): ibnetdiscover, ibsim net, opensm-lfts.dump.

Each case is a real sample with one line broken the way a tester broke it, fed through the CLI
(``load_any`` underneath): exit 2 and exactly one stderr line naming ``file:line`` and why. Numbers
that would size an allocation (port counts, LIDs, LFT ranges, GUIDs) are refused before anything
is allocated, so a 100-million-port CA answers at once instead of filling 13 GB.
"""

import tracemalloc
from pathlib import Path

import pytest

from fabricviz.cli import main
from fabricviz.formats._ibbuild import prescan
from fabricviz.formats.ibnetdiscover import check_ibnetdiscover, loads
from fabricviz.formats.opensm_dump import parse_lfts_dump
from fabricviz.generate.common import lid_space_problem
from fabricviz.loaders import load_any
from fabricviz.model import FabricError

DATA = Path(__file__).resolve().parents[1] / "data"
MANPAGE = DATA / "samples" / "manpage_example.ibnetdiscover"
NET = DATA / "samples" / "ibsim_net.2sw2path4hca.net"
DUMP = DATA / "opensm" / "fat2-minhop" / "opensm-lfts.dump"
TOPO = DATA / "opensm" / "fat2-minhop" / "topology.net"


def mutant(src: Path, old: str, new: str, count: int = 1) -> str:
    text = src.read_text()
    assert text.count(old) >= count, old
    return text.replace(old, new, count)


def refusal(tmp_path, monkeypatch, capsys, name: str, text: str) -> str:
    """Run ``fabricviz info NAME`` in tmp_path; assert exit 2 and one stderr line; return it."""
    monkeypatch.chdir(tmp_path)
    Path(name).write_text(text, encoding="utf-8")
    rc = main(["info", name])
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    prefix = "fabricviz: error: "
    assert err.startswith(prefix + name + ":")
    return err[len(prefix):].rstrip("\n")


IBND = [
    # the tester's hang: a CA claiming 100 million ports (11-13 GB before the fix)
    ("Ca      2 \"H-0008f10403960984\"", "Ca      100000000 \"H-0008f10403960984\"",
     "m.ibnetdiscover:32: Ca with 100000000 ports (1-254)"),
    ("Switch  24 \"S-005442ba00003080\"", "Switch  100000000 \"S-005442ba00003080\"",
     "m.ibnetdiscover:13: Switch with 100000000 ports (1-254)"),
    ("Switch  24 \"S-005442ba00003080\"", "Switch  255 \"S-005442ba00003080\"",
     "m.ibnetdiscover:13: Switch with 255 ports (1-254)"),
    ("[22]    \"H-0008f10403961354\"", "[99999999999999999999999999]    \"H-0008f10403961354\"",
     'm.ibnetdiscover:14: port 99999999999999999999999… of "S-005442ba00003080" is out of range 1-24'),
    ("\"S-0008f10400410015\"[1] ", "\"S-0008f10400410015\"[0] ",
     'm.ibnetdiscover:15: bad remote port 0 of "S-0008f10400410015" (1-254)'),
    ("\"S-0008f10400410015\"[1] ", "\"S-0008f10400410015\"[4294967296] ",
     'm.ibnetdiscover:15: bad remote port 4294967296 of "S-0008f10400410015" (1-254)'),
    ("Technologies\" lid 4 4xSDR", "Technologies\" lid 49152 4xSDR",
     "m.ibnetdiscover:14: lid 49152 is not a unicast LID (0-49151, 0 = not assigned)"),
    ("lid 16 lmc 1", "lid 16 lmc 9",
     "m.ibnetdiscover:33: lmc 9 is out of range (0-7)"),
    ("base port 0 lid 6 lmc 0", "base port 0 lid 999999999999 lmc 0",
     "m.ibnetdiscover:13: lid 999999999999 is not a unicast LID (0-49151, 0 = not assigned)"),
    ("caguid=0x8f10403960984", "caguid=0x1ffffffffffffffff",
     "m.ibnetdiscover:31: bad GUID (a 64-bit number) in: caguid=0x1ffffffffffffffff"),
    ("[1](8f10403960985)", "[1](1ffffffffffffffff)",
     'm.ibnetdiscover:24: bad port GUID (64-bit hex) in: [6]     "H-0008f10403960984"[1](1ffffffffffffffff)'
     '         # "MT23108 InfiniHost Mellanox Technologies" lid 16 4xSDR'),
    ("caguid=0x8f10403960984", "caguid=0xffffffffffffffff",
     'm.ibnetdiscover:32: GUID 0xffffffffffffffff of "H-0008f10403960984" leaves no room for its 2 port '
     "GUID(s) (node GUID + port number, 64 bits)"),
    ("caguid=0x8f10403960984", "caguid=09",
     "m.ibnetdiscover:31: bad GUID (a 64-bit number) in: caguid=09"),
    # GUID 0 is "none": it loaded, then the saved design reloaded with a new GUID (fuzzer)
    ("caguid=0x8f10403960984", "caguid=0",
     'm.ibnetdiscover:31: GUID 0 for "H-0008f10403960984" (a node GUID is never 0)'),
    ("switchguid=0x5442ba00003080(5442ba00003080)", "switchguid=0(5442ba00003080)",
     'm.ibnetdiscover:12: GUID 0 for "S-005442ba00003080" (a node GUID is never 0)'),
]


@pytest.mark.parametrize("old,new,line", IBND, ids=[c[2].split(": ", 1)[1][:30] for c in IBND])
def test_ibnetdiscover_refusals_name_the_line(tmp_path, monkeypatch, capsys, old, new, line):
    assert refusal(tmp_path, monkeypatch, capsys, "m.ibnetdiscover", mutant(MANPAGE, old, new)) == line


NETS = [
    ('Hca\t2 "Hca1"', 'Hca 100000000 "Hca1"', "m.net:33: Ca with 100000000 ports (1-254)"),
    ('Switch\t8 "Switch1"', 'Switch\t300 "Switch1"', "m.net:21: Switch with 300 ports (1-254)"),
    ('[1]\t"Switch1"[1]', '[1]\t"Switch1"[300]', 'm.net:34: bad remote port 300 of "Switch1" (1-254)'),
    ('[1]\t"Switch1"[1]', '[1]\t"Switch1"[8]',
     'm.net:22: "Switch1"[1] -> "Hca1"[1] but line 34 says "Hca1"[1] -> "Switch1"[8]'),
    ('[1]\t"Switch1"[1]', '[70000]\t"Switch1"[1]', 'm.net:34: port 70000 of "Hca1" is out of range 1-2'),
    # a GUID counter pushed past 64 bits: the next node has no GUID ibsim could give
    ('Hca\t2 "Hca1"', 'caguid=0xfffffffffffffffe\nHca\t2 "Hca1"',
     'm.net:34: ibsim would give "Hca1" GUID 0xfffffffffffffffe and its ports GUIDs over 64 bits; '
     "add a guid= line before it"),
]


@pytest.mark.parametrize("old,new,line", NETS, ids=[c[2].split(": ", 1)[1][:30] for c in NETS])
def test_ibsim_refusals_name_the_line(tmp_path, monkeypatch, capsys, old, new, line):
    assert refusal(tmp_path, monkeypatch, capsys, "m.net", mutant(NET, old, new)) == line


def test_ibsim_octal_guid_as_strtoull_reads_it():
    # ibsim reads GUID bases with strtoull(s, NULL, 0): a leading 0 is octal
    text = "switchguid=0100\n" + NET.read_text()
    from fabricviz.formats.ibsim import loads_ibsim
    f = loads_ibsim(text, "o.net")
    assert f.device("Switch1").guid == 0o100 and f.device("Switch2").guid == 0o100 + 1


def test_bom_is_accepted_and_lines_stay_right(tmp_path, monkeypatch, capsys):
    plain = load_any(MANPAGE)
    (tmp_path / "bom").mkdir()
    p = tmp_path / "bom" / MANPAGE.name
    p.write_bytes(b"\xef\xbb\xbf" + MANPAGE.read_bytes())
    assert load_any(p).signature() == plain.signature()
    # a BOM right before the first node header (no comments above it) must not hide the header
    body = MANPAGE.read_text().split("Non-Chassis Nodes\n\n", 1)[1]
    assert check_ibnetdiscover("\ufeff" + body, "b.txt") == []
    # line numbers count from the first line, BOM or not
    bad = "\ufeff" + mutant(MANPAGE, "lid 16 lmc 1", "lid 16 lmc 9")
    assert refusal(tmp_path, monkeypatch, capsys, "b.ibnetdiscover", bad) == \
        "b.ibnetdiscover:33: lmc 9 is out of range (0-7)"
    net = "\ufeff" + NET.read_text()
    assert check_ibnetdiscover(net, "n.net", "ibsim") == []


# ---------------------------------------------------------------------------- opensm-lfts.dump
def replay_refusal(tmp_path, monkeypatch, capsys, text: str) -> str:
    monkeypatch.chdir(tmp_path)
    Path("m.dump").write_text(text)
    rc = main(["replay", str(TOPO), "m.dump"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("fabricviz: error: m.dump:")
    return err[len("fabricviz: error: "):].rstrip("\n")


DUMPS = [
    # the tester's 1.8 TiB allocation
    ("Unicast lids [0-14] of switch Lid 5", "Unicast lids [0-999999999999] of switch Lid 5",
     "m.dump:1: LFT range [0-999999999999] is over the unicast LIDs (0-49151)"),
    ("Unicast lids [0-14] of switch Lid 5", "Unicast lids [0-49152] of switch Lid 5",
     "m.dump:1: LFT range [0-49152] is over the unicast LIDs (0-49151)"),
    ("of switch Lid 5 guid", "of switch Lid 70000 guid",
     "m.dump:1: switch Lid 70000 is not a unicast LID (1-49151)"),
    ("guid 0x0002c90300a00f40 ('leaf2')", "guid 0x10002c90300a00f40 ('leaf2')",
     "m.dump:1: switch guid 0x10002c90300a00f40 is over 64 bits"),
    ("0x0002 004 # Channel", "0x0002 99999999999999999999 # Channel",
     "m.dump:3: LID 2 port 99999999999999999999 outside the table [0-14]"),
    ("0x0002 004 # Channel", "0xfffffffffffffffffffff 004 # Channel",
     "m.dump:3: LID 19342813113834066795298815 port 4 outside the table [0-14]"),
    ("0x0002 004 # Channel", "0x" + "f" * 5000 + " 004 # Channel",
     "m.dump:3: LID 0xfffffffffffffffffffffff… port 4 outside the table [0-14]"),
    ("portguid 0x0002c90300b0f401: 'h2'", "portguid 0x1002c90300b0f40100: 'h2'",
     "m.dump:3: portguid 0x1002c90300b0f40100 is over 64 bits"),
]


@pytest.mark.parametrize("old,new,line", DUMPS, ids=[c[2].split(": ", 1)[1][:30] for c in DUMPS])
def test_dump_refusals_name_the_line(tmp_path, monkeypatch, capsys, old, new, line):
    assert replay_refusal(tmp_path, monkeypatch, capsys, mutant(DUMP, old, new)) == line


def test_dump_with_bom_reads_the_same():
    text = DUMP.read_text()
    a, b = parse_lfts_dump(text), parse_lfts_dump("\ufeff" + text)
    assert {g: s.routes for g, s in a.switches.items()} == {g: s.routes for g, s in b.switches.items()}
    assert a.dests == b.dests and len(a.switches) == 6


def test_line_numbers_count_newlines_only(tmp_path, monkeypatch, capsys):
    # form feeds, \x1c or U+2028 inside a line are not line breaks for an editor or for "file:line"
    text = mutant(MANPAGE, "# Max of 3 hops discovered", "# Max of 3\x0chops\x1c discovered\u2028")
    bad = text.replace("lid 16 lmc 1", "lid 16 lmc 9")
    assert refusal(tmp_path, monkeypatch, capsys, "ff.ibnetdiscover", bad) == \
        "ff.ibnetdiscover:33: lmc 9 is out of range (0-7)"
    # a vertical tab inside a node description is part of the description, and line 5 stays line 5
    dump = mutant(DUMP, "portguid 0x0002c90300a00495: 'leaf1'", "portguid 0x0002c90300a00495: 'le\x0baf1'")
    lines = dump.split("\n")
    lines[4] = "nonsense"
    with pytest.raises(FabricError, match=r'^d:5: expected "0xLID PORT # \.\.\.", got: nonsense$'):
        parse_lfts_dump("\n".join(lines), "d")


SMALL = DATA / "opensm" / "sample-2sw2path4hca-updn"


def small_replay_refusal(tmp_path, monkeypatch, capsys, text: str) -> str:
    monkeypatch.chdir(tmp_path)
    Path("s.dump").write_text(text)
    rc = main(["replay", str(SMALL / "topology.net"), "s.dump"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and err.count("\n") == 1
    return err[len("fabricviz: error: "):].rstrip("\n")


UNNAMED = [("0x0003 003 # Switch portguid 0x0000000000200001: 'Switch2'", "0x0003 003 # unknown node and type"),
           ("0x0003 000 # Switch portguid 0x0000000000200001: 'Switch2'", "0x0003 000 # unknown node and type")]
SMALL_DUMPS = [
    # LID 5 named after two ports: Hca1 then owned LIDs 2 and 5, taken for LMC 1, and the
    # summary indexed LID 7 of a 0-6 table (IndexError, fuzzer)
    ([("0x0002 001 # Channel Adapter portguid 0x0000000000100001", "0x0005 001 # Channel Adapter portguid "
       "0x0000000000100001")],
     "s.dump:6: LID 5 is named Channel Adapter portguid 0x0000000000100007, but line 3 names it Channel "
     "Adapter portguid 0x0000000000100001"),
    ([("portguid 0x0000000000100004: 'Hca2'", "portguid 0x0000000000100001: 'Hca1'")] * 2,
     "s.dump: port 0x0000000000100001 owns LIDs 2, 4, not one aligned block of 2 (LMC 1) as the other ports"),
    ([("of switch Lid 3 guid", "of switch Lid 9 guid")] + UNNAMED,
     "s.dump: switch Switch2 has Lid 9, outside the tables [0-6]"),
    ([("of switch Lid 3 guid", "of switch Lid 1 guid")] + UNNAMED,
     "s.dump: switches Switch1 and Switch2 both have Lid 1"),
    ([("of switch Lid 3 guid", "of switch Lid 2 guid")] + UNNAMED,
     "s.dump: LID 2 is port 0x0000000000100001's and the Lid of switch Switch2"),
]


@pytest.mark.parametrize("edits,line", SMALL_DUMPS, ids=[c[1][8:38] for c in SMALL_DUMPS])
def test_dump_lids_must_be_consistent(tmp_path, monkeypatch, capsys, edits, line):
    text = (SMALL / "opensm-lfts.dump").read_text()
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    assert small_replay_refusal(tmp_path, monkeypatch, capsys, text) == line


# ---------------------------------------------------------------------------- size budgets
def lone_switches(n: int, desc: str = "") -> str:
    """``n`` switch blocks of 254 ports with none cabled, as ibnetdiscover prints a switch (3 lines)."""
    return "".join(f'switchguid=0x{0x200000 + i:x}\nSwitch\t254 "S-{0x200000 + i:016x}"{desc}\n\n'
                   for i in range(n))


def test_ports_declared_are_budgeted_by_the_file_size():
    # the model keeps every declared port: 49,000 "Switch 254" headers in 2 MB loaded into 424 MB.
    # A small file may declare 2**18 ports: 1,032 such switches (262,128 ports) load ...
    f = loads(lone_switches(1032), "ok.ibnetdiscover")
    assert f.counts()["ib_switch"] == 1032 and f.ports_t.n == 1032 * 254
    # ... the 1,033rd is refused at its header (line 3 of its block), before anything is built
    text = lone_switches(1033)
    assert check_ibnetdiscover(text, "big.ibnetdiscover") == [
        "big.ibnetdiscover:3098: Switch with 254 ports takes the ports declared to 262,382, over the "
        f"262,144 a file of {len(text):,} characters may declare (the design keeps every port, cabled "
        "or not: at most one per character, or 262,144 in a small file)"]
    # past the floor the budget is one port per character: descriptions long enough to pay for them
    text = lone_switches(1100, ' # "' + "d" * 200 + '"')           # 258 characters a block
    assert len(text) >= 1100 * 254 and prescan(text, "w") is None
    short = lone_switches(1100, ' # "' + "d" * 190 + '"')          # 248 characters a block
    over = len(short) // 254                                       # the first header past it
    assert prescan(short, "w") == (
        f"w:{3 * over + 2}: Switch with 254 ports takes the ports declared to {254 * (over + 1):,}, over "
        f"the {len(short):,} a file of {len(short):,} characters may declare (the design keeps every "
        "port, cabled or not: at most one per character, or 262,144 in a small file)")


def test_budget_refusal_costs_little_memory():
    # 9,000 such headers would allocate 77 MB of ports; the refusal needs only the file's text
    text = lone_switches(9000)
    tracemalloc.start()
    try:
        with pytest.raises(FabricError, match=r"^h:5633: Switch with 254 ports takes the ports declared to 477,012"):
            loads(text, "h")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < len(text) // 4, peak


def ibsim_cas(n_ca: int, per: int = 200, from_switch: bool = False, lmc: int | None = None) -> str:
    """An ibsim net file: ``n_ca`` one-port CAs on leaves of ``per``, links listed from one side
    (CA lines with ``# lid 0 lmc LMC`` when ``lmc`` is given)."""
    leaves = -(-n_ca // per)
    tail = "" if lmc is None else f" # lid 0 lmc {lmc}"
    out = []
    for s in range(leaves):
        out.append(f'Switch 254 "sw{s}"')
        if from_switch:
            out += [f'[{c % per + 1}] "h{c}"[1]' for c in range(s * per, min(n_ca, s * per + per))]
        out.append("")
    for c in range(n_ca):
        out += [f'Hca 1 "h{c}"'] + ([] if from_switch else [f'[1] "sw{c // per}"[{c % per + 1}]{tail}']) + [""]
    return "\n".join(out)


def test_lid_space_is_checked_before_parsing():
    # 50,000 CAs: refused from the counts before a record is built (peaked 53 MB above baseline);
    # 250 switches count first, then the CA 48,901 (0-based) takes the subnet over (3 lines a CA)
    with pytest.raises(FabricError) as e:
        loads(ibsim_cas(50_000), "cas.net", "ibsim")
    assert str(e.value) == f"cas.net:{2 * 250 + 3 * 48_901 + 1}: {lid_space_problem(50_000, 250)}"
    # by the file's LMC: 2 switches + 400 × 128 LIDs; the refusal costs a fraction of the text
    text = ibsim_cas(400, lmc=7)
    tracemalloc.start()
    try:
        with pytest.raises(FabricError) as e:
            loads(text, "lmc.net", "ibsim")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(e.value) == f"lmc.net:{4 + 3 * 383 + 1}: {lid_space_problem(400, 2, 7)}"
    assert peak < 2 * len(text), peak         # parsing it first took 18 times the text


def test_lid_space_of_links_listed_from_the_switch_side():
    # ibsim lets a link be listed from one side only (the fuzzer's 50,000 CAs listed by their
    # switches peaked 54 MB above baseline before the refusal): the switches' port lines to nodes
    # that are no switch are counted, and the line that goes over is named. 400 CAs, one with
    # "lmc 7" on its own line: 2 switches + 400 × 128 LIDs
    text = ibsim_cas(400, from_switch=True).replace('Hca 1 "h0"\n', 'Hca 1 "h0"\n[1] "sw0"[1] # lid 0 lmc 7\n')
    line = text[:text.index('[184] "h383"[1]')].count("\n") + 1       # 2 + 384 × 128 > 49,151
    tracemalloc.start()
    try:
        assert check_ibnetdiscover(text, "s.net", "ibsim") == [f"s.net:{line}: {lid_space_problem(400, 2, 7)}"]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * len(text), peak
    # listed half from each side, neither count alone is over: the check after parsing refuses it,
    # at the CA that goes over
    half = ('Switch 254 "sw0"\n\nSwitch 254 "sw1"\n' + "".join(f'[{c - 199}] "h{c}"[1]\n' for c in range(200, 400))
            + "\n" + "".join(f'Hca 1 "h{c}"\n[1] "sw0"[{c + 1}] # lid 0 lmc 7\n\n' for c in range(200))
            + "".join(f'Hca 1 "h{c}"\n\n' for c in range(200, 400)))
    assert prescan(half, "h.net") is None
    line = half[:half.index('Hca 1 "h383"')].count("\n") + 1
    assert check_ibnetdiscover(half, "h.net", "ibsim") == [f"h.net:{line}: {lid_space_problem(400, 2, 7)}"]


def test_lid_count_before_parsing_counts_only_good_links():
    # a CA port line that parsing refuses (a port over the CA's count, a port listed twice) takes
    # no LID: with it, 383 or 382 CAs at LMC 7 would be over the LIDs, and the refusal would be
    # a LID-space one instead of parse's own line
    text = ibsim_cas(383, lmc=7) + '\nHca 1 "hx"\n[2] "sw1"[190] # lid 0 lmc 7\n'
    assert prescan(text, "p.net") is None
    assert check_ibnetdiscover(text, "p.net", "ibsim") == [
        f'p.net:{4 + 3 * 383 + 2}: port 2 of "hx" is out of range 1-1']
    text = ibsim_cas(382, lmc=7) + '\nHca 2 "hx"\n[1] "sw1"[190] # lid 0 lmc 7\n[1] "sw1"[191] # lid 0 lmc 7\n'
    assert prescan(text, "p.net") is None
    assert check_ibnetdiscover(text, "p.net", "ibsim") == [
        f'p.net:{4 + 3 * 382 + 3}: port 1 of "hx" listed twice (also line {4 + 3 * 382 + 2})']
    # from the switches' side: a remote port 0 is refused by parse, so 383 CA ports are counted
    text = ibsim_cas(384, from_switch=True).replace('Hca 1 "h0"\n', 'Hca 1 "h0"\n[1] "sw0"[1] # lid 0 lmc 7\n')
    assert prescan(text, "p.net") is not None
    text = text.replace('[6] "h5"[1]', '[6] "h5"[0]')
    assert prescan(text, "p.net") is None
    assert check_ibnetdiscover(text, "p.net", "ibsim") == ['p.net:7: bad remote port 0 of "h5" (1-254)']
