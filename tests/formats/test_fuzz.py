"""The seeded mutation fuzzer (tests/formats/fuzzing.py) in the suite, and tests of the fuzzer itself.

A few hundred mutants (40 per format, seed 11) must each get a clean verdict: loaded, or one
FabricError line naming the file; no crash, hang, memory blow-up, unnamed refusal or noise.
``python bench/fuzz.py --replay ID -o /tmp/m`` rebuilds any mutant named in a failure.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from fabricviz.model import FabricError
from tests.formats import fuzzing
from tests.formats.fuzzing import FORMATS, MUTATORS, Runner, fuzz, mutant

ROOT = Path(__file__).resolve().parents[2]
PER_FORMAT = 40
SEED = 11


# ------------------------------------------------------------------------------ the in-suite run
@pytest.fixture(scope="module")
def fuzz_run():
    with Runner(jobs=2, timeout=5.0, mem_gb=2.5) as runner:
        return fuzz(FORMATS, PER_FORMAT, SEED, runner)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_mutant_gets_a_clean_verdict(fuzz_run, fmt):
    results, _secs = fuzz_run[fmt]
    assert len(results) == PER_FORMAT
    bad = fuzzing.failures(results)
    assert not bad, f"{len(bad)} of {len(results)} {fmt} mutants failed:\n" + "\n".join(
        f"{r.id} {r.outcome} [{' + '.join(r.steps)}] {r.type} at {r.frame}: {r.message[:200]}"
        + (f" | noise: {r.noise[:200]}" if r.noise else "") for r in bad)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fabricviz", *args], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)


@pytest.mark.slow
def test_refused_mutants_exit_2_with_one_line(fuzz_run, tmp_path):
    """The CLI verdict of a few refused mutants: exit 2 and the one line, nothing else."""
    picked = []
    for fmt in ("native", "gml", "clab", "ibnetdiscover", "opensm_dump"):
        refused = [r for r in fuzz_run[fmt][0] if r.outcome == "refused" and not r.noise]
        if refused:
            picked.append(refused[0].id)
    assert len(picked) >= 4, picked
    for mid in picked:
        m = mutant(*fuzzing.parse_id(mid))
        path = tmp_path / m.name
        path.write_bytes(m.data)
        if m.seed.topology is not None:
            topo = tmp_path / m.seed.topology[0]
            topo.write_bytes(m.seed.topology[1])
            r = _cli("replay", str(topo), str(path))
        else:
            r = _cli("info", str(path))
        lines = r.stderr.splitlines()
        assert r.returncode == 2, (mid, r.returncode, r.stderr[-2000:])
        assert len(lines) == 1, (mid, r.stderr[-2000:])
        assert lines[0].startswith("fabricviz: error: ") and fuzzing.names_place(
            lines[0].removeprefix("fabricviz: error: "), str(path)), (mid, lines[0])


# --------------------------------------------------------------------------- the mutators themselves
JSON = b'{\n  "a": 12,\n  "b": "name",\n  "c": [1.5, 2],\n  "d": true\n}\n'
DUMP = (b"Unicast lids [0-3] of switch Lid 1 guid 0x0000000000200000 ('sw'):\n"
        b"0x0001 000 # Switch portguid 0x0000000000200000: 'sw'\n3 lids dumped\n")
IBND = b'Switch\t4 "S-1"\t\t# "sw"\n[1]\t"H-2"[1]\n\nCa\t1 "H-2"\n[1]\t"S-1"[1]\n'


@pytest.mark.parametrize("name", sorted(MUTATORS))
@pytest.mark.parametrize("fmt,data", [("native", JSON), ("opensm_dump", DUMP), ("ibnetdiscover", IBND)])
def test_each_mutator_changes_its_input_deterministically(name, fmt, data):
    outs = [MUTATORS[name](random.Random(k), data, fmt) for k in (5, 5)]
    assert outs[0] == outs[1]
    out, what = outs[0]
    assert isinstance(out, bytes) and out != data, (name, what)
    assert what


def test_mutators_do_what_they_say():
    rng = random.Random(3)
    assert MUTATORS["bom"](rng, JSON, "native")[0] == b"\xef\xbb\xbf" + JSON
    assert MUTATORS["crlf"](random.Random(1), JSON, "native")[0] == JSON.replace(b"\n", b"\r\n")
    deep, _ = MUTATORS["deepen"](random.Random(2), JSON, "native")
    assert b"[" * 10_000 in deep or b'{"a":' * 10_000 in deep
    assert deep.count(b"[") - JSON.count(b"[") == deep.count(b"]") - JSON.count(b"]")
    count, _ = MUTATORS["huge-count"](random.Random(4), DUMP, "opensm_dump")
    assert count.split(b"]")[0].split(b"-")[1] in (b"999999999999", b"49152", b"65535", b"0", b"100000000")
    assert count.split(b"\n", 1)[1] == DUMP.split(b"\n", 1)[1]
    # a number token is replaced by exactly one of the listed values, the rest of the text kept
    news = set()
    for k in range(60):
        out, what = MUTATORS["number"](random.Random(k), JSON, "native")
        news.add(what.split(":", 1)[1])
        assert out.startswith(b'{\n  "a": ') and out.endswith(b',\n  "d": true\n}\n')
    assert {"1e400", "-1", "0", "99999999999999999999", str(2 ** 63), str(2 ** 64), "nan", "inf"} <= news
    dup = MUTATORS["dup-key"](random.Random(0), JSON, "native")[0].splitlines()
    twice = [line for line in set(dup) if dup.count(line) == 2]
    assert len(dup) == len(JSON.splitlines()) + 1 and len(twice) == 1 and twice[0].endswith(b",")
    grown, what = MUTATORS["grow"](random.Random(0), IBND, "ibsim")
    k = int(what.split(":")[1])
    assert grown.startswith(IBND) and grown.count(b'Hca 1 "fz-ca') == k and grown.count(b'] "fz-ca') == k


def test_tree_mutator_changes_one_thing_in_the_json():
    base = json.loads(JSON)
    ops = set()
    for k in range(40):
        out, what = MUTATORS["tree"](random.Random(k), JSON, "native")
        op, _, rest = what.partition(":")
        ops.add(op)
        key = rest.split("=")[0]
        if op == "tree-delete" and key in base:
            assert json.loads(out) == {kk: v for kk, v in base.items() if kk != key}
        if op == "tree-hostile" and rest.endswith("=-1") and key in base:
            assert json.loads(out) == dict(base, **{key: -1})
    assert {"tree-hostile", "tree-delete", "tree-copy", "tree-rename"} <= ops


def test_graph_mutator_edits_the_gml_graph():
    import networkx as nx
    seed = fuzzing.seeds_of("gml")[0].data
    G = nx.parse_gml(seed.decode(), label="label")
    seen = set()
    for k in range(30):
        out, what = MUTATORS["graph"](random.Random(k), seed, "gml")
        op = what.split(":")[0].split("=")[0]
        seen.add(op)
        if op in ("graph-drop-node", "graph-add-node", "graph-add-edge", "graph-self-loop"):
            H = nx.parse_gml(out.decode(), label="label")
            dn = {"graph-drop-node": -1, "graph-add-node": 1}.get(op, 0)
            assert H.number_of_nodes() == G.number_of_nodes() + dn, what
            if op in ("graph-add-edge", "graph-self-loop"):
                assert H.number_of_edges() == G.number_of_edges() + 1, what
    assert {"graph-attr", "graph-drop-node", "graph-add-node"} <= seen, seen


@pytest.mark.slow
def test_mutant_is_rebuilt_from_its_id_alone_in_another_process():
    m = mutant("gml", 7, 3)
    assert mutant("gml", 7, 3) == m and mutant("gml", 7, 4).data != m.data
    code = ("import hashlib, sys; from tests.formats.fuzzing import mutant; m = mutant('gml', 7, 3); "
            "sys.stdout.write(hashlib.sha256(m.data).hexdigest() + ' ' + m.seed.name + ' ' + '|'.join(m.steps))")
    env = dict(os.environ, PYTHONHASHSEED="123")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env,
                       timeout=120)
    import hashlib
    assert r.stdout == f"{hashlib.sha256(m.data).hexdigest()} {m.seed.name} {'|'.join(m.steps)}", r.stderr


@pytest.mark.slow
def test_every_format_has_seeds_that_load_cleanly(tmp_path):
    """The unmutated seeds are accepted: otherwise the fuzzer measures nothing."""
    for fmt in FORMATS:
        seeds = fuzzing.seeds_of(fmt)
        assert len(seeds) >= 2, fmt
        for s in seeds:
            p = tmp_path / s.name
            p.write_bytes(s.data)
            topo = None
            if s.topology is not None:
                topo = tmp_path / s.topology[0]
                topo.write_bytes(s.topology[1])
            res = fuzzing.judge(fuzzing.read_mutant, fmt, str(p), str(topo) if topo else None)
            assert (res["outcome"], res["noise"]) == ("accepted", ""), (fmt, s.name, res)


# ------------------------------------------------------------------------- the classifier (fake readers)
def r_ok(fmt, path, topo):
    return None


def r_refuse_line(fmt, path, topo):
    raise FabricError(f"{path}:3: bad port")


def r_refuse_name(fmt, path, topo):
    raise FabricError(f"{os.path.basename(path)}: devices[2].tier: not an integer")


def r_multiline(fmt, path, topo):
    raise FabricError(f"{path}:1: bad\nsecond line")


def r_no_place(fmt, path, topo):
    raise FabricError("Bad GraphML data: no key d256")


def r_crash(fmt, path, topo):
    return {}["missing"]


def r_slow(fmt, path, topo):
    while True:                 # a reader in an endless loop: it spends CPU time and never answers
        pass


def r_blocked(fmt, path, topo):
    time.sleep(600)             # a reader that waits for good: no CPU time, no answer


def r_naps(fmt, path, topo):
    time.sleep(1.5)             # wall time without work, as a loaded machine gives a working reader


def r_memory(fmt, path, topo):
    return bytearray(64 << 30)


def r_dies(fmt, path, topo):
    os._exit(3)


def r_noisy(fmt, path, topo):
    warnings.warn("overflow encountered in cast", RuntimeWarning, stacklevel=1)
    raise FabricError(f"{path}:1: bad")


def r_prints(fmt, path, topo):
    print("loading...", file=sys.stderr)


def r_c_prints(fmt, path, topo):
    os.write(2, b"libfoo: warning\n")             # below Python: straight to the file descriptor


def r_save_fails(fmt, path, topo):
    fuzzing._stage("save")
    raise OverflowError("cannot convert float infinity to integer")


def r_greedy(fmt, path, topo):
    block = bytearray(200 << 20)
    block[::4096] = b"x" * len(block[::4096])     # touch every page: resident, not just reserved
    raise FabricError(f"{path}:1: too big")


def r_by_name(fmt, path, topo):
    """Dispatch on the file name, so one pool runs every case in one go."""
    return FAKES[Path(path).stem](fmt, path, topo)


FAKES = {f.__name__: f for f in (r_ok, r_refuse_line, r_refuse_name, r_multiline, r_no_place, r_crash, r_slow,
                                  r_memory, r_dies, r_noisy, r_prints, r_save_fails, r_greedy, r_c_prints,
                                  r_blocked, r_naps)}


@pytest.mark.slow
def test_classifier_verdicts(tmp_path):
    order = ["r_ok", "r_slow", "r_refuse_line", "r_dies", "r_refuse_name", "r_multiline", "r_no_place",
             "r_crash", "r_memory", "r_noisy", "r_prints", "r_save_fails", "r_ok", "r_greedy", "r_c_prints"]
    tasks = []
    for i, name in enumerate(order):
        p = tmp_path / f"{name}.txt"
        p.write_text("x")
        tasks.append((f"{i}:{name}", ("native", str(p), None)))
    with Runner(reader=r_by_name, jobs=2, timeout=2.0, mem_gb=1.0) as runner:
        res = runner.run(tasks)
        again = runner.run(tasks[:1])          # the pool still works after kills and deaths
    got = {k.split(":")[1] + ("#2" if k.startswith("12:") else ""): (v["outcome"], v["type"], bool(v["noise"]))
           for k, v in res.items()}
    assert got == {
        "r_ok": ("accepted", "", False), "r_ok#2": ("accepted", "", False),
        "r_slow": ("hang", "timeout", False),
        "r_refuse_line": ("refused", "FabricError", False),
        "r_refuse_name": ("refused", "FabricError", False),
        "r_dies": ("memory", "worker died", False),
        "r_multiline": ("unnamed", "FabricError", False),
        "r_no_place": ("unnamed", "FabricError", False),
        "r_crash": ("crash", "KeyError", False),
        "r_memory": ("memory", "MemoryError", False),
        "r_noisy": ("refused", "FabricError", True),
        "r_prints": ("accepted", "", True),
        "r_save_fails": ("crash", "OverflowError", False),
        "r_greedy": ("memory", "peak RSS", False),
        "r_c_prints": ("accepted", "", True),
    }
    crash = res["7:r_crash"]
    line = r_crash.__code__.co_firstlineno + 1
    assert (crash["message"], crash["frame"]) == ("'missing'", f"tests/formats/test_fuzz.py:{line}")
    assert res["11:r_save_fails"]["message"] == "save: cannot convert float infinity to integer"
    assert res["3:r_dies"]["message"] == "worker exit code 3"
    assert res["9:r_noisy"]["noise"] == "RuntimeWarning: overflow encountered in cast"
    assert res["10:r_prints"]["noise"] == "loading..."
    assert res["14:r_c_prints"]["noise"] == "fd: libfoo: warning"
    assert again["0:r_ok"]["outcome"] == "accepted"
    assert res["1:r_slow"]["message"] == "no answer after 2 s of CPU time"
    greedy = res["13:r_greedy"]
    assert greedy["size"] == 1 and 196 <= greedy["mem_mb"] < 240, greedy
    assert greedy["message"] == (f"peak RSS rose {greedy['mem_mb']:.0f} MB, {greedy['mem_ratio']:.0f}x the "
                                 "1-byte input (refused after that)")


@pytest.mark.slow
def test_hang_is_cpu_time_spent_or_the_wall_clock_deadline_not_a_slow_machine(tmp_path):
    """A reader that sleeps past its CPU time limit (what a loaded machine does to a working one) is
    accepted; one blocked for good is a ``hang`` at the wall-clock deadline; the pool goes on."""
    tasks = []
    for name in ("r_naps", "r_blocked", "r_ok"):
        p = tmp_path / f"{name}.txt"
        p.write_text("x")
        tasks.append((name, ("native", str(p), None)))
    with Runner(reader=r_by_name, jobs=1, timeout=0.5, deadline=4.0, mem_gb=1.0) as runner:
        res = runner.run(tasks)
    assert {k: (v["outcome"], v["type"]) for k, v in res.items()} == {
        "r_naps": ("accepted", ""), "r_blocked": ("hang", "timeout"), "r_ok": ("accepted", "")}, res
    assert res["r_naps"]["seconds"] >= 1.5 > 0.5         # past the CPU limit in wall time, and accepted
    assert res["r_blocked"]["message"] == "no answer within 4 s"


def test_cpu_seconds_counts_a_process_work(tmp_path):
    from tests.formats.fuzz_pool import cpu_seconds
    before, t = cpu_seconds(os.getpid()), time.process_time()
    while time.process_time() - t < 0.3:
        pass
    assert cpu_seconds(os.getpid()) - before >= 0.25
    assert cpu_seconds(2 ** 22 + 12345) == 0.0            # no such process: nothing known


# ---------------------------------------------------------------- the memory verdict: each file's own peak
MB = 1 << 20


def _touch(mb: int) -> bytearray:
    block = bytearray(mb * MB)
    block[::4096] = b"x" * len(block[::4096])     # every page resident, not just reserved
    return block


_KEPT: list = []


def r_alloc(fmt, path, topo):
    """Allocate (and touch) as many MB as the file name says: "200mb-1k.txt" takes 200 MB."""
    _touch(int(Path(path).name.split("mb")[0]))


def r_keep(fmt, path, topo):
    """Keep 200 MB for good: in a long-lived worker the next file would find it (and its peak) there."""
    _KEPT.append(_touch(200))


def r_whoami(fmt, path, topo):
    """Refuse with the pids and thread counts of this process and its parent (the worker)."""
    def status(pid):
        with open(f"/proc/{pid}/status") as f:
            return {k: v.strip() for k, v in (line.split(":", 1) for line in f)}
    me, worker = status("self"), status(os.getppid())
    raise FabricError(f"{path}: worker {me['PPid']} of {worker['PPid']}, threads {me['Threads']} {worker['Threads']}")


def _sized(tmp_path, name: str, size: int) -> str:
    p = tmp_path / name
    with open(p, "wb") as f:
        f.truncate(size)                           # sparse: the size without the disk or the memory
    return str(p)


@pytest.mark.slow
def test_memory_verdict_is_each_files_own_rise_against_its_size(tmp_path):
    """200 MB for a 1 KB file is ``memory``, every time (not only the first: the peak is per file); the
    same 200 MB for a 20 MB file is 10x, under K = 16; 20 MB for 1 KB is under the 32 MB floor; 200 MB
    for 10 MB is 20x: ``memory``. Memory one file keeps is not charged to the next, nor hides its rise."""
    files = [("200mb-1k.txt", 1024), ("200mb-20m.txt", 20 * MB), ("200mb-1k-again.txt", 1024),
             ("20mb-1k.txt", 1024), ("200mb-10m.txt", 10 * MB), ("keep.txt", 1024), ("0mb-after-keep.txt", 1024),
             ("objects-1k.txt", 1024), ("objects-1k-again.txt", 1024), ("fragment.txt", 1024),
             ("objects-after-fragment.txt", 1024)]
    tasks = [(name, ("native", _sized(tmp_path, name, size), None)) for name, size in files]
    with Runner(reader=r_mem_by_name, jobs=1, timeout=20.0, mem_gb=1.0) as runner:
        assert (runner.mem_floor_mb, runner.mem_ratio) == (32, 16)
        res = runner.run(tasks)
    got = {k: v["outcome"] for k, v in res.items()}
    assert got == {"200mb-1k.txt": "memory", "200mb-20m.txt": "accepted", "200mb-1k-again.txt": "memory",
                   "20mb-1k.txt": "accepted", "200mb-10m.txt": "memory", "keep.txt": "memory",
                   "0mb-after-keep.txt": "accepted", "objects-1k.txt": "memory", "objects-1k-again.txt": "memory",
                   "fragment.txt": "memory", "objects-after-fragment.txt": "memory"}, res
    # the same objects after a file that kept the heap's pools: still the full rise (a fresh fork)
    objects = [res[k]["mem_mb"] for k in ("objects-1k.txt", "objects-1k-again.txt", "objects-after-fragment.txt")]
    assert 80 < objects[0] < 160 and all(abs(o - objects[0]) < 8 for o in objects), objects
    for name, size in files[:-4]:
        r = res[name]
        want = 200 if name.startswith("200") or name == "keep.txt" else int(name.split("mb")[0])
        assert r["size"] == size and 0.98 * want <= r["mem_mb"] < want + 40, (name, r)
        assert r["mem_ratio"] == r["mem_mb"] * MB / size, (name, r)
    assert res["200mb-1k.txt"]["type"] == "peak RSS" and 196 * 1024 <= res["200mb-1k.txt"]["mem_ratio"] < 240 * 1024
    assert 9.8 <= res["200mb-20m.txt"]["mem_ratio"] < 12 and 19.6 <= res["200mb-10m.txt"]["mem_ratio"] < 24


def r_objects(fmt, path, topo):
    """About 100 MB of small objects (pymalloc, not one mmap), freed on return."""
    many = [str(i) * 4 for i in range(1_200_000)]
    assert len(many) == 1_200_000


def r_fragment(fmt, path, topo):
    """The same 100 MB, but one object in 64 kept: ~2 MB in use that pins (nearly) every pymalloc pool."""
    many = [str(i) * 4 for i in range(1_200_000)]
    _KEPT.append(many[::64])


def r_mem_by_name(fmt, path, topo):
    name = Path(path).name
    return {"keep.txt": r_keep, "fragment.txt": r_fragment}.get(
        name, r_objects if name.startswith("objects") else r_alloc)(fmt, path, topo)


@pytest.mark.slow
def test_mem_ratio_and_floor_are_options(tmp_path):
    """K and the floor decide: with K = 8 the 10x file is ``memory``; with a 256 MB floor no 200 MB rise is."""
    tasks = [("20m", ("native", _sized(tmp_path, "200mb-20m.txt", 20 * MB), None)),
             ("1k", ("native", _sized(tmp_path, "200mb-1k.txt", 1024), None))]
    with Runner(reader=r_alloc, jobs=1, timeout=20.0, mem_gb=1.0, mem_ratio=8) as runner:
        k8 = runner.run(tasks)
    with Runner(reader=r_alloc, jobs=1, timeout=20.0, mem_gb=1.0, mem_floor_mb=256) as runner:
        floor = runner.run(tasks)
    assert {k: v["outcome"] for k, v in k8.items()} == {"20m": "memory", "1k": "memory"}
    assert {k: v["outcome"] for k, v in floor.items()} == {"20m": "accepted", "1k": "accepted"}


def test_workers_are_not_forks_of_the_test_process(tmp_path):
    """Each file is read in a single-threaded fork of a worker that a forkserver started, not this
    process (which under pytest-qt has Qt's threads): the worker's parent is not us."""
    p = tmp_path / "who.txt"
    p.write_text("x")
    with Runner(reader=r_whoami, jobs=1, timeout=10.0) as runner:
        res = runner.run([("who", ("native", str(p), None))])["who"]
        worker = runner._workers[0][0].pid
    assert res["outcome"] == "refused", res
    parent, threads = res["message"].split(": worker ")[1].split(", threads ")
    assert parent.split(" of ")[0] == str(worker) and parent.split(" of ")[1] != str(os.getpid())
    assert threads == "1 1"


def test_names_place():
    p = "/tmp/x/a.gml"
    assert fuzzing.names_place(f"{p}:12: bad", p)
    assert fuzzing.names_place("a.gml: graph.node[3].x: not a number", p)
    assert not fuzzing.names_place("a.gml:", p)
    assert not fuzzing.names_place(f"{p}:1: bad\n  more", p)
    assert not fuzzing.names_place("bad value in /tmp/x/a.gml", p)
    assert not fuzzing.names_place("/tmp/x/a.gmlx: bad", p)



def test_a_valid_file_with_bom_or_crlf_refused_is_lost():
    """fuzz() marks a refusal of a seed that only got a BOM / CRLF line ends as ``lost``."""
    benign = next(i for i in range(500) if all(s in fuzzing.BENIGN for s in mutant("ibsim", 0, i).steps))
    with Runner(reader=r_refuse_line, jobs=1, timeout=5.0) as runner:
        results, _secs = fuzz(["ibsim"], benign + 1, 0, runner)["ibsim"]
    assert [r.outcome for r in results] == ["refused"] * benign + ["lost"]
    assert [r.id for r in fuzzing.failures(results)] == [f"ibsim:0:{benign}"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.slow
def test_bom_and_crlf_give_the_same_design(fmt, tmp_path):
    """Every seed with a UTF-8 BOM and CRLF line ends reads as the very same design (or tables)."""
    from fabricviz.formats.opensm_replay import replay_files
    from fabricviz.loaders import load_any
    for s in fuzzing.seeds_of(fmt):
        got = []
        benign = fuzzing.READERS[fmt].benign if fmt in fuzzing.READERS else fuzzing.BENIGN
        odd = s.data.replace(b"\n", b"\r\n") if "crlf" in benign else s.data    # OpenSM refuses a CRLF partitions.conf
        for sub, data in (("plain", s.data), ("bom-crlf", fuzzing.BOM + odd)):
            d = tmp_path / sub
            d.mkdir(exist_ok=True)
            (d / s.name).write_bytes(data)
            if fmt in fuzzing.SIDE_FORMATS or fmt in fuzzing.COUNTER_FORMATS or fmt in fuzzing.READERS:
                topo = None
                if s.topology is not None:
                    (d / s.topology[0]).write_bytes(s.topology[1])
                    topo = str(d / s.topology[0])
                got.append(fuzzing.judge(fuzzing.read_mutant, fmt, str(d / s.name), topo)["outcome"])
            elif s.topology is not None:
                (d / s.topology[0]).write_bytes(s.topology[1])
                r = replay_files(str(d / s.topology[0]), str(d / s.name))
                got.append((r.lft.tobytes(), r.lids.ca_lid.tolist(), r.warnings))
            else:
                got.append(load_any(d / s.name).signature())
        assert got[0] == got[1], (fmt, s.name)


def test_bench_ranks_memory_ratios_of_real_rises():
    """bench/fuzz.py's top list: largest ratio first, rises under MIN_RISE_MB (fixed cost) left out."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_fuzz", ROOT / "bench" / "fuzz.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rs = [fuzzing.Result("dot:0:1", "refused", size=100_000, mem_mb=13.0, mem_ratio=136.3),
          fuzzing.Result("gml:0:2", "accepted", size=1_000, mem_mb=4.0, mem_ratio=4194.3),
          fuzzing.Result("ibsim:0:3", "memory", size=2 << 20, mem_mb=64.0, mem_ratio=32.0, steps=("grow:50000",))]
    lines = bench.top_memory({"dot": (rs[:1], 1.0), "x": (rs[1:], 1.0)}, 5)
    assert lines == [f"\nTop 5 memory ratios (peak RSS rise / input bytes, rises >= {bench.MIN_RISE_MB} MB):",
                     "  1. dot:0:1 [] 13 MB for 98 KB: 136.3x (refused)",
                     "  2. ibsim:0:3 [grow:50000] 64 MB for 2,048 KB: 32.0x (memory)"]
