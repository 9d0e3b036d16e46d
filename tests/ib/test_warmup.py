"""The first run's kernel compile tells what it does and never holds routing up.

``python -m fabricviz.ib.warmup`` reports each kernel numba compiles (``k/N name``) on stderr and
nothing but the total when the disk cache has them; while a background compile is under way
(the GUI's start) routing takes the numpy / scipy paths, with the same tables.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from fabricviz.generate import fat_tree, k_ary_fat_tree
from fabricviz.ib import subnet, ucast, warmup
from fabricviz.ib.kernel_progress import BACKGROUND, Compiled
from fabricviz.ib.routing import route, subnet_and_lids
from fabricviz.ib.subnet import switch_distances

_ONE_KERNEL = """
import numpy as np
from fabricviz.ib import kernels
seen = []
with kernels.compile_listener(seen.append) as count:
    kernels.scatter_columns(np.zeros((1, 1), np.uint8), np.zeros(1, np.int64), np.zeros((1, 1), np.uint8))
print([(c.done, c.total, c.name, c.again) for c in seen], count(), kernels.kernel_count())
"""


def test_each_compile_is_reported_once_and_a_cached_kernel_not_at_all(tmp_path):
    """A cold numba cache (a fresh install): the kernel's compile is reported as 1 of all the
    kernels; the second process loads it from the disk cache and reports nothing."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    runs = [subprocess.run([sys.executable, "-c", _ONE_KERNEL], capture_output=True, text=True, env=env,
                           check=True).stdout.strip() for _ in range(2)]
    from fabricviz.ib.kernels import kernel_count
    n = kernel_count()
    assert n == 53                                 # inline="always" helpers compile into their callers
    assert runs == [f"[(1, {n}, 'kernels.scatter_columns', False)] (1, 1) {n}", f"[] (0, 0) {n}"]


def test_the_warmup_command_prints_one_line_per_compile_and_the_total(tmp_path):
    """From the disk cache (this checkout's kernels are compiled by now): no compile line, the total."""
    route(k_ary_fat_tree(4), "minhop")
    proc = subprocess.run([sys.executable, "-m", "fabricviz.ib.warmup"], capture_output=True, text=True,
                          check=True)
    err = proc.stderr.splitlines()
    assert err[0].startswith("fabricviz: loading the subnet manager's 53 compiled kernels")
    assert all(line.startswith("fabricviz: compiled kernel ") for line in err[1:])
    assert proc.stdout.startswith("fabricviz: subnet manager kernels ready in ")
    if len(err) == 1:
        assert proc.stdout.rstrip().endswith("(all from the numba cache)")


def test_compile_lines_name_the_kernel_and_the_count(capsys):
    warmup._print_progress(Compiled(3, 30, "kernels.minhop_hop_table", 2.94))
    warmup._print_progress(Compiled(3, 30, "lash_kernels._reorder", 1.25, again=True))
    assert capsys.readouterr().err.splitlines() == [
        "fabricviz: compiled kernel 3/30: kernels.minhop_hop_table (2.9 s)",
        "fabricviz: compiled kernel 3/30: lash_kernels._reorder again, for other argument types (1.2 s)"]


@pytest.fixture()
def background(monkeypatch):
    """A background compile under way (its end is set by the test)."""
    ready = threading.Event()
    monkeypatch.setattr(BACKGROUND, "thread", threading.current_thread())
    monkeypatch.setattr(BACKGROUND, "ready", ready)
    return ready


@pytest.mark.parametrize("engine", ["minhop", "updn", "ftree"])
def test_while_the_kernels_compile_routing_takes_the_numpy_path_with_the_same_tables(background, engine):
    import numba  # noqa: F401  (loaded: the compiled path is the one taken otherwise)
    f = fat_tree(levels=3, radix=8, hosts=64, fabric="ib")
    sn, lids = subnet_and_lids(f)
    assert warmup.warming() and not subnet.numba_loaded() and not ucast.compiled(sn, lids)
    during = route(f, engine)
    dist = switch_distances(sn)
    background.set()
    assert not warmup.warming() and subnet.numba_loaded() and ucast.compiled(sn, lids)
    after = route(f, engine)
    assert np.array_equal(during.lft, after.lft) and np.array_equal(dist, switch_distances(sn))


def test_a_big_subnet_is_not_held_up_either(background, monkeypatch):
    """Past the sizes that always run compiled (here: made small), the numpy path while warming."""
    monkeypatch.setattr(ucast, "COMPILED_FROM_ENTRIES", 0)
    monkeypatch.setattr(subnet, "COMPILED_FROM_SWITCHES", 0)
    sn, lids = subnet_and_lids(k_ary_fat_tree(4))
    assert not ucast.compiled(sn, lids)
    background.set()
    assert ucast.compiled(sn, lids)


def test_start_background_runs_once_and_reports_the_end(monkeypatch):
    monkeypatch.setattr(BACKGROUND, "thread", None)
    monkeypatch.setattr(BACKGROUND, "ready", threading.Event())
    monkeypatch.setattr(warmup, "compile_all", lambda progress: (progress(Compiled(1, 30, "k.x", 0.5)),
                                                                 (0.5, 1, 1))[1])
    seen: list = []
    ended = threading.Event()
    assert warmup.start_background(seen.append, lambda *a: (seen.append(a), ended.set()))
    assert ended.wait(30) and warmup.wait_ready(30) and not warmup.warming()
    assert seen == [Compiled(1, 30, "k.x", 0.5), (0.5, 1, None)]
    assert not warmup.start_background()
