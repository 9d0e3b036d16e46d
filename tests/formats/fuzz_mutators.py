"""The mutators of the fuzzer (tests/formats/fuzzing.py): byte noise, line edits, and the
structure-aware ones that parse a seed (JSON/YAML trees, GML/GraphML graphs, ibsim files) and change
one thing in it. Each takes (rng, data, fmt) and returns the new bytes and the step's name."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable

from fabricviz.formats import _yaml
from fabricviz.model import FabricError

JSON_FORMATS = ("native", "netjson", "prices", "parts")
TREE_FORMATS = JSON_FORMATS + ("clab",)

# -------------------------------------------------------------------------------------- mutators
NUM = re.compile(rb"0x[0-9a-fA-F]+|(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
QUOTED = re.compile(rb'"([^"\\\n]{0,200})"')
WORD = re.compile(rb"[A-Za-z_][\w-]*")
BOM = b"\xef\xbb\xbf"
DEEP = 10_000


def _numbers(rng: random.Random, tok: bytes) -> list[bytes]:
    hex17 = "".join(rng.choice("0123456789abcdef") for _ in range(16))
    lead = b"0x0" + tok[2:] if tok.startswith(b"0x") else b"0" + tok.lstrip(b"-") if tok[:1] != b"-" else b"007"
    return [b"1e400", b"-1", b"0", b"99999999999999999999", str(2 ** 63).encode(), str(2 ** 64).encode(),
            b"32768", b"65536", b"1e9", b"nan", b"inf", b"-inf", ("0x1" + hex17).encode(), lead]


def _pick(rng: random.Random, pattern: re.Pattern, data: bytes, group: int = 0):
    ms = list(pattern.finditer(data))
    return rng.choice(ms).span(group) if ms else None


def _splice(data: bytes, span: tuple[int, int], new: bytes) -> bytes:
    return data[:span[0]] + new + data[span[1]:]


def m_flip(rng, data, fmt):
    i = rng.randrange(len(data))
    new = (data[i] + rng.randrange(1, 256)) % 256       # never the byte it was
    return data[:i] + bytes([new]) + data[i + 1:], f"flip@{i}"


def m_insert(rng, data, fmt):
    i = rng.randrange(len(data) + 1)
    ins = bytes(rng.choice(b'{}[]<>":,=\n#\\ 0x-') for _ in range(rng.randint(1, 8)))
    return data[:i] + ins + data[i:], f"insert@{i}:{ins!r}"


def m_delete(rng, data, fmt):
    i = rng.randrange(len(data))
    n = rng.randint(1, 16)
    return data[:i] + data[i + n:], f"delete@{i}+{n}"


def m_truncate(rng, data, fmt):
    i = rng.randrange(len(data))
    return data[:i], f"truncate@{i}"


def _lines(data):
    return data.split(b"\n")


def m_line_delete(rng, data, fmt):
    ls = _lines(data)
    i = rng.randrange(len(ls))
    return b"\n".join(ls[:i] + ls[i + 1:]), f"line-delete:{i + 1}"


def m_line_dup(rng, data, fmt):
    ls = _lines(data)
    i = rng.randrange(len(ls))
    return b"\n".join(ls[:i + 1] + ls[i:]), f"line-dup:{i + 1}"


def m_line_swap(rng, data, fmt):
    ls = _lines(data)
    i = rng.randrange(len(ls))
    others = [j for j in range(len(ls)) if ls[j] != ls[i]]
    if not others:
        return m_flip(rng, data, fmt)
    j = rng.choice(others)
    ls[i], ls[j] = ls[j], ls[i]
    return b"\n".join(ls), f"line-swap:{i + 1},{j + 1}"


def m_number(rng, data, fmt):
    span = _pick(rng, NUM, data)
    if span is None:
        return m_flip(rng, data, fmt)
    old = data[span[0]:span[1]]
    new = rng.choice([n for n in _numbers(rng, old) if n != old])
    return _splice(data, span, new), f"number@{span[0]}:{new.decode()}"


def m_string(rng, data, fmt):
    span = _pick(rng, QUOTED, data, 1) or _pick(rng, WORD, data)
    if span is None:
        return m_flip(rng, data, fmt)
    old = data[span[0]:span[1]]
    new = rng.choice([n for n in (b"", b" x", b" " + old, b"x" * 100_000, "\u00f1\u6f22\u5b57\U0001f642".encode(),
                                  b'"') if n != old])
    return _splice(data, span, new), f"string@{span[0]}:{new[:12]!r}{'...' if len(new) > 12 else ''}"


def m_deepen(rng, data, fmt):
    n = DEEP
    if fmt in JSON_FORMATS:
        span = _pick(rng, NUM, data) or _pick(rng, QUOTED, data)
        if span is None:
            return m_flip(rng, data, fmt)
        if rng.random() < 0.5:
            new = b"[" * n + data[span[0]:span[1]] + b"]" * n
        else:
            new = b'{"a":' * n + data[span[0]:span[1]] + b"}" * n
        return _splice(data, span, new), f"deepen@{span[0]}"
    if fmt == "gml":
        i = data.find(b"[", rng.randrange(len(data))) + 1 or data.find(b"[") + 1
        new = b" a [" * n + b"]" * n if rng.random() < 0.5 else b"[" * n
        return data[:i] + new + data[i:], f"deepen-gml@{i}"
    if fmt == "graphml":
        i = data.find(b"<node", rng.randrange(len(data)))
        i = i if i >= 0 else data.find(b"<node")
        return data[:i] + b"<a>" * n + b"</a>" * n + data[i:], f"deepen-xml@{i}"
    if fmt == "dot":
        i = data.find(b"{") + 1
        return data[:i] + b"subgraph {" * n + b"}" * n + data[i:], f"deepen-dot@{i}"
    if fmt == "clab":
        ls = _lines(data)
        i = rng.randrange(len(ls))
        if rng.random() < 0.5:
            chain = [b"  " * k + b"k:" for k in range(1000)]
        else:
            chain = [b"deep: " + b"[" * n + b"1" + b"]" * n]
        return b"\n".join(ls[:i] + chain + ls[i:]), f"deepen-yaml:{i + 1}"
    ls = _lines(data)          # line formats: a very long line
    i = rng.randrange(len(ls))
    return b"\n".join(ls[:i] + [b"[1] " + b"x" * 1_000_000] + ls[i:]), f"long-line:{i + 1}"


def m_bom(rng, data, fmt):
    return BOM + data, "bom2" if data.startswith(BOM) else "bom"     # a second BOM is content


_JSON_KEY = rb'(?m)^[ \t]*"[^"\n]+"[ \t]*:[^\n]*,[ \t]*$'
DUP_KEY = {"native": _JSON_KEY, "netjson": _JSON_KEY,
           "gml": rb"(?m)^[ \t]*\w+[ \t]+[^\s\[][^\n]*$", "clab": rb"(?m)^[ \t]*[\w-]+:[ \t]*\S[^\n]*$",
           "graphml": rb'<[a-z]+ [^>]*?(?<!\w)(\w{1,40}="[^"]*")', "dot": rb"(?<!\w)\w{1,40}=(?:\"[^\"]*\"|\w+)"}


def m_dup_key(rng, data, fmt):
    pat = DUP_KEY.get(fmt)
    span = _pick(rng, re.compile(pat), data, 1 if fmt == "graphml" else 0) if pat else None
    if span is None:
        return m_line_dup(rng, data, fmt)
    tok = data[span[0]:span[1]]
    sep = b"\n" if fmt in ("native", "netjson", "gml", "clab") else b" "
    return data[:span[1]] + sep + tok + data[span[1]:], f"dup-key@{span[0]}"


def m_json_special(rng, data, fmt):
    span = _pick(rng, NUM, data)
    if span is None:
        return m_flip(rng, data, fmt)
    new = rng.choice([b"Infinity", b"-Infinity", b"NaN"] if fmt in JSON_FORMATS else [b"inf", b"-inf", b"nan"])
    return _splice(data, span, new), f"special@{span[0]}:{new.decode()}"


HEADER = re.compile(rb"(?m)^(?:Switch|Ca|Hca|Rt)[ \t]+(\d+)")
LIDS = re.compile(rb"Unicast lids \[0-(\d+)\]")


def m_huge_count(rng, data, fmt):
    big = rng.choice([b"100000000", b"256", b"255", b"65536", b"999999999999", b"0"])
    if fmt in ("ibnetdiscover", "ibsim"):
        if rng.random() < 0.3:
            return data + b'\nHca ' + big + b' "Hca1"\n[1] "Switch1"[1]\n', f"append-hca:{big.decode()}"
        span = _pick(rng, HEADER, data, 1)
    elif fmt == "opensm_dump":
        big = rng.choice([b"999999999999", b"49152", b"65535", b"0", b"100000000"])
        span = _pick(rng, LIDS, data, 1)
    else:
        span = _pick(rng, NUM, data)
    if span is None or data[span[0]:span[1]] == big:
        return m_number(rng, data, fmt)
    return _splice(data, span, big), f"count@{span[0]}:{big.decode()}"


def m_grow(rng, data, fmt):
    """ibsim: append a whole tree of N CAs (up to past the 49,151 unicast LIDs): big, valid-looking input."""
    k, per = rng.choice((500, 5000, 50_000)), 35
    nsw = -(-k // per)
    out = [b'Switch 254 "fz-root"'] + [b'[%d] "fz-sw%d"[36]' % (j + 1, j) for j in range(min(nsw, 254))] + [b""]
    for j in range(nsw):
        out.append(b'Switch 36 "fz-sw%d"' % j)
        out += [b'[%d] "fz-ca%d"[1]' % (q + 1, j * per + q) for q in range(min(per, k - j * per))] + [b""]
    out += [b'Hca 1 "fz-ca%d"\n' % i for i in range(k)]
    return data.rstrip(b"\n") + b"\n\n" + b"\n".join(out) + b"\n", f"grow:{k}"


def m_crlf(rng, data, fmt):
    if rng.random() < 0.8:
        return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"), "crlf"
    return data.replace(b"\n", b"\r"), "cr"


HOLE = "@@fuzz-hole@@"


def _hostile(rng: random.Random, old, fmt: str) -> str:
    """Raw text of a hostile value (JSON for native/NetJSON; the YAML spelling for containerlab)."""
    inf, nan = ("Infinity", "NaN") if fmt in JSON_FORMATS else (".inf", ".nan")
    hex17 = "0x1" + "".join(rng.choice("0123456789abcdef") for _ in range(16))
    strs = ["", " x", " " + str(old), "x" * 100_000, "\u00f1\u6f22\u5b57\U0001f642", '"', hex17, "007",
            "0x0" + "1" * 15]
    raw = ["1e400", "-1", "0", "99999999999999999999", str(2 ** 63), str(2 ** 64), "32768", "65536", "1e9", "1.5",
           "-0.5", inf, "-" + inf, nan, "null", "true", "[]", "{}", "[" * DEEP + "]" * DEEP]
    if rng.random() < 0.4:
        return json.dumps(rng.choice(strs), ensure_ascii=False)
    return rng.choice(raw)


def m_tree(rng, data, fmt):
    """Parse the file (JSON / YAML), change one value, key or list item, write it back: reaches the semantics."""
    try:
        obj = json.loads(data) if fmt in JSON_FORMATS else _yaml.load(data.decode("utf-8"))
        slots, stack = [], [obj] if isinstance(obj, (dict, list)) else []   # (container, key) of every value
        while stack:
            c = stack.pop()
            for k, v in (c.items() if isinstance(c, dict) else enumerate(c)):
                slots.append((c, k))
                if isinstance(v, (dict, list)):
                    stack.append(v)
        if not slots or fmt not in TREE_FORMATS:
            return m_number(rng, data, fmt)
        c, k = rng.choice(slots)
        op, raw = rng.choice(["hostile"] * 4 + ["delete", "dup", "copy", "rename"]), None
        if op == "delete":
            del c[k]
        elif op == "dup" and isinstance(c, list):
            c.insert(k, json.loads(json.dumps(c[k])))
        elif op == "copy":
            oc, ok = rng.choice(slots)
            c[k] = json.loads(json.dumps(oc[ok]))
        elif op == "rename" and isinstance(c, dict):
            new = rng.choice(["", " " + str(k), str(k) + "_", str(k).upper(), rng.choice(list(c))])
            items = [(new if kk == k else kk, vv) for kk, vv in c.items()]
            c.clear()
            c.update(items)
        else:
            op, raw = "hostile", _hostile(rng, c[k], fmt)
            c[k] = HOLE
        text = json.dumps(obj, indent=1, ensure_ascii=False) if fmt in JSON_FORMATS else _yaml.dump(obj)
    except (ValueError, FabricError, RecursionError):    # not parseable (an earlier step), or nested too deep
        return m_number(rng, data, fmt)
    if raw is not None:
        text = text.replace(json.dumps(HOLE), raw, 1)
    return text.encode(), f"tree-{op}:{k}" + (f"={raw[:12]}" if raw is not None else "")


def m_copy(rng, data, fmt):
    """Put one quoted string or number of the file where another is: valid tokens, wrong references."""
    pat = rng.choice((QUOTED, NUM))
    ms = list(pat.finditer(data))
    if len(ms) < 2:
        return m_number(rng, data, fmt)
    a, b = rng.sample(ms, 2)
    if a.group() == b.group():
        return m_number(rng, data, fmt)
    return _splice(data, a.span(), b.group()), f"copy@{a.start()}:{b.group()[:20].decode(errors='replace')}"


GRAPH_RAW = {"gml": ["1e400", "-1", "0", "99999999999999999999", str(2 ** 64), "32768", "1.5", "INF", "-INF",
                     "NAN", '""', '" x"', '"' + "x" * 100_000 + '"', '"\u00f1\u6f22"', "[ ]", "[ a 1 ]"],
             "graphml": ["1e400", "-1", "0", "99999999999999999999", str(2 ** 64), "32768", "1.5", "inf", "nan",
                         "", " x", "x" * 100_000, "\u00f1\u6f22", "0x1" + "f" * 16, "007", "true"]}


def m_graph(rng, data, fmt):
    """GML / GraphML through networkx: change an attribute, or add / drop / copy a node or an edge."""
    import networkx as nx
    try:
        text = data.decode("utf-8")
        G = (nx.parse_gml(text, label="label") if fmt == "gml"
             else nx.parse_graphml(text, force_multigraph=True))
        if fmt not in GRAPH_RAW or not G.number_of_nodes():
            return m_number(rng, data, fmt)
        nodes, edges = list(G.nodes), list(G.edges(keys=True)) if G.is_multigraph() else list(G.edges)
        op, raw = rng.choice(["attr"] * 4 + ["drop-attr", "add-node", "drop-node", "add-edge", "self-loop"]), None
        u = rng.choice(nodes)
        if op in ("attr", "drop-attr"):
            attrs = G.nodes[u] if not edges or rng.random() < 0.5 else G.edges[rng.choice(edges)]
            if not attrs:
                return m_number(rng, data, fmt)
            key = rng.choice(sorted(attrs))
            if op == "drop-attr":
                del attrs[key]
            else:
                attrs[key], raw = HOLE, rng.choice(GRAPH_RAW[fmt])
            op += ":" + key
        elif op == "add-node":
            G.add_node(max((n for n in nodes if isinstance(n, int)), default=0) + 10_000 if fmt == "gml"
                       else f"fuzz{len(nodes)}", **dict(G.nodes[u]))
        elif op == "drop-node":
            G.remove_node(u)
        else:
            v = u if op == "self-loop" else rng.choice(nodes)
            attrs = dict(G.edges[rng.choice(edges)]) if edges else {}
            G.add_edge(u, v, **attrs)
        lines = nx.generate_gml(G) if fmt == "gml" else nx.generate_graphml(G, prettyprint=True)
        text = "\n".join(lines) + "\n"
    except (nx.NetworkXError, ValueError, TypeError, KeyError, AttributeError, IndexError, SyntaxError,
            RecursionError):        # not readable (an earlier step) or not writable: plain token noise
        return m_number(rng, data, fmt)
    if raw is not None:
        text = text.replace('"' + HOLE + '"' if fmt == "gml" else HOLE, raw, 1)
    return text.encode(), f"graph-{op}" + (f"={raw[:12]}" if raw is not None else "")


MUTATORS: dict[str, Callable] = {
    "flip": m_flip, "insert": m_insert, "delete": m_delete, "truncate": m_truncate,
    "line-delete": m_line_delete, "line-dup": m_line_dup, "line-swap": m_line_swap,
    "number": m_number, "string": m_string, "deepen": m_deepen, "bom": m_bom, "dup-key": m_dup_key,
    "special": m_json_special, "huge-count": m_huge_count, "crlf": m_crlf, "tree": m_tree, "copy": m_copy,
    "graph": m_graph, "grow": m_grow}
#: how often each is drawn (structure-aware ones more, since they reach deeper than byte noise)
WEIGHTS = {"flip": 2, "insert": 2, "delete": 2, "truncate": 1, "line-delete": 2, "line-dup": 2, "line-swap": 1,
           "number": 6, "string": 4, "deepen": 1, "bom": 1, "dup-key": 2, "special": 2, "huge-count": 2, "crlf": 1,
           "tree": 6, "copy": 3, "graph": 6, "grow": 1}
#: the structure-aware mutators and the formats they parse
ONLY = {"tree": TREE_FORMATS, "graph": ("gml", "graphml"), "grow": ("ibsim",)}
