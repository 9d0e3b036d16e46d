"""Graphviz DOT with ``"node":"port"`` cabling, the dialect NVIDIA Air imports.

One DOT node per top-level device (as in :mod:`fabricviz.formats.clab`, whose data model
this shares), with Air's ``function`` attribute (leaf/spine/core/server), fabricviz's data
as quoted attributes (``"fabricviz.kind"="ib_switch"``), and ``pos="x,y!"`` for
``neato -n``; one edge per cable: ``"leaf01":"swp3" -- "dgx01":"mlx5_2"`` (parallel cables
are separate edges: the graph is not ``strict``). So that Graphviz knows those ports (and
renders without "port … unrecognized" warnings), each node is a ``shape=record`` whose label
is its name over one field per cabled port, ``{leaf01|{<swp1> swp1|<swp3> swp3}}`` (Graphviz's
record syntax: a backslash escapes ``{ } | < > "``, space and backslash); the edge
statements stay Air's. Reading parses this dialect (node and edge statements with attribute
lists, ``//``/``#`` comments; ``shape`` and ``label`` are only drawing); a foreign Air file's
nodes become switches unless their ``function`` is ``server``/``host``.
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..model import Fabric
from ..model.inputs import MAX_INPUT_BYTES, read_input
from . import clab
from .limits import FileFormatError, one_line, strip_bom
from .native import save_text_atomic

FORMAT = "dot"
SUFFIXES = (".dot", ".gv")
HOST_FUNCTIONS = {"server", "host"}


def _q(s: Any) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _attrs(d: dict) -> str:
    return "[ " + " ".join(f"{_q(k)}={_q(v)}" for k, v in d.items()) + " ]" if d else ""


_RECORD_SPECIAL = re.compile(r'([\\{}|<>" ])')


def _record_text(s: str) -> str:
    """``s`` escaped for a record field (Graphviz matches no port whose name has a backslash,
    however it is escaped: such a port still draws, with a warning)."""
    return _RECORD_SPECIAL.sub(r"\\\1", s)


def _record(name: str, ports: list[str]) -> str:
    """The quoted record label of a node: its name over a row of its cabled ports."""
    fields = "|".join(f"<{_record_text(p)}> {_record_text(p)}" for p in ports)
    label = "{" + _record_text(name) + ("|{" + fields + "}" if ports else "") + "}"
    return '"' + label + '"'           # _record_text has escaped every quote and backslash


def dumps(fabric: Fabric) -> str:
    c = clab.to_dict(fabric)
    topo = c["topology"]
    ports: dict[str, list[str]] = {}
    for link in topo.get("links", []):
        for e in link["endpoints"]:
            node, port = e.rsplit(":", 1)
            ports.setdefault(node, []).append(port)
    out = [f"graph {_q(fabric.name)} {{"]
    glabels = topo["defaults"].get("labels", {})
    for k, v in glabels.items():
        out.append(f"  {_q(k)}={_q(v)}")
    for name, rec in topo["nodes"].items():
        labels = rec["labels"]
        attrs = {"function": "server" if labels["fabricviz.kind"] in ("server", "nic") else rec.get("group", "switch")}
        attrs.update(labels)
        attrs["pos"] = f"{labels['graph-posX']},{_neg(labels['graph-posY'])}!"
        attrs["shape"] = "record"
        record = _record(labels.get("fabricviz.name", name), list(dict.fromkeys(ports.get(name, []))))
        out.append(f"  {_q(name)} {_attrs(attrs)[:-1]}\"label\"={record} ]")
    for link in topo.get("links", []):
        (a, ai), (b, bi) = (e.rsplit(":", 1) for e in link["endpoints"])
        out.append(f"  {_q(a)}:{_q(ai)} -- {_q(b)}:{_q(bi)} {_attrs(dict(link['vars']))}".rstrip())
    out.append("}")
    return "\n".join(out) + "\n"


def _neg(y: str) -> str:
    v = -float(y)
    return str(int(v)) if v == int(v) else str(v)


def save(fabric: Fabric, path: str | os.PathLike[str]) -> None:
    save_text_atomic(dumps(fabric), path)


_TOKEN = re.compile(r'\s+|//[^\n]*|#[^\n]*|/\*.*?\*/'               # blanks and comments
                    r'|"((?:[^"\\]++|\\.)*+)"|(--|->)|([{}\[\]=;,:])|([A-Za-z0-9_.\-]+)', re.S)


def _tokens(text: str, where: str) -> Iterator[tuple[str, str, int]]:
    """(kind, value, line), one at a time: kind is "id" (quoted or bare), "--", or the punctuation
    itself. A generator, so a file of a million tokens never holds them all at once."""
    i, line = 0, 1
    while i < len(text):
        m = _TOKEN.match(text, i)
        if m is None:
            raise FileFormatError(f"{where}:{line}: unexpected character {text[i]!r}")
        tok_line = line
        line += m.group(0).count("\n")
        i = m.end()
        if m.group(1) is not None:
            yield ("id", re.sub(r'\\(["\\])', r"\1", m.group(1)), tok_line)
        elif m.group(2):
            if m.group(2) == "->":
                raise FileFormatError(f"{where}:{tok_line}: directed edge '->': cables are undirected (use --)")
            yield ("--", "--", tok_line)
        elif m.group(3):
            yield (m.group(3), m.group(3), tok_line)
        elif m.group(4):
            yield ("id", m.group(4), tok_line)


class _Parser:
    def __init__(self, toks: Iterator[tuple[str, str, int]], where: str) -> None:
        self.toks, self.where, self.line = toks, where, 1
        self.buf: deque[tuple[str, str, int]] = deque()

    def peek(self, k: int = 0) -> tuple[str, str, int]:
        while len(self.buf) <= k:
            tok = next(self.toks, None)
            if tok is None:
                return ("eof", "", self.line)
            self.buf.append(tok)
            self.line = tok[2]
        return self.buf[k]

    def skip(self) -> None:
        if self.peek()[0] != "eof":
            self.buf.popleft()

    def take(self, kind: str) -> tuple[str, str, int]:
        tok = self.peek()
        if tok[0] != kind:
            raise FileFormatError(f"{self.where}:{tok[2]}: expected {kind!r}, got {tok[1][:40] or 'end of file'!r}")
        self.skip()
        return tok

    def attr_list(self) -> dict:
        out: dict = {}
        while self.peek()[0] == "[":
            self.take("[")
            while self.peek()[0] != "]":
                k = self.take("id")[1]
                self.take("=")
                out[k] = self.take("id")[1]
                while self.peek()[0] in (",", ";"):
                    self.skip()
            self.take("]")
        return out

    def endpoint(self) -> tuple[str, str | None, int]:
        _, node, line = self.take("id")
        port = None
        if self.peek()[0] == ":":
            self.take(":")
            port = self.take("id")[1]
            if self.peek()[0] == ":":        # a compass point after the port
                self.take(":")
                self.take("id")
        return node, port, line

    def parse(self) -> tuple[str, dict, dict, list]:
        if self.peek()[1].lower() == "strict":
            self.skip()
        kw = self.take("id")
        if kw[1].lower() != "graph":
            raise FileFormatError(f"{self.where}:{kw[2]}: expected \"graph\" (digraphs are not cabling)")
        name = self.take("id")[1] if self.peek()[0] == "id" else "untitled"
        self.take("{")
        gattrs: dict[str, str] = {}
        nodes: dict[str, dict[str, Any]] = {}
        edges: list[tuple[tuple[str, str | None, int], tuple[str, str | None, int], dict]] = []
        while self.peek()[0] != "}":
            if self.peek()[0] == ";":
                self.skip()
                continue
            if (self.peek()[0] == "id" and self.peek()[1].lower() in ("node", "edge", "graph")
                    and self.peek(1)[0] == "["):
                self.skip()
                self.attr_list()            # defaults: not used
                continue
            if self.peek()[0] == "id" and self.peek(1)[0] == "=":
                k = self.take("id")[1]
                self.take("=")
                gattrs[k] = self.take("id")[1]
                continue
            a = self.endpoint()
            if self.peek()[0] == "--":
                chain = [a]
                while self.peek()[0] == "--":
                    self.take("--")
                    chain.append(self.endpoint())
                attrs = self.attr_list()
                for x, y in zip(chain, chain[1:], strict=False):
                    edges.append((x, y, attrs))
            else:
                nodes.setdefault(a[0], {}).update(self.attr_list())
            if self.peek()[0] == "eof":
                break
        self.take("}")
        return name, gattrs, nodes, edges


def loads(text: str, where: str = "<dot>") -> Fabric:
    try:
        return _loads(strip_bom(text), where)
    except FileFormatError as e:
        raise FileFormatError(one_line(str(e))) from None


def _loads(text: str, where: str) -> Fabric:
    name, gattrs, nodes, edges = _Parser(_tokens(text, where), where).parse()
    ours = any("fabricviz.kind" in a for a in nodes.values())
    cfg_nodes: dict[str, Any] = {}
    for n, a in nodes.items():
        labels = {k: v for k, v in a.items() if k.startswith(("fabricviz.", "graph-"))}
        cfg: dict[str, Any] = {"labels": labels}
        if not ours:
            cfg["kind"] = "linux" if a.get("function", "").lower() in HOST_FUNCTIONS else "switch"
        cfg_nodes[n] = cfg
    links = []
    for (an, ap, line), (bn, bp, _), attrs in edges:
        for node, port in ((an, ap), (bn, bp)):
            if port is None:
                raise FileFormatError(f"{where}:{line}: edge {an!r} -- {bn!r}: no port on {node!r} "
                                      "(cabling needs \"node\":\"port\")")
            cfg_nodes.setdefault(node, {"labels": {}, **({} if ours else {"kind": "switch"})})
        vars_ = {k: attrs[k] for k in ("cable_part", "cable_type") if k in attrs}
        if "length_m" in attrs:
            try:
                vars_["length_m"] = float(attrs["length_m"])
            except ValueError:
                raise FileFormatError(f"{where}:{line}: length_m: expected a number, "
                                      f"got {attrs['length_m']!r}") from None
        links.append({"endpoints": [f"{an}:{ap}", f"{bn}:{bp}"], "vars": vars_, "_line": line})
    data = {"name": name, "topology": {"defaults": {"labels": {k: v for k, v in gattrs.items()
                                                                if k.startswith("fabricviz.")}},
                                       "nodes": cfg_nodes, "links": [{k: v for k, v in lk.items() if k != "_line"}
                                                                     for lk in links]}}
    try:
        return clab.from_dict(data, where, len(text.encode("utf-8", "surrogatepass")))
    except FileFormatError as e:
        m = re.match(r"^(.*?): links\[(\d+)\]: (.*)$", str(e), re.S)
        if m and m.group(1) == where:
            lk = links[int(m.group(2))]
            raise FileFormatError(f"{where}:{lk['_line']}: edge {' -- '.join(lk['endpoints'])}: {m.group(3)}") from None
        raise


def load(path: str | os.PathLike[str]) -> Fabric:
    p = Path(path)
    return loads(read_input(p, MAX_INPUT_BYTES, "a design file").decode("utf-8"), str(p))


def sniff(text: str) -> bool:
    return re.match(r"\s*(strict\s+)?graph\b[^{]*\{", text) is not None
