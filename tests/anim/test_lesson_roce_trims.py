"""Lesson 5's last step: the same five flows with receiver-driven spraying and trimming (EQDS) instead
of PFC. Every number its narration quotes is pinned here to the engines' value (lessons.py: a text
that quotes the engines is checked against them)."""

from __future__ import annotations

import re

import pytest

from fabricviz.anim.lessons import find_lesson
from tests.anim.lesson_runs import shared_run

TITLE = "Spraying + trimming instead of PFC"


@pytest.fixture(scope="module")
def lesson5():
    les = find_lesson("roce-incast")
    return les, shared_run(les)


def _step(res, title):
    return next(r for r in res if r.title == title)


@pytest.mark.slow
def test_spraying_and_trimming_pauses_nothing_and_trims_the_shared_link(lesson5):
    les, res = lesson5
    assert res[-1].title == TITLE and les.steps[-1].params["transport"] == "eqds"
    eq = res[-1].traffic
    f = res[-1].fabric
    assert eq.transport == "eqds" and eq.result.routing == "spray" and eq.paused_cables == ()
    s1s2 = int(f.port("s1:1").cable.id)
    assert eq.trimming_cables == (s1s2,)                       # only where the victim meets host a's flow
    trims = eq.result.frames[0].link_trims_per_s
    link = 2 * s1s2 + (0 if int(f.cables_t.port_a[s1s2]) == int(f.port("s1:1").id) else 1)
    assert float(trims[link]) == pytest.approx(300_481, abs=1)
    assert float(eq.result.transport.link_trim[link]) == pytest.approx(0.2, abs=1e-9)
    assert res[-1].lines[-4] == ("trimmed: 1 link cut packets to headers, the most s1:1 -> s2:1: 300,481 packets/s "
                                 "(20.0% of what it is offered); paused links: none (no PFC)")
    victim, a = eq.flows[-1], eq.flows[3]
    assert (victim.src, victim.dst, a.src, a.dst) == ("v", "r2", "a", "r")
    assert victim.gbps == pytest.approx(40 * 0.8 * 4096 / 4160, rel=1e-6)      # 80 % whole, EQDS payload
    assert a.gbps == pytest.approx(10 * 0.8 * 4096 / 4160, rel=1e-6)


@pytest.mark.slow
def test_the_narration_quotes_the_engines(lesson5):
    les, res = lesson5
    say = les.steps[-1].say
    pfc, dcqcn, eq = (_step(res, t).traffic for t in ("PFC alone: the victim", "DCQCN", TITLE))
    assert pfc.summary["paused_link_count"] == 6 and "against six with PFC alone" in say
    assert eq.summary.get("paused_link_count", 0) == 0 and "no link is paused" in say
    quoted = [float(x) for x in re.findall(r"(\d+\.\d) Gb/s", say)]
    assert quoted == [round(eq.flows[-1].gbps, 1), round(eq.flows[3].gbps, 1)]            # 31.5, 7.9
    assert f"PFC alone left it {pfc.flows[-1].gbps:.1f} and DCQCN {dcqcn.flows[-1].gbps:.1f}" in say
    f = res[-1].fabric
    s1s2 = int(f.port("s1:1").cable.id)
    link = 2 * s1s2 + (0 if int(f.cables_t.port_a[s1s2]) == int(f.port("s1:1").id) else 1)
    assert "a fifth of what that link is offered" in say and \
        float(eq.result.transport.link_trim[link]) == pytest.approx(1 / 5)
    assert "about 300,000 packets a second" in say and \
        round(float(eq.result.frames[0].link_trims_per_s[link]), -4) == 300_000
    assert "of its 10" in say and round(pfc.flows[3].gbps) == 10           # host a's fair share of host r
