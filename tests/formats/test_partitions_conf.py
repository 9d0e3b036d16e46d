"""partitions.conf reader/writer: OpenSM 3.3.23's grammar, its quirks, refusals, round trip."""

from __future__ import annotations

import time

import pytest

from fabricviz.formats.limits import FileFormatError
from fabricviz.formats.partitions_conf import MAX_LINE, c_strtoul, dump, dumps, load, loads
from fabricviz.ib.partitions import Member, Partition, PartitionConfig, from_meta, to_meta
from tests.work import calls

MANPAGE = """\
 Default=0x7fff : ALL, SELF=full ;
 Default=0x7fff : ALL, ALL_SWITCHES=full, SELF=full ;

 NewPartition , ipoib : 0x123456=full, 0x3456789034=limi, 0x2134af2306 ;

 YetAnotherOne = 0x300 : SELF=full ;
 YetAnotherOne = 0x300 : ALL=limited ;

 ShareIO = 0x80 , defmember=full : 0x123451, 0x123452;
 # 0x123453, 0x123454 will be limited
 ShareIO = 0x80 : 0x123453, 0x123454, 0x123455=full;
 # 0x123456, 0x123457 will be limited
 ShareIO = 0x80 , defmember=limited : 0x123456, 0x123457, 0x123458=full;
 ShareIO = 0x80 , defmember=full : 0x123459, 0x12345a;
 ShareIO = 0x80 , defmember=full : 0x12345b, 0x12345c=limited, 0x12345d;

 # multicast groups added to default
 Default=0x7fff,ipoib:
        mgid=ff12:401b::0707,sl=1 # random IPv4 group
        mgid=ff12:601b::16    # MLDv2-capable routers
        mgid=ff12:401b::16    # IGMP
        mgid=ff12:601b::2     # All routers
        mgid=ff12::1,sl=1,Q_Key=0xDEADBEEF,rate=3,mtu=2 # random group
        ALL=full;
"""


def test_manpage_examples():
    conf = loads(MANPAGE, "p.conf")
    s = conf.statements
    assert [(p.name, p.pkey, p.line) for p in s] == [
        ("Default", 0x7FFF, 1), ("Default", 0x7FFF, 2), ("NewPartition", 0x0001, 4),
        ("YetAnotherOne", 0x0300, 6), ("YetAnotherOne", 0x0300, 7),
        ("ShareIO", 0x0080, 9), ("ShareIO", 0x0080, 11), ("ShareIO", 0x0080, 13),
        ("ShareIO", 0x0080, 14), ("ShareIO", 0x0080, 15), ("Default", 0x7FFF, 18)]
    assert s[0].members == (Member("ALL", "limited"), Member("SELF", "full"))
    assert s[2].ipoib and s[2].members == (Member(0x123456, "full"), Member(0x3456789034, "limited"),
                                           Member(0x2134AF2306, "limited"))
    assert [m.membership for m in s[5].members] == ["full", "full"]
    assert [m.membership for m in s[6].members] == ["limited", "limited", "full"]
    assert [m.membership for m in s[9].members] == ["full", "limited", "full"]
    assert s[10].mgroups == ("mgid=ff12:401b::0707,sl=1", "mgid=ff12:601b::16", "mgid=ff12:401b::16",
                             "mgid=ff12:601b::2", "mgid=ff12::1,sl=1,Q_Key=0xDEADBEEF,rate=3,mtu=2")
    assert s[10].members == (Member("ALL", "full"),) and s[10].ipoib
    merged = {p.pkey: p for p in conf.merged()}
    assert len(merged[0x0080].members) == 13 and merged[0x0080].name == "ShareIO"


def test_pkey_full_bit_auto_and_names():
    conf = loads("a=0x8001 : ALL ;\nb : SELF ;\nc : SELF ;\na : ALL_CAS=full ;\n42 : SELF ;\n"
                 "=0x0002 : SELF ;\nd=0 : SELF ;\ne=010 : SELF ;\n", "p")
    got = [(p.name, p.pkey) for p in conf.statements]
    # 0x8001 is 0x0001 (OpenSM clears the full bit); b, c numbered from 1 skipping 0x0001;
    # "a" again without a P_Key is partition a; a bare number is the P_Key; an empty name is
    # the P_Key in hex (here 0x0002: already c's, so c's name); 0 means "number it"; 010 is octal
    assert got == [("a", 1), ("b", 2), ("c", 3), ("a", 1), ("002a", 0x2A), ("b", 2), ("d", 4), ("e", 8)]


def test_name_lookup_follows_opensm_map_order():
    # two partitions named "a": a name-only statement is the first in OpenSM's map order
    # (P_Key in network byte order: 0x0200 -> 0x0002 sorts before 0x0001 -> 0x0100)
    conf = loads("a=0x0001 : ALL ;\na=0x0200 : ALL ;\na : SELF ;\nDefault=0x10 : ALL ;\nDefault : SELF ;\n", "p")
    assert [p.pkey for p in conf.statements] == [0x0001, 0x0200, 0x0200, 0x0010, 0x0010]


def test_membership_and_keyword_prefixes():
    conf = loads("p=0x10, def=f : A, ALL_C=l, ALL_S=b, ALL_R, S=lim, 0x11=, 0x12=junk, N, NONE, ,"
                 " 0x13=fu ;", "p")
    assert conf.statements[0].defmember == "full"
    assert conf.statements[0].members == (
        Member("ALL", "full"), Member("ALL_CAS", "limited"), Member("ALL_SWITCHES", "both"),
        Member("ALL_ROUTERS", "full"), Member("SELF", "limited"), Member(0x11, "full"),
        Member(0x12, "limited"), Member(0x13, "full"))


def test_statements_across_lines_and_on_one_line():
    conf = loads("x=0x5 :\n   0x1, # one\n  0x2=full ; y=0x6 : 0x3 ; z=7:0x4;\nlast=0x9 : 0x5", "p")
    assert [(p.name, p.pkey, [m.target for m in p.members]) for p in conf.statements] == [
        ("x", 5, [1, 2]), ("y", 6, [3]), ("z", 7, [4]), ("last", 9, [5])]


def test_flags_kept_and_unknown_ignored():
    conf = loads("p=0x10, ipoib, mtu=4, rate=7, sl=1, scope=2, indx0, bogus=1, , def : ALL ;", "p")
    s = conf.statements[0]
    assert s.ipoib and s.indx0 and s.defmember == "limited"   # defmember without a value: skipped
    assert s.flags == ("mtu=4", "rate=7", "sl=1", "scope=2", "bogus=1")


@pytest.mark.parametrize("text, message", [
    ("Default=0x7fff ALL ;", "p.conf:1: no partition definition found"),
    ("a=0x10 : ALL ;\nb=0x1x : ALL ;", "p.conf:2: bad partition definition: P_Key '0x1x' is not a number"),
    ("a=0x10 : ALL ;\n\nb=0x10000 : ALL ;", "p.conf:3: P_Key 0x10000 does not fit 16 bits"),
    ("a=-1 : ALL ;", "p.conf:1: bad partition definition: P_Key '-1' is not a number"),
    ("a=0x10 : all ;", "p.conf:1: bad PortGUID 'all'"),
    ("a=0x10 : 0x0 ;", "p.conf:1: bad PortGUID '0x0'"),
    ("a=0x10 :\n 0x12, 0xzz ;", "p.conf:2: bad PortGUID '0xzz'"),
    ("a=0x10 : 0x10000000000000000 ;", "p.conf:1: port GUID 0x10000000000000000 does not fit 64 bits"),
    ("a=0x10 : ALL ;\r\n", "p.conf:1: carriage return"),
    ("a=0x10 :\n ALL\n ; b=0x20 : ALL ;", "p.conf:3: ';' with nothing before it"),
    ("a=0x10 : ALL ;;", "p.conf:1: ';' with nothing before it"),
    ("a=0x10 : A\0LL ;", "p.conf:1: NUL character"),
    ("a=0x10 : ALL ;\n" + "#" * (MAX_LINE + 1), f"p.conf:2: line of {MAX_LINE + 1:,} characters"),
])
def test_errors_are_one_line(text, message):
    with pytest.raises(FileFormatError) as e:
        loads(text, "p.conf")
    assert str(e.value).startswith(message)
    assert "\n" not in str(e.value)


def test_pkey_numbers_run_out():
    text = "".join(f"p{i}=0x{i:04x} : ALL ;\n" for i in range(1, 0x7FFF)) + "auto : ALL ;\n"
    with pytest.raises(FileFormatError, match=r"p:32767: bad partition definition: no P_Key left"):
        loads(text, "p")


def test_bom_comments_and_empty():
    assert loads("\ufeff# only a comment\n\n   \n", "p").statements == []
    assert not loads("# x\n", "p").applies_default
    assert loads("\ufeffa=0x10:ALL;", "p").statements[0].pkey == 0x10


def test_c_strtoul():
    assert [c_strtoul(s) for s in ("0x1F", "017", "9", "+5", "0", "0x", "08", "-1", "", "1 ", "٣")] == \
        [31, 15, 9, 5, 0, None, None, None, None, None, None]


def test_round_trip_is_equivalent(tmp_path):
    conf = loads(MANPAGE + "q=0x8444, def=both, indx0, mtu=5 : ALL_CAS, SELF=limited ;\nz=0x9:;\n", "p")
    text = dumps(conf)
    again = loads(text, "again")
    strip = [Partition(p.name, p.pkey, p.ipoib, p.defmember, p.members, p.indx0, p.flags, p.mgroups)
             for p in conf.statements]
    assert [Partition(p.name, p.pkey, p.ipoib, p.defmember, p.members, p.indx0, p.flags, p.mgroups)
            for p in again.statements] == strip
    assert dumps(again) == text
    dump(again, tmp_path / "x.conf")
    assert dumps(load(tmp_path / "x.conf")) == text
    assert text.splitlines()[1] == "Default=0x7fff : ALL=limited, SELF=full ;"
    assert "z=0x0009 : NONE ;" in text.splitlines()


def test_meta_round_trip():
    conf = loads(MANPAGE, "p")
    back = from_meta(to_meta(conf))
    assert [(p.name, p.pkey, p.members, p.mgroups, p.ipoib) for p in back.statements] == \
        [(p.name, p.pkey, p.members, p.mgroups, p.ipoib) for p in conf.statements]
    assert isinstance(back, PartitionConfig)


@pytest.mark.slow
def test_big_file_gets_a_verdict_fast(tmp_path):
    """A big file is read in work linear in its size: twice the statements make twice the function
    calls (a quadratic reader would make four times), counted, not timed (bench/readers.py times it);
    the whole 5 MB file is read within a generous CPU time that only a hang would pass."""
    line = "p=0x10 : " + ", ".join(f"0x{0x1000 + i:x}=full" for i in range(200)) + " ;\n"
    path = tmp_path / "big.conf"
    path.write_text(line * 2000)               # 400,000 members, about 5 MB
    t0 = time.process_time()
    conf = load(path)
    assert len(conf.statements) == 2000 and time.process_time() - t0 < 60
    _conf, half = calls(loads, line * 50)
    _conf, full = calls(loads, line * 100)
    assert len(_conf.statements) == 100 and 1.95 < full / half < 2.05, (half, full)
    path.write_bytes(b"#" * (17 << 20))
    with pytest.raises(FileFormatError, match="bytes, over the 16,777,216 bytes a partitions.conf may have here"):
        load(path)
    path.write_bytes(b"a=0x10 : ALL ;\n\xff\n")
    with pytest.raises(FileFormatError, match=r"big.conf:2: not UTF-8"):
        load(path)


def test_mutants_get_a_verdict():
    """Seeded mutants of the manpage file: each is read or refused with one line."""
    from tests.formats.fuzzing import char_mutants
    accepted = refused = 0
    for text in char_mutants(MANPAGE, 14, 3000, " \t\n,;:=#x0123456789abcdefALL_CASSELFNONEfull"):
        try:
            conf = loads(text, "m")
            again = loads(dumps(conf), "again")        # what we write reads back the same
            assert [(p.name, p.pkey, p.ipoib, p.members, p.indx0, p.flags, p.mgroups)
                    for p in again.statements] == \
                [(p.name, p.pkey, p.ipoib, p.members, p.indx0, p.flags, p.mgroups) for p in conf.statements]
            accepted += 1
        except FileFormatError as e:
            assert "\n" not in str(e) and str(e).startswith("m:")
            refused += 1
    assert accepted > 100 and refused > 100
