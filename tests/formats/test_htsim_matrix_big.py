"""A big htsim connection matrix is read in bulk, in work linear in its lines (issue 28: 1.1M lines
took over 20 s). Counted, not timed: bench/big_inputs.py times a 1.1M-line matrix."""

from __future__ import annotations

import pytest

from fabricviz.formats import htsim
from fabricviz.formats.htsim import Connection, parse_connection_matrix
from fabricviz.model import FabricError
from tests.work import calls


def _matrix(n: int, extra: str = "") -> str:
    return "# made by a test\nNodes 128\nConnections " + str(n + extra.count("->")) + "\n" + "".join(
        f"{i % 128}->{(i + 1) % 128} id {i + 1} start {i * 1000} size 4096\n" for i in range(n)) + extra


def test_plain_lines_cost_few_calls_each():
    """The flow lines are checked by one pattern and converted in bulk: 3 calls per line (the
    named tuple's), where the line reader makes ~20."""
    cm, half = calls(parse_connection_matrix, _matrix(5000), "cm")
    cm2, full = calls(parse_connection_matrix, _matrix(10000), "cm")
    assert len(cm2.connections) == 10000 and cm2.connections[-1] == Connection(15, 16, 10000, 4096, 9999000)
    assert full - half < 4 * 5000, (half, full)


@pytest.mark.parametrize("extra", [
    "3->4 id 9 trigger 2 size 10\ntrigger id 2 count 1 barrier\n",      # a trigger: the line reader
    "3->4 id 9 start 1e3 size 10\n",                                      # a float start
    "3->4 id 9 start 1234567890123456789 size 10\n",                      # 19 digits
])
def test_bulk_reader_equals_line_reader(monkeypatch, extra):
    text = _matrix(300, extra).replace("Connections 301", "Connections 301\nTriggers 1" if "trigger id" in extra
                                       else "Connections 301")
    bulk = parse_connection_matrix(_matrix(300), "cm")
    monkeypatch.setattr(htsim, "_plain_flows", lambda body: None)
    assert parse_connection_matrix(_matrix(300), "cm") == bulk
    monkeypatch.undo()
    mixed = parse_connection_matrix(text, "cm")
    monkeypatch.setattr(htsim, "_plain_flows", lambda body: None)
    assert parse_connection_matrix(text, "cm") == mixed and len(mixed.connections) == 301


@pytest.mark.parametrize(("body", "why"), [
    ("1->2 id 0 start 5 size 4\n", "cm:4: a flow needs a non-zero id"),
    ("1->2 id 1 start 5 size 4\n# late\n", "cm:5: unknown line '# late'"),
    ("1->2 id 1 start 5 size 4\n1->2 id 2 start 5 size 4\n", "cm: Connections 1 declared, 2 given"),
])
def test_a_bad_line_is_named_by_the_line_reader(body, why):
    with pytest.raises(FabricError) as e:
        parse_connection_matrix("Nodes 4\nConnections 1\n" + "\n" + body, "cm")
    assert str(e.value) == why
