"""Seeded mutation fuzzer over every reader fabricviz has (issue 11: "every file gets a verdict").

Seeds are made at run time with the project's own generators and writers, plus the real files in
``tests/data``. A mutant is named ``FORMAT:SEED:INDEX`` and is rebuilt from that alone
(:func:`mutant`): ``random.Random("FORMAT:SEED:INDEX")`` picks the seed file and one to three
mutations. :class:`Runner` reads every mutant in a fork of a warmed-up worker process (its peak RSS
measured alone), under an ``RLIMIT_AS`` cap, a CPU time limit and a generous wall-clock deadline, and
gives it one verdict:

``accepted``  loaded (and its native dump could be written and read back as the same design)
``refused``   a FabricError of one line that starts with the file (path or name) and a colon
``lost``      a valid seed given only a BOM and/or CRLF line ends, and not accepted
``unnamed``   a FabricError of several lines, or one that does not start with the file
``crash``     any other exception (type, message, innermost frame), or a failed save / reload of an
              accepted load (message prefixed ``save:`` / ``reload:``)
``hang``      no answer after ``timeout`` seconds of CPU time, or none within the wall-clock
              ``deadline`` (the fork is killed and replaced)
``memory``    MemoryError, the process died (RLIMIT_AS, a signal), or reading the file raised its
              process's peak RSS by more than a floor (32 MB) *and* by more than K (16) times the
              input's bytes (``Runner.mem_floor_mb``, ``Runner.mem_ratio``; ``mem_ratio`` of a Result
              is that rise over the bytes)

``noisy`` is counted on the side: the reader wrote to stdout/stderr (Python or fd 1/2) or warned.
The child-process side (verdicts, the worker pool) is tests/formats/fuzz_pool.py. ``bench/fuzz.py`` is
the command line; ``tests/formats/test_fuzz.py`` runs a few hundred in the suite.
"""

from __future__ import annotations

import json
import os
import random
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fabricviz.formats import _yaml
from fabricviz.model import FabricError
from tests.formats.fuzz_counters import COUNTER_FORMATS, counter_seeds, read_counters
from tests.formats.fuzz_pool import Runner, _stage, judge, names_place  # noqa: F401  (the API of this module)

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
#: the side files a command reads beside a design (issue 28): flow CSVs (simulate/export-htsim --flows),
#: prices (bom --prices), parts (FABRICVIZ_PARTS), htsim connection matrices; read with a design
SIDE_FORMATS = ("flows_csv", "prices", "parts", "htsim_cm")
FORMATS = ("native", "netjson", "graphml", "gml", "dot", "clab", "ibnetdiscover", "ibsim", "opensm_dump") + SIDE_FORMATS
FORMATS += COUNTER_FORMATS     # port counters files, read against their design (tests/formats/fuzz_counters.py)
OUTCOMES = ("accepted", "refused", "lost", "unnamed", "crash", "hang", "memory")
BAD = ("lost", "unnamed", "crash", "hang", "memory")
#: mutations that leave a valid file valid (a reader must accept the result)
BENIGN = ("bom", "crlf")
JSON_FORMATS = ("native", "netjson", "prices", "parts")
TREE_FORMATS = JSON_FORMATS + ("clab",)


# ---------------------------------------------------------------------------------------- seeds
@dataclass(frozen=True)
class Seed:
    """One seed file: its name (the ending tells the format), bytes, and for a dump its topology."""

    name: str
    data: bytes
    topology: tuple[str, bytes] | None = None   # (file name, bytes) the dump is replayed on


def _fabrics():
    from fabricviz.generate import fat_tree, leaf_spine
    return {"ft2-r4": fat_tree(levels=2, radix=4), "ft2-r8": fat_tree(levels=2, radix=8),
            "ft2-r4-dgx": fat_tree(levels=2, radix=4, servers="dgx"),
            "ls-2x2": leaf_spine(2, 2, 2)}


def _unique(paths) -> list[Path]:
    seen, out = set(), []
    for p in sorted(paths):
        b = p.read_bytes()
        if b not in seen:
            seen.add(b)
            out.append(p)
    return out


def make_seeds(fmt: str) -> list[Seed]:
    """The seed files of ``fmt`` (deterministic: the generators and the files in tests/data)."""
    from fabricviz.formats import clab, dot, gml, graphml, native, netjson
    from fabricviz.formats.ibnetdiscover import export_ibnetdiscover
    writers = {"native": (native.dumps, ".fabric.json"), "netjson": (netjson.dumps, ".netjson.json"),
               "graphml": (graphml.dumps, ".graphml"), "gml": (gml.dumps, ".gml"),
               "dot": (dot.dumps, ".dot"), "clab": (clab.dumps, ".clab.yml")}
    if fmt in writers:
        write, ext = writers[fmt]
        seeds = [Seed(k + ext, write(f).encode()) for k, f in _fabrics().items()]
        if fmt == "clab":
            seeds.append(Seed("clos01.clab.yml", (DATA / "clab" / "clos01.clab.yml").read_bytes()))
        return seeds
    if fmt == "ibnetdiscover":
        seeds = [Seed(k + ".ibnetdiscover", export_ibnetdiscover(f).encode())
                 for k, f in _fabrics().items() if k.startswith("ft")]
        return seeds + [Seed(p.name, p.read_bytes()) for p in sorted((DATA / "samples").glob("*.ibnetdiscover"))]
    if fmt == "ibsim":
        paths = list((DATA / "samples").glob("*.net")) + list((DATA / "opensm").glob("*/topology.net"))
        return [Seed(p.parent.name + "-" + p.name if p.name == "topology.net" else p.name, p.read_bytes())
                for p in _unique(paths)]
    if fmt == "opensm_dump":
        from fabricviz.formats.opensm_lfts import lfts_dump_text
        from fabricviz.ib.routing import route
        seeds = []
        for k, f in _fabrics().items():
            if k.startswith("ft2-r4"):
                for engine in ("minhop", "ftree"):
                    seeds.append(Seed(f"{k}-{engine}.opensm-lfts.dump", lfts_dump_text(route(f, engine)).encode(),
                                      (k + ".fabric.json", native.dumps(f).encode())))
        for d in sorted((DATA / "opensm").iterdir()):
            if (d / "opensm-lfts.dump").exists() and (d / "topology.net").exists():
                seeds.append(Seed(d.name + ".opensm-lfts.dump", (d / "opensm-lfts.dump").read_bytes(),
                                  (d.name + ".net", (d / "topology.net").read_bytes())))
        return seeds
    if fmt in SIDE_FORMATS:
        return _side_seeds(fmt)
    if fmt in COUNTER_FORMATS:
        return [Seed(*s) for s in counter_seeds(fmt)]
    raise ValueError(f"unknown format {fmt!r} (use {', '.join(FORMATS)})")


def _side_seeds(fmt: str) -> list[Seed]:
    """Seeds of the side files, each with the design it is read against (as its topology)."""
    from fabricviz.formats import native
    fabs = _fabrics()
    if fmt == "htsim_cm":
        return [Seed(p.name, p.read_bytes()) for p in sorted((DATA / "htsim").glob("perm-128-[12].cm"))]
    if fmt == "parts":
        from fabricviz.model.catalog import Catalog
        bundled = Catalog.default()   # FABRICVIZ_PARTS is unset in the fuzzer: the bundled parts
        doc = {"format": "fabricviz-catalog", "version": 1}
        parts = [p.to_dict() for p in bundled]
        return [Seed(f"parts-{k}.json", json.dumps(dict(doc, parts=[dict(d, id=d["id"] + "-mine") for d in sel
                                                                   if d["kind"] != "server"]), indent=2).encode())
                for k, sel in (("few", parts[:6]), ("all", parts))]
    seeds = []
    for k in ("ft2-r4", "ls-2x2"):
        f = fabs[k]
        topo = (k + ".fabric.json", native.dumps(f).encode())
        if fmt == "prices":
            ids = sorted({p.id for p in f.catalog})
            ids = ids[:12] if k == "ft2-r4" else ids[-12:]
            doc = {pid: (i * 1000 if i % 2 else {"price_usd": i * 10.5, "power_w": i}) for i, pid in enumerate(ids)}
            seeds.append(Seed(k + ".prices.json", json.dumps(doc, indent=1).encode(), topo))
        else:
            from fabricviz.sim.flows_csv import save_flows
            from fabricviz.sim.workloads import endpoints, permutation
            flows = permutation(endpoints(f), seed=1, size_bytes=1e6)
            with tempfile.TemporaryDirectory() as tmp:
                save_flows(f, flows, os.path.join(tmp, "f.csv"))
                seeds.append(Seed(k + ".flows.csv", Path(tmp, "f.csv").read_bytes(), topo))
    return seeds


def char_mutants(text: str, seed: int, count: int, alphabet: str):
    """``count`` seeded mutants of a small text file (1–6 characters replaced, deleted or
    inserted from ``alphabet`` each): for the line-oriented config readers, which the byte-level
    mutators above (made for design files) do not target."""
    rng = random.Random(seed)
    for _ in range(count):
        chars = list(text)
        for _ in range(rng.randint(1, 6)):
            i = rng.randrange(len(chars))
            op = rng.random()
            if op < 0.4:
                chars[i] = rng.choice(alphabet)
            elif op < 0.7:
                del chars[i]
            else:
                chars.insert(i, rng.choice(alphabet))
        yield "".join(chars)


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


@dataclass(frozen=True)
class Mutant:
    id: str
    seed: Seed
    data: bytes
    steps: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.id.replace(":", "-") + "-" + self.seed.name


_SEEDS: dict[str, list[Seed]] = {}


def seeds_of(fmt: str) -> list[Seed]:
    if fmt not in _SEEDS:
        _SEEDS[fmt] = make_seeds(fmt)
    return _SEEDS[fmt]


def mutant(fmt: str, seed: int, index: int) -> Mutant:
    """Mutant ``fmt:seed:index``: the same bytes every time, in any process."""
    rng = random.Random(f"{fmt}:{seed}:{index}")
    s = rng.choice(seeds_of(fmt))
    data, steps = s.data, []
    names = [n for n in WEIGHTS if fmt in ONLY.get(n, (fmt,))]
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
        if not data:
            break
        name = rng.choices(names, [WEIGHTS[n] for n in names])[0]
        data, what = MUTATORS[name](rng, data, fmt)
        steps.append(what)
    return Mutant(f"{fmt}:{seed}:{index}", s, data, tuple(steps))


def parse_id(text: str) -> tuple[str, int, int]:
    fmt, seed, index = text.split(":")
    if fmt not in FORMATS:
        raise ValueError(f"{text}: unknown format {fmt!r} (use {', '.join(FORMATS)})")
    return fmt, int(seed), int(index)


# ------------------------------------------------------------------------------- reading, verdicts
def read_mutant(fmt: str, path: str, topology: str | None):
    """What ``fabricviz`` does with the file: load_any (+ native dump), or replay a dump on its topology."""
    from fabricviz.loaders import load_any
    if fmt in SIDE_FORMATS:
        return read_side(fmt, path, topology)
    if fmt in COUNTER_FORMATS:
        return read_counters(path, topology)
    if fmt == "opensm_dump":
        from fabricviz.formats.opensm_replay import replay_files
        from fabricviz.ib.report import summary
        r = replay_files(topology, path)
        _stage("summary")
        summary(r)
        return
    fabric = load_any(path)
    from fabricviz.formats.native import dumps, loads
    _stage("save")
    text = dumps(fabric)
    _stage("reload")          # what was accepted and saved must open again, as the same design
    again = loads(text, path + " (saved)")
    if again.signature() != fabric.signature():
        raise AssertionError("the saved design reloads different: "
                             + _first_difference(fabric.signature(), again.signature()))


def read_side(fmt: str, path: str, topology: str | None) -> None:
    """What the command does with a side file: ``simulate --flows``, ``bom --prices``, a design
    under ``FABRICVIZ_PARTS``, the connection-matrix reader (no command reads one)."""
    from fabricviz.loaders import load_any
    if fmt == "htsim_cm":
        from fabricviz.formats.htsim import parse_connection_matrix
        from fabricviz.model.text import decode_utf8
        parse_connection_matrix(decode_utf8(Path(path).read_bytes(), path), path)
    elif fmt == "parts":
        from fabricviz.model.catalog import Catalog
        os.environ["FABRICVIZ_PARTS"] = path     # this fork only
        try:
            Catalog.default()
        finally:
            del os.environ["FABRICVIZ_PARTS"]
    elif fmt == "prices":
        from fabricviz.check.bom import bill_of_materials, load_prices
        bill_of_materials(load_any(topology), load_prices(path), path).format()
    else:
        from fabricviz.sim.flows_csv import load_flows
        load_flows(load_any(topology), path)


def warm() -> None:
    """Read one seed of every format here, so that a fork of this process starts with all imports done."""
    with tempfile.TemporaryDirectory(prefix="fabricviz-fuzz-warm-") as tmp:
        for fmt in FORMATS:
            s = seeds_of(fmt)[0]
            path = os.path.join(tmp, s.name)
            Path(path).write_bytes(s.data)
            topo = None
            if s.topology is not None:
                topo = os.path.join(tmp, s.topology[0])
                Path(topo).write_bytes(s.topology[1])
            judge(read_mutant, fmt, path, topo)


def _first_difference(a: tuple, b: tuple) -> str:
    """Which part of two Fabric.signature() tuples differs first, loaded vs. reloaded (short)."""
    for what, x, y in zip(("name", "meta", "devices", "cables", "parts"), a, b, strict=True):
        if x == y:
            continue
        if isinstance(x, tuple) and isinstance(y, tuple):
            for u, v in zip(x, y, strict=False):
                if u != v:
                    return f"{what}: {str(u)[:160]} -> {str(v)[:160]}"
            return f"{what}: {len(x)} -> {len(y)} items"
        return f"{what}: {str(x)[:160]} -> {str(y)[:160]}"
    return "?"


@dataclass
class Result:
    id: str
    outcome: str
    type: str = ""
    message: str = ""
    frame: str = ""
    noise: str = ""
    steps: tuple[str, ...] = ()
    seconds: float = 0.0
    size: int = 0            # bytes of the mutant file
    mem_mb: float = 0.0      # how much its process's peak RSS rose while reading it
    mem_ratio: float = 0.0   # that rise over the bytes read (the file, and a dump's topology)

    @property
    def root(self) -> str:
        """What groups results of the same cause: type + innermost frame (crash), message shape else."""
        if self.outcome == "crash":
            return f"{self.type} at {self.frame}"
        if self.outcome in ("unnamed", "memory"):
            return f"{self.type or self.outcome}: " + re.sub(r"\d+", "N", self.message.split(":", 1)[-1])[:80]
        return self.outcome + ": " + ",".join(sorted({s.split("@")[0].split(":")[0] for s in self.steps}))


def fuzz(formats, per_format: int, seed: int, runner: Runner, workdir: str | None = None,
         progress: Callable[[str, int], None] | None = None) -> dict[str, tuple[list[Result], float]]:
    """Run ``per_format`` mutants of each format; format -> (results, wall seconds)."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="fabricviz-fuzz-", dir=workdir) as tmp:
        for fmt in formats:
            t0 = time.perf_counter()
            topo_paths = {}
            for s in seeds_of(fmt):
                if s.topology is not None:
                    tp = os.path.join(tmp, s.topology[0])
                    Path(tp).write_bytes(s.topology[1])
                    topo_paths[s.name] = tp
            muts = {}

            def tasks(fmt=fmt, muts=muts, topo_paths=topo_paths):
                for i in range(per_format):
                    m = mutant(fmt, seed, i)
                    muts[m.id] = (m.steps, len(m.data))
                    yield m.id, (fmt, os.path.join(tmp, m.name), topo_paths.get(m.seed.name)), m.data
            res = runner.run(tasks())
            results = []
            for key, (steps, size) in muts.items():
                r = res[key]
                if r["outcome"] != "accepted" and steps and all(st in BENIGN for st in steps) \
                        and steps.count("bom") <= 1:
                    r = dict(r, outcome="lost")          # a valid file with a BOM / CRLF was refused
                results.append(Result(key, r["outcome"], r["type"], r["message"], r["frame"], r["noise"],
                                      steps, r.get("seconds", 0.0), size, r.get("mem_mb", 0.0),
                                      r.get("mem_ratio", 0.0)))
            out[fmt] = (results, time.perf_counter() - t0)
            if progress:
                progress(fmt, len(results))
    return out


def failures(results: list[Result]) -> list[Result]:
    return [r for r in results if r.outcome in BAD or r.noise]
