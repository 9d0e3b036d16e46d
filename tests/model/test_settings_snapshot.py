"""A parsed setting keeps a snapshot of its raw meta value to tell later whether it changed
(issue 28: ``copy.deepcopy`` of a 32,767-statement ``meta.partitions`` made ~330,000 calls when the
Traffic dock opened and asked for the design's partitions). The snapshot goes through JSON: the
same value, with the same kinds, as the deep copy (kept below as the reference) on the repo's
partitions.conf and seeded random ones, the same re-reads after edits in place, and a cost that
does not grow with the statements and members in Python calls."""

from __future__ import annotations

import copy
import math
import random
from collections import OrderedDict
from pathlib import Path

import pytest

from fabricviz.formats.partitions_conf import loads
from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib.partitions import META_KEY, design_partitions, end_ports, from_meta, to_meta
from fabricviz.ib.subnet import discover
from fabricviz.model import Fabric
from fabricviz.model import settings as settings_mod
from fabricviz.model.settings import snapshot
from tests.check.test_lint_partitions_arrays import random_conf
from tests.work import calls

K4_CONF = Path(__file__).parents[1] / "ib" / "pkeys_k4_partitions.conf"


def same(a, b) -> bool:
    """Equal, kind by kind (``==`` takes 1 for 1.0 and a list for nothing but a list, not enough)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def shared(a, b) -> bool:
    """Whether the copy ``b`` shares a mutable container with ``a`` (an edit of one would reach both)."""
    if isinstance(a, dict | list) and a is b:
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return any(shared(a[k], b[k]) for k in a if k in b)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return any(shared(x, y) for x, y in zip(a, b, strict=False))
    return False


def _metas():
    yield to_meta(loads(K4_CONF.read_text(), "k4.conf"))
    guids = sorted(end_ports(discover(k_ary_fat_tree(4))))
    for seed in range(6):
        rng = random.Random(seed)
        yield to_meta(loads(random_conf(rng, guids, rng.randrange(1, 300)), f"seed{seed}"))


class Thing:
    """Not JSON: deep-copied."""

    def __init__(self) -> None:
        self.v = [1]

    def __eq__(self, other: object) -> bool:
        return type(other) is Thing and other.v == self.v


ODD = [{"a": (1, 2)}, {1: "x"}, [float("nan")], {"x": [float("inf")]}, (1, [2]), Thing(), {"o": Thing()},
       OrderedDict(a=1), [1, 1.0, True, None, "é\u202e", -0.0, 2**70], {"deep": [[[{"k": [1.5]}]]]}]


@pytest.mark.parametrize("raw", [*_metas(), *ODD], ids=lambda r: type(r).__name__)
def test_the_snapshot_is_the_deep_copy(raw):
    got, want = snapshot(raw), copy.deepcopy(raw)
    assert same(got, want) and not shared(raw, got)


def test_partitions_are_read_again_exactly_when_the_deep_copy_would(monkeypatch):
    """The same edits in place, with the snapshot and with the deep copy: the same parses."""
    def run() -> list[object]:
        f = Fabric()
        f.meta[META_KEY] = to_meta(loads(K4_CONF.read_text(), "k4.conf"))
        seen = []
        for edit in (lambda m: None, lambda m: m["statements"][1]["members"].append(["ALL", "limited"]),
                     lambda m: m["statements"][2].update(pkey="0x0033"), lambda m: None,
                     lambda m: m["statements"][3]["members"][0].__setitem__(1, "full"),
                     lambda m: m["statements"].pop(), lambda m: m.update(version=m.get("version", 1))):
            edit(f.meta[META_KEY])
            before = len(f.settings._parsed)
            conf = design_partitions(f)
            assert conf is not None
            seen.append([(p.name, p.pkey, p.members) for p in conf.merged()])
            seen.append(conf is design_partitions(f) and before == 1)      # kept while unchanged
            assert seen[-2] == [(p.name, p.pkey, p.members) for p in from_meta(f.meta[META_KEY]).merged()]
        return seen
    new = run()
    monkeypatch.setattr(settings_mod, "snapshot", copy.deepcopy)
    assert run() == new


def _meta(n: int) -> dict:
    return to_meta(loads("".join(f"p{i}=0x{i:04x} : ALL=full, 0x{i:x}=limited, SELF ;\n"
                                 for i in range(1, n + 1)), "big.conf"))


def test_snapshot_work_does_not_grow_with_statements():
    """n and 4n statements of 3 members: the snapshot is a few calls either way; the deep copy
    made several per statement and member."""
    small, big = _meta(500), _meta(2000)
    assert calls(snapshot, small)[1] == calls(snapshot, big)[1] < 20
    deep = calls(copy.deepcopy, big)[1] - calls(copy.deepcopy, small)[1]
    assert deep > 1500 * 3 * 3, deep
    f = Fabric()
    f.meta[META_KEY] = big
    _conf, parse = calls(f.settings.parsed, META_KEY, lambda raw: None)
    assert parse < 40, parse
