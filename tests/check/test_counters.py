"""The counters engine on real perfquery / ibqueryerrors output from ibsim (tests/data/counters):
matching by LID, GUID and name, the ranking, rates between two snapshots, disagreeing ends."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabricviz.check.counters import Disagreement, Metric, link_line, port_counters
from fabricviz.formats.counter_files import load_counters, loads_counters
from fabricviz.loaders import load_any
from fabricviz.model.port_counters import Counter

DATA = Path(__file__).resolve().parents[1] / "data"
C = Counter


@pytest.fixture(scope="module")
def design():
    return load_any(DATA / "samples" / "ibsim_net.2sw2path4hca.net")


def load(*names):
    return [load_counters(DATA / "counters" / n) for n in names]


def ends(lk):
    return (lk.a.name, lk.b.name)


EXPECTED_T0 = [(("Switch1 port 3", "Switch2 port 3"), (1234, 7, 0, 0, 0, 0)),
               (("Switch2 port 1", "Hca2 port 1"), (40, 0, 0, 42, 9, 123456)),
               (("Switch1 port 5", "Switch2 port 5"), (0, 0, 4, 0, 0, 0))]


@pytest.mark.parametrize("names", [("perfquery_t0.txt",), ("ibqueryerrors_t0.txt",), ("ibdiagnet2.pm",),
                                   ("ibdiagnet2.db_csv",), ("ibqueryerrors_r_data.txt",)])
def test_every_format_ranks_the_same_links(design, names):
    """perfquery (by LID), ibqueryerrors (by GUID), ibdiagnet (GUID) name the same three sick links."""
    r = port_counters(design, load(*names))
    assert [(ends(lk), lk.key()) for lk in r.worst()] == EXPECTED_T0
    assert [ends(lk) for lk in r.worst(Metric.XMIT_WAIT)] == [("Switch2 port 1", "Hca2 port 1"),
                                                              ("Switch1 port 2", "Hca3 port 1")]
    kinds = {ends(lk): [fd.kind for fd in lk.findings] for lk in r.disagreeing()}
    assert kinds == {("Switch1 port 3", "Switch2 port 3"): [Disagreement.ONE_SIDED_ERRORS],
                     ("Switch1 port 5", "Switch2 port 5"): [Disagreement.LINK_DOWNED_DIFFERS],
                     ("Switch2 port 1", "Hca2 port 1"): [Disagreement.ONE_SIDED_ERRORS]}


def test_counts_and_unmatched(design):
    r = port_counters(design, load("perfquery_t0.txt"))
    assert (len(r.links), r.ports_counted, r.n_cables) == (6, 20, 6)
    assert r.unmatched == ()            # the unused switch ports count no errors
    q = port_counters(design, load("ibqueryerrors_t0.txt"))
    assert [u.source.rsplit("/", 1)[1] for u in q.unmatched] == ["ibqueryerrors_t0.txt:4", "ibqueryerrors_t0.txt:10"]
    assert all("port 255/ALL" in u.why for u in q.unmatched)
    assert q.ports_counted == 6 and len(q.links) == 6      # the unlisted ends read as clean


def test_one_sided_finding_names_the_direction(design):
    lk = port_counters(design, load("perfquery_t0.txt")).worst()[0]
    (fd,) = lk.findings
    assert fd.text == ("Switch1 port 3 receives errors (1,234 symbol/receive), Switch2 port 3 none: suspect the "
                       "Switch2 → Switch1 direction (that transmitter, its lanes or this receiver)")


def test_rates_between_snapshots(design):
    r = port_counters(design, load("perfquery_t1.txt"), load("perfquery_t0.txt"), interval=60.0)
    got = [(ends(lk), lk.key()) for lk in r.worst()]
    assert got == [(("Switch2 port 2", "Hca4 port 1"), (65535 / 60, 0, 0, 0, 0, 0)),
                   (("Switch1 port 3", "Switch2 port 3"), (300 / 60, 0, 0, 0, 0, 0)),
                   (("Switch2 port 1", "Hca2 port 1"), (0, 0, 0, 10 / 60, 0, 600000 / 60))]
    top = r.worst()[0]
    assert top.a.saturated == (C.SYMBOL_ERRORS,)
    assert link_line(top, per_second=True) == ("Switch2 port 2 — Hca4 port 1: SymbolErrorCounter 1,092/s at Switch2 "
                                               "port 2 (saturated); ends disagree: one-sided errors")
    # the link-downed counts did not move: the ends agree on the increase
    assert not any(fd.kind is Disagreement.LINK_DOWNED_DIFFERS for lk in r.links for fd in lk.findings)
    assert [ends(lk) for lk in r.worst(Metric.XMIT_WAIT)] == [("Switch2 port 1", "Hca2 port 1")]


def test_counter_cleared_between_snapshots(design):
    before = loads_counters("# Port counters: Lid 1 port 3\nSymbolErrorCounter:....500\n", "old")
    after = loads_counters("# Port counters: Lid 1 port 3\nSymbolErrorCounter:....20\n", "new")
    (lk,) = port_counters(design, [after], [before]).links
    assert lk.a.values == {C.SYMBOL_ERRORS: 20.0} and lk.a.reset == (C.SYMBOL_ERRORS,)
    assert not lk.b.known and lk.findings == ()          # the other end was not counted: no claim


def test_match_by_name_and_unknown_port(design):
    text = ('Errors for "Hca4"\n   GUID 0xdead port 1: [LinkDownedCounter == 2]\n'
            'Errors for "Nope"\n   GUID 0xbeef port 1: [LinkDownedCounter == 2]\n')
    r = port_counters(design, [loads_counters(text, "q")])
    assert [ends(lk) for lk in r.worst()] == [("Switch2 port 2", "Hca4 port 1")]
    assert [(u.source, u.why) for u in r.unmatched] == [("q:4", "no port 1 of GUID 0xbeef / 'Nope' in the design")]


def test_extended_values_win(design):
    basic = loads_counters("# Port counters: Lid 3 port 1 (CapMask: 0x1300)\nPortXmitWait:....4294967295\n", "b")
    ext = loads_counters("# Port extended counters: Lid 3 port 1 (CapMask: 0x1300 CapMask2: 0x0000002)\n"
                         "PortXmitWait:....9000000000\n", "x")
    for order in ([basic, ext], [ext, basic]):
        (lk,) = port_counters(design, order).links
        assert lk.a.values[C.XMIT_WAIT] == 9000000000 and lk.a.saturated == ()


def test_cable_values_for_the_canvas(design):
    r = port_counters(design, load("perfquery_t0.txt"))
    v = r.cable_values(Metric.ERRORS)
    assert v.shape == (6,) and sorted(v.tolist()) == [0, 0, 0, 4, 91, 1241]
    assert sorted(r.cable_values(Metric.XMIT_WAIT).tolist()) == [0, 0, 0, 0, 5000, 123456]


def test_interval_must_be_positive(design):
    with pytest.raises(ValueError):
        port_counters(design, [], interval=0.0)
