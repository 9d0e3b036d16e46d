"""fabricviz.sim.fanout: one sweep run serially, on a local Dask cluster, and on a real ``dask scheduler``
with two ``dask worker`` processes started here on 127.0.0.1, giving exactly the serial numbers.

The task is a real one: the max-min mean rate of seed ``s``'s permutation on a small fat tree, a pure
function of (the shared fabric, the seed). Workers import it from this module by name
(``tests.sim.test_fanout``: the repository root is on their path).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import signal
import socket
import subprocess
import sys

import pytest

from fabricviz.generate import k_ary_fat_tree
from fabricviz.model import FabricError
from fabricviz.sim.fanout import (
    Cancelled,
    FanOut,
    TaskError,
    TaskRefused,
    add_fanout_args,
    fanout_from_args,
    progress_bar,
)
from tests.processes import cluster_children

pytestmark = pytest.mark.slow     # Dask clusters and worker processes start here (~1-3 s each idle)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DASK = os.path.join(os.path.dirname(sys.executable), "dask")
SEEDS = list(range(12))
LOADS = 0          # how many times this process unpickled a Shared (see Shared.__reduce__)


def mean_rate(fabric, seed: int) -> float:
    """Mean max-min rate (Gb/s) of seed's random permutation over the fabric's NICs."""
    from fabricviz.sim.engine import simulate
    from fabricviz.sim.workloads import endpoints, permutation
    res = simulate(fabric, permutation(endpoints(fabric, "nic"), seed=seed), model="maxmin", seed=seed)
    return float(res.flow_rates().mean())


def _load(fabric) -> Shared:
    global LOADS
    LOADS += 1
    return Shared(fabric)


class Shared:
    """The fabric, counting in each process how often it arrives there by pickle."""

    def __init__(self, fabric) -> None:
        self.fabric = fabric

    def __reduce__(self):
        return _load, (self.fabric,)


def counted_rate(shared: Shared, seed: int) -> tuple[float, int]:
    return mean_rate(shared.fabric, seed), LOADS


def fails_on_five(fabric, seed: int) -> float:
    if seed == 5:
        raise ZeroDivisionError("seed five")
    return float(seed)


def refuses_two(fabric, seed: int) -> int:
    if seed == 2:
        raise FabricError("no flows to simulate")
    return seed


@pytest.fixture(scope="module")
def fabric():
    return k_ary_fat_tree(4)     # 16 hosts, 20 switches


@pytest.fixture(scope="module")
def serial(fabric) -> list[float]:
    return FanOut(1).map(mean_rate, fabric, SEEDS)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def dask_cluster():
    """A real ``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1; killed afterwards."""
    from distributed import Client
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    cmds = [[DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]]
    cmds += [[DASK, "worker", addr, "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"]] * 2
    procs = []
    try:
        for cmd in cmds:
            procs.append(subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, start_new_session=True))
        with Client(addr, timeout=30, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=30)
        yield addr
    finally:
        # workers first (with the scheduler gone they would wait for it to come back), each with
        # its nanny's worker process: they run in a process group of their own
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def test_serial_run_and_the_cli_options_import_no_dask(serial):
    probe = ("import argparse, json, sys\n"
             "from fabricviz.generate import k_ary_fat_tree\n"
             "from fabricviz.sim.fanout import FanOut, add_fanout_args\n"
             "from tests.sim.test_fanout import SEEDS, mean_rate\n"
             "add_fanout_args(argparse.ArgumentParser())\n"
             "got = FanOut(1).map(mean_rate, k_ary_fat_tree(4), SEEDS)\n"
             "print(json.dumps({'rates': got, 'dask': sorted(m for m in sys.modules\n"
             "                  if m.split('.')[0] in ('dask', 'distributed'))}))\n")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    assert got["dask"] == []
    assert got["rates"] == serial          # json keeps a float exactly (repr round-trips)
    assert serial[:3] == [350.0, 312.5, 300.0]
    assert len(set(serial)) > 3            # the seeds give different permutations


def test_local_cluster_gives_the_serial_numbers_in_order(fabric, serial):
    seen: list[tuple[int, int]] = []
    with FanOut(2) as fo:                       # worker processes, as `--workers 2` starts them
        assert fo.mode == "local" and fo.threads() == 2
        got = fo.map(mean_rate, fabric, SEEDS, progress=lambda d, t: seen.append((d, t)))
    assert got == serial
    assert seen == [(i, 12) for i in range(1, 13)]
    assert fo.client is None


def test_process_cluster_matches_serial_then_cancel_shuts_it_down(fabric, serial):
    before = cluster_children()
    seen: list[int] = []
    with pytest.raises(Cancelled) as exc:
        with FanOut(2, chunk=1) as fo:
            assert len(cluster_children() - before) == 2       # the two worker processes
            assert fo.map(mean_rate, fabric, SEEDS) == serial
            fo.map(mean_rate, fabric, SEEDS, progress=lambda d, t: seen.append(d), cancelled=lambda: len(seen) >= 3)
    assert (exc.value.done, exc.value.total) == (3, 12)
    assert str(exc.value) == "cancelled after 3 of 12"
    assert seen == [1, 2, 3]
    assert fo.client is None
    assert cluster_children() - before == set()


def test_existing_cluster_gives_the_serial_numbers_and_stays_up(dask_cluster, fabric, serial):
    from distributed import Client
    seen: list[int] = []
    with FanOut(scheduler=dask_cluster) as fo:
        assert (fo.mode, fo.threads()) == ("remote", 2)
        got = fo.map(mean_rate, fabric, SEEDS, progress=lambda d, t: seen.append(d))
    assert got == serial
    assert seen == list(range(1, 13))
    with Client(dask_cluster, timeout=10, set_as_default=False) as client:
        assert len(client.scheduler_info()["workers"]) == 2      # someone else's cluster: left running


def test_cancel_on_an_existing_cluster_cancels_the_pending_tasks(dask_cluster, fabric):
    seen: list[int] = []
    left = lambda dask_scheduler: sorted(k for k in dask_scheduler.tasks if str(k).startswith("fanout-"))  # noqa: E731
    with FanOut(scheduler=dask_cluster, chunk=1) as fo:      # the client stays open: only cancel frees the tasks
        with pytest.raises(Cancelled) as exc:
            fo.map(mean_rate, fabric, SEEDS, progress=lambda d, t: seen.append(d), cancelled=lambda: len(seen) >= 3)
        assert (exc.value.done, seen) == (3, [1, 2, 3])
        for _ in range(100):             # the scheduler forgets cancelled keys asynchronously
            if not fo.client.run_on_scheduler(left):
                break
            fo.client.sync(asyncio.sleep, 0.05)
        assert fo.client.run_on_scheduler(left) == []


def test_shared_input_is_scattered_once_not_pickled_per_task(dask_cluster, fabric, serial):
    # one item per task: 12 tasks over 2 workers; each worker unpickles the shared fabric once
    got = FanOut(scheduler=dask_cluster, chunk=1).map(counted_rate, Shared(fabric), SEEDS)
    assert [r for r, _ in got] == serial
    assert [n for _, n in got] == [1] * 12
    assert LOADS == 0                       # nothing came back to this process by pickle
    assert FanOut(1).map(counted_rate, Shared(fabric), SEEDS[:2]) == [(serial[0], 0), (serial[1], 0)]


def test_a_failing_task_names_its_item_serially_and_on_a_cluster(dask_cluster):
    for runner in (FanOut(1), FanOut(scheduler=dask_cluster, chunk=2)):
        with pytest.raises(TaskError) as exc:
            runner.map(fails_on_five, None, [1, 3, 5, 7])
        assert (exc.value.index, exc.value.item) == (2, 5)
        assert str(exc.value) == "item 2 (5): ZeroDivisionError: seed five"
        assert isinstance(exc.value.__cause__, ZeroDivisionError)
        assert not isinstance(exc.value, FabricError)
    assert "in fails_on_five" in exc.value.__notes__[0]         # the worker's traceback
    with pytest.raises(TaskRefused) as ref:
        FanOut(1).map(refuses_two, None, range(4))
    assert isinstance(ref.value, FabricError)                   # the CLI prints it as one line, exit 2
    assert str(ref.value) == "item 2 (2): no flows to simulate"


def _args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_fanout_args(p)
    return p.parse_args(list(argv))


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_cli_options_make_the_runner_and_refuse_bad_values_in_one_line():
    fo = fanout_from_args(_args(), stream=io.StringIO())
    assert (fo.mode, fo.workers, fo.progress) == ("serial", 1, None)     # not a terminal: no bar
    fo = fanout_from_args(_args("--workers", "3"), stream=_Tty())
    assert (fo.mode, fo.workers, repr(fo)) == ("local", 3, "FanOut(3 local Dask workers)")
    assert fo.progress is not None
    assert fanout_from_args(_args("--workers", "3", "--quiet"), stream=_Tty()).progress is None
    fo = fanout_from_args(_args("--scheduler", "10.0.0.7:8786"))
    assert (fo.mode, fo.scheduler) == ("remote", "tcp://10.0.0.7:8786")
    bad = {("--workers", "0"): "--workers 0: must be a whole number of worker processes, 1 or more",
           ("--scheduler", "http://x"): "--scheduler 'http://x': use tcp://HOST:PORT, the address `dask scheduler` prints",
           ("--scheduler", "tcp://h:8786", "--workers", "2"):
               "--workers 2: a running Dask cluster (--scheduler) has its own workers; give one or the other"}
    for argv, msg in bad.items():
        with pytest.raises(FabricError) as exc:
            fanout_from_args(_args(*argv))
        assert str(exc.value) == msg
    bar = _Tty()
    show = progress_bar(bar)
    assert show is not None
    show(1, 2)
    show(2, 2)
    assert bar.getvalue() == "\r[############             ]  50%\r[#########################] 100%\n"


def test_a_scheduler_nobody_runs_is_a_one_line_error_naming_the_flag():
    port = _free_port()
    fo = fanout_from_args(_args("--scheduler", f"127.0.0.1:{port}", "--quiet"))
    fo.timeout = 1.0
    with pytest.raises(FabricError) as exc:
        fo.map(mean_rate, None, [0])
    assert str(exc.value).startswith(f"--scheduler 'tcp://127.0.0.1:{port}': no Dask scheduler answered within 1 s")
    assert fo.client is None


def test_whatif_trials_on_a_real_cluster_and_a_local_one_equal_the_serial_run(dask_cluster, tmp_path, capsys):
    """`fabricviz whatif` with --scheduler (the real scheduler + 2 workers above) and with --workers 2
    (a local cluster it starts itself): the same trials, byte for byte, as the serial run."""
    from fabricviz.cli import main
    from fabricviz.formats.native import save_fabric
    from fabricviz.generate import leaf_spine
    design = tmp_path / "ls.json"
    save_fabric(leaf_spine(2, 2, 2), design)
    base = ["whatif", str(design), "--fail", "cables:1,2", "--trials", "6", "--seed", "4", "--json", "--quiet"]
    assert main(base) == 0
    serial = capsys.readouterr().out
    assert main(base + ["--scheduler", dask_cluster]) == 0
    assert capsys.readouterr().out == serial
    assert main(base + ["--workers", "2"]) == 0
    assert capsys.readouterr().out == serial


def test_a_whatif_batch_on_a_real_cluster_equals_the_serial_run(dask_cluster, tmp_path, capsys):
    """`fabricviz whatif A.json B.json`: both designs' trials in one map, the same JSON byte for byte
    serially and on the real scheduler + 2 workers; one trial per task gives each design's own trials."""
    from fabricviz.cli import main
    from fabricviz.formats.native import save_fabric
    from fabricviz.generate import leaf_spine, rail_optimized
    from fabricviz.sim.whatif import Batch, parse_fail, prepare, run_batch_trial, run_trials
    a, b = tmp_path / "ls.json", tmp_path / "rail.json"
    save_fabric(leaf_spine(2, 2, 2), a)
    save_fabric(rail_optimized(1, "roce", nodes_per_unit=4), b)
    base = ["whatif", str(a), str(b), "--fail", "switches:1,2", "--trials", "4", "--seed", "3", "--json", "--quiet"]
    assert main(base) == 0
    serial = capsys.readouterr().out
    assert main(base + ["--scheduler", dask_cluster]) == 0
    assert capsys.readouterr().out == serial
    alone = [prepare(f, parse_fail("switches:1,2"), trials=4, seed=3)
             for f in (leaf_spine(2, 2, 2), rail_optimized(1, "roce", nodes_per_unit=4))]
    batch = Batch(tuple(alone))
    got = FanOut(scheduler=dask_cluster, chunk=1).map(run_batch_trial, batch, batch.items())
    assert got == run_trials(alone[0]) + run_trials(alone[1])


def test_a_collective_sweep_on_a_real_cluster_equals_the_serial_run(dask_cluster, tmp_path, capsys):
    from fabricviz.cli import main
    from fabricviz.formats.native import save_fabric
    from fabricviz.generate import fat_tree
    a, b = tmp_path / "ft8.json", tmp_path / "ft4.json"
    save_fabric(fat_tree(levels=2, radix=8, fabric="ib"), a)
    save_fabric(fat_tree(levels=2, radix=4, fabric="ib"), b)
    base = ["collective", str(a), str(b), "--op", "allreduce,alltoall", "--gpus", "4,8", "--sizes", "1MB,1GB",
            "--quiet"]
    assert main(base) == 0
    serial = capsys.readouterr().out
    assert serial.count("## ") == 8
    assert main(base + ["--scheduler", dask_cluster]) == 0
    assert capsys.readouterr().out == serial
