"""opensm.conf QoS reader (fabricviz.formats.opensm_conf): values, fallbacks, refusals."""

from __future__ import annotations

import time

import pytest

from fabricviz.formats import opensm_conf
from fabricviz.formats.limits import FileFormatError
from fabricviz.ib.qos import DEFAULT_SL2VL, QosOptions, QosSet
from tests.work import calls


def test_defaults_when_empty():
    o = opensm_conf.loads("", "x.conf")
    assert o == QosOptions()
    assert o.qos is False and o.max_op_vls == 5
    c = o.resolved("ca")
    assert c.sl2vl == DEFAULT_SL2VL and c.high_limit == 0 and c.max_vls == 15
    assert c.vlarb_high[:2] == ((0, 4), (1, 0)) and c.vlarb_high[15:] == ((0, 0),) * 49
    assert c.vlarb_low[:3] == ((0, 0), (1, 4), (2, 4)) and len(c.vlarb_low) == 64


def test_values_comments_quotes_last_wins_and_fallbacks():
    text = ("# comment\n"
            "qos TRUE   # on\n"
            "qos_max_vls 4\n"
            "qos_high_limit 0x10\n"
            "qos_high_limit 010\n"                     # octal, as strtol(.., 0); last one wins
            "qos_vlarb_high '0:10, 1:20,2:0x1e'\n"
            "qos_swe_sl2vl \"0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\"\n"
            "qos_ca_high_limit 3\n"
            "max_op_vls 3\n"
            "sm_priority 1\n"                          # not QoS: ignored
            "qos_policy_file /etc/opensm/qos-policy.conf\n")
    o = opensm_conf.loads(text, "x.conf")
    assert o.qos is True and o.max_op_vls == 3
    assert o.default == QosSet(max_vls=4, high_limit=8, vlarb_high=((0, 10), (1, 20), (2, 30)))
    assert o.swe.sl2vl == tuple(range(16))
    swe, ca, sw0 = o.resolved("swe"), o.resolved("ca"), o.resolved("sw0")
    assert swe.high_limit == 8 and ca.high_limit == 3 and sw0.high_limit == 8
    assert swe.sl2vl == tuple(range(16)) and ca.sl2vl == DEFAULT_SL2VL
    assert ca.vlarb_high[:4] == ((0, 10), (1, 20), (2, 30), (0, 0))


@pytest.mark.parametrize("line, msg", [
    ("qos true", "x.conf:2: qos must be TRUE or FALSE, got 'true' (OpenSM reads anything but TRUE as FALSE)"),
    ("qos_max_vl 4", "x.conf:2: unknown QoS option 'qos_max_vl'"),
    ("qos_max_vls 16", "x.conf:2: qos_max_vls 16 is out of range (1-15)"),
    ("qos_max_vls 0", "x.conf:2: qos_max_vls 0 is out of range (1-15)"),
    ("qos_high_limit 256", "x.conf:2: qos_high_limit 256 is out of range (0-255)"),
    ("qos_high_limit 08", "x.conf:2: qos_high_limit must be a number, got '08'"),
    ("qos_vlarb_low 0:4,15:1", "x.conf:2: qos_vlarb_low: VL 15 is out of range (0-14)"),
    ("qos_vlarb_low 0:4,1:256", "x.conf:2: qos_vlarb_low: weight 256 is out of range (0-255)"),
    ("qos_vlarb_low 0:4,1", "x.conf:2: qos_vlarb_low: '1' is not VL:weight"),
    ("qos_vlarb_low 0:4,,1:1", "x.conf:2: empty entry in '0:4,,1:1'"),
    ("qos_ca_vlarb_high " + ",".join(["0:1"] * 65),
     "x.conf:2: qos_ca_vlarb_high: 65 VL:weight pairs, at most 64 (two blocks of 32)"),
    ("qos_sl2vl 0,1,2", "x.conf:2: qos_sl2vl: 3 VLs listed, need 16 (one per SL)"),
    ("qos_sw0_sl2vl " + ",".join(["16"] * 16), "x.conf:2: qos_sw0_sl2vl: VL 16 is out of range (0-15)"),
    ("max_op_vls 6", "x.conf:2: max_op_vls 6 is out of range (1-5)"),
    ("qos_sl2vl", "x.conf:2: qos_sl2vl: no value"),
])
def test_refusals_name_file_and_line(line, msg):
    with pytest.raises(FileFormatError) as e:
        opensm_conf.loads("# first\n" + line + "\n", "x.conf")
    assert str(e.value) == msg


def test_null_resets_and_long_lines():
    o = opensm_conf.loads("qos_sl2vl " + ",".join(["1"] * 16) + "\nqos_sl2vl (null)\n")
    assert o.default.sl2vl is None
    with pytest.raises(FileFormatError, match=r"^x.conf:1: line longer than 1022 characters"):
        opensm_conf.loads("sm_priority " + "1" * 1100, "x.conf")


@pytest.mark.slow
def test_size_guard_is_fast(tmp_path):
    """An oversized file is refused before it is read: the same work whatever its size; valid lines
    are read in work linear in their number (function calls counted, not timed)."""
    big = tmp_path / "big.conf"
    big.write_bytes(b"# " + b"x" * (opensm_conf.MAX_BYTES + 10))
    bigger = tmp_path / "bigger.conf"
    bigger.write_bytes(b"# " + b"x" * (4 * opensm_conf.MAX_BYTES))
    with pytest.raises(FileFormatError, match="bytes, over the 4,194,304 bytes an options file may have here"):
        opensm_conf.load(big)
    (e1, n1), (e2, n2) = calls(opensm_conf.load, big), calls(opensm_conf.load, bigger)
    assert isinstance(e1, FileFormatError) and isinstance(e2, FileFormatError) and n1 == n2 < 1000, (n1, n2)
    bad = tmp_path / "bad.conf"
    bad.write_bytes(b"qos TRUE\n\xff\n")
    with pytest.raises(FileFormatError, match=r"bad.conf:2: not UTF-8 text"):
        opensm_conf.load(bad)
    with pytest.raises(FileFormatError, match=r"missing\.conf: no such file"):
        opensm_conf.load(tmp_path / "missing.conf")
    line = "qos_vlarb_low " + ",".join(["14:255"] * 64)
    many = "\n".join([line] * 3000)                      # ~2.5 MB of valid lines
    t0 = time.process_time()
    opensm_conf.loads(many)
    assert time.process_time() - t0 < 60                  # generous: only a hang would pass it
    half = calls(opensm_conf.loads, "\n".join([line] * 500))[1]
    full = calls(opensm_conf.loads, "\n".join([line] * 1000))[1]
    assert 1.95 < full / half < 2.05, (half, full)


def test_mutants_get_a_verdict():
    """Seeded mutants of a QoS options file: each is read or refused with one line naming it."""
    from tests.formats.fuzzing import char_mutants
    sample = ("qos TRUE\nqos_max_vls 4\nqos_high_limit 7\nqos_sl2vl 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3\n"
              "qos_vlarb_high 0:64,1:32\nqos_vlarb_low 0:16,1:16\nqos_swe_high_limit 0x10\n# note\n"
              "max_op_vls 5\nlog_file /var/log/opensm.log\n")
    opensm_conf.loads(sample, "m")
    accepted = refused = 0
    for text in char_mutants(sample, 14, 3000, " \t\n,:#x0123456789abcdefqos_TRUEFALSEvlarbhighlow"):
        try:
            opensm_conf.loads(text, "m")
            accepted += 1
        except FileFormatError as e:
            assert "\n" not in str(e) and str(e).startswith("m:")
            refused += 1
    assert accepted > 100 and refused > 100
