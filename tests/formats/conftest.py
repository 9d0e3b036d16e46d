"""Shared fixtures for the topology-format tests: the sample files and a real OpenSM run under ibsim."""

import fcntl
import shutil
import subprocess
import time
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "samples"
#: The lead's wrapper (shared/tools); it runs ibsim + OpenSM once and keeps the dumps.
OSM_SCRIPT = Path("/work/shared/tools/opensm-under-ibsim.sh")
LOCK = Path("/tmp/fabricviz-ibsim.lock")


@pytest.fixture(scope="session")
def samples() -> Path:
    return SAMPLES


@pytest.fixture(scope="session")
def run_opensm(tmp_path_factory):
    """``run_opensm(topology_path, engine) -> outdir`` with opensm-lfts.dump etc.; skips when
    ibsim/OpenSM are not installed. ibsim binds a machine-wide socket name, so runs are serialised
    with a lock file and retried when another ibsim holds it."""
    missing = [b for b in ("ibsim", "opensm", "ibsim-run") if shutil.which(b) is None]
    if missing or not OSM_SCRIPT.exists():
        what = ", ".join(missing) or str(OSM_SCRIPT)
        pytest.skip(f"real OpenSM check skipped: {what} not available "
                    "(apt-get install -y opensm ibsim-utils)")
    cache: dict = {}

    def run(topology: Path, engine: str = "minhop") -> Path:
        key = (str(topology), engine)
        if key in cache:
            return cache[key]
        out = tmp_path_factory.mktemp("osm")
        for _attempt in range(10):
            with open(LOCK, "w") as lk:
                fcntl.flock(lk, fcntl.LOCK_EX)
                r = subprocess.run(["bash", str(OSM_SCRIPT), str(topology), engine, str(out)],
                                   capture_output=True, text=True, timeout=300)
            if r.returncode == 0:
                cache[key] = out
                return out
            if "Address already in use" not in r.stderr:
                break
            time.sleep(2)
        pytest.fail(f"OpenSM under ibsim failed on {topology.name}: {r.stdout}{r.stderr}")

    return run
