"""GML through networkx: the same flat MultiGraph as GraphML (see :mod:`fabricviz.formats.graphml`).

networkx numbers the nodes and keeps the device name as ``label``; parallel
cables carry their ``key`` (``multigraph 1``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import networkx as nx

from ..model import Fabric
from ..model.inputs import MAX_INPUT_BYTES, read_input
from .graphml import from_networkx, to_networkx
from .limits import MAX_DEPTH, FileFormatError, one_line, strip_bom
from .native import save_text_atomic

FORMAT = "gml"
SUFFIXES = (".gml",)


def dumps(fabric: Fabric) -> str:
    G = to_networkx(fabric)
    for _u, _v, k, d in G.edges(keys=True, data=True):
        d["cable"] = k
    return "\n".join(nx.generate_gml(G)) + "\n"


def save(fabric: Fabric, path: str | os.PathLike[str]) -> None:
    save_text_atomic(dumps(fabric), path)


def loads(text: str, where: str = "<gml>") -> Fabric:
    text = strip_bom(text)
    check(text, where)
    try:
        G = nx.parse_gml(text, label="label")
    except nx.NetworkXError as e:   # these name the line or the node/edge number themselves
        raise FileFormatError(one_line(f"{where}: {str(e)[:200]}")) from None
    except (ValueError, TypeError, AttributeError, IndexError, KeyError) as e:
        # check() refuses what networkx is known to trip on; this names anything it missed
        raise FileFormatError(one_line(f"{where}: not a GML graph networkx can read "
                                       f"({type(e).__name__}: {str(e)[:120]})")) from None
    if not G.is_multigraph():
        G = nx.MultiGraph(G)
    try:
        return from_networkx(G, where)
    except FileFormatError as e:
        raise FileFormatError(one_line(str(e))) from None


_TOKEN = re.compile(r'(?P<key>[A-Za-z][0-9A-Za-z_]*)|(?P<str>"[^"]*")|(?P<open>\[)|(?P<close>\])'
                    r'|(?P<skip>#[^\n]*|\s+)|(?P<num>[^\s\[\]"#]+)')
#: keys networkx needs once, as a scalar: a second one (or a list) makes it raise without a place
_ONCE = {"graph": ("directed", "multigraph"), "node": ("id", "label"), "edge": ("source", "target", "key")}
_MAX_DIGITS = 4000


def check(text: str, where: str) -> None:
    """A streaming pass over the GML text before networkx parses it (recursively): lists nested
    at most MAX_DEPTH deep, ``graph``/``node``/``edge`` given as ``[ … ]``, and their structural
    keys (``id``, ``label``, ``source``, ``target``, ``key``, ``directed``, ``multigraph``) given
    once each, as scalars. FileFormatError ``where:LINE: element: why``; anything else is left to
    networkx, whose messages carry the line."""
    m = re.search(rf"[0-9]{{{_MAX_DIGITS},}}", text)
    if m:
        raise FileFormatError(f"{where}:{text.count(chr(10), 0, m.start()) + 1}: a number of "
                              f"{len(m.group(0))} digits")
    stack: list[tuple[str, str, set]] = [("top", "", set())]     # (kind, label, keys seen)
    counts = {"node": 0, "edge": 0}
    key: str | None = None
    line = 1
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            return                                        # networkx says where it cannot tokenize
        pos = m.end()
        tok_line = line
        kind = m.lastgroup
        if kind in ("skip", "str"):
            line += m.group(0).count("\n")
            if kind == "skip":
                continue
        frame, label, seen = stack[-1]
        if key is None:
            if kind == "close":
                if len(stack) == 1:
                    return
                stack.pop()
                continue
            if kind != "key":
                return                                    # networkx: "expected a key"
            key = m.group(0)
            continue
        # the value of `key`
        if key in _ONCE.get(frame, ()):
            if key in seen:
                raise FileFormatError(one_line(f"{where}:{tok_line}: {label}: key {key!r} given twice"))
            seen.add(key)
            if kind == "open":
                raise FileFormatError(one_line(f"{where}:{tok_line}: {label}: {key} must be a number or a "
                                               "string, not a list"))
        if frame == "top" and key == "graph" or frame == "graph" and key in counts:
            if kind != "open":
                raise FileFormatError(one_line(f"{where}:{tok_line}: {key} must be a list [ … ]"))
        if kind == "open":
            if len(stack) > MAX_DEPTH:
                raise FileFormatError(f"{where}:{tok_line}: lists nested deeper than {MAX_DEPTH}")
            if frame == "top" and key == "graph":
                stack.append(("graph", "graph", set()))
            elif frame == "graph" and key in counts:
                stack.append((key, f"{key} #{counts[key]}", set()))
                counts[key] += 1
            else:
                stack.append(("list", label, set()))
        elif kind == "close":
            return                                        # networkx: "expected a value"
        key = None


def load(path: str | os.PathLike[str]) -> Fabric:
    p = Path(path)
    return loads(read_input(p, MAX_INPUT_BYTES, "a design file").decode("utf-8"), str(p))


def sniff(text: str) -> bool:
    import re
    return re.match(r"\s*(Creator\s+\"[^\"]*\"\s*)?graph\s*\[", text) is not None
