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

from tests.formats.fuzz_counters import COUNTER_FORMATS, counter_seeds, read_counters
from tests.formats.fuzz_mutators import BOM, JSON_FORMATS, MUTATORS, ONLY, TREE_FORMATS, WEIGHTS  # noqa: F401  (the API of this module)
from tests.formats.fuzz_pool import Runner, _stage, judge, names_place  # noqa: F401  (the API of this module)
from tests.formats.fuzz_readers import READERS

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
#: the side files a command reads beside a design (issue 28): flow CSVs (simulate/export-htsim --flows),
#: prices (bom --prices), parts (FABRICVIZ_PARTS), htsim connection matrices; read with a design
SIDE_FORMATS = ("flows_csv", "prices", "parts", "htsim_cm")
#: the discovery outputs read by their own modules (issue 26): format -> the sample files that seed it
DISCOVERY = {"ibnetdiscover_ports": "*.ibnetdiscover-p", "iblinkinfo": "*.iblinkinfo*",
             "opensm_subnet_lst": "*.lst", "ibdm_topo": "*.topo"}
FORMATS = (("native", "netjson", "graphml", "gml", "dot", "clab", "ibnetdiscover", "ibsim", "opensm_dump")
           + tuple(DISCOVERY) + SIDE_FORMATS + tuple(READERS))   # READERS: tests/formats/fuzz_readers.py
FORMATS += COUNTER_FORMATS     # port counters files, read against their design (tests/formats/fuzz_counters.py)
OUTCOMES = ("accepted", "refused", "lost", "unnamed", "crash", "hang", "memory")
BAD = ("lost", "unnamed", "crash", "hang", "memory")
#: mutations that leave a valid file valid (a reader must accept the result)
BENIGN = ("bom", "crlf")


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
    if fmt in DISCOVERY:
        return [Seed(p.name, p.read_bytes()) for p in sorted((DATA / "samples").glob(DISCOVERY[fmt]))]
    if fmt in READERS:
        return [Seed(name, data) for name, data in READERS[fmt].seeds()]
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
    if fmt in READERS:
        READERS[fmt].read(path)
        return
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
                benign = READERS[fmt].benign if fmt in READERS else BENIGN
                if r["outcome"] != "accepted" and steps and all(st in benign for st in steps) \
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
