"""Open to first paint of a radix-48 fat tree (27,648 hosts, 82,944 cables) in the window, from its
native file (issue 29, item 8: ≤ 3 s on 2 cores): File → Open (the read as a job), the canvas
built, fitted, painted at 1920×1080.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/open_big.py [--against CHECKOUT] [--runs 5] [--k 48]

Each measurement is a fresh process (a warm one would reuse caches). With ``--against`` (another
checkout, e.g. main before a change), both are measured alternately in the same run, so a busy
machine costs both alike, and the ratio of the medians is printed. Each row gives wall time and CPU
time (``process_time``: every thread of the process, the file read included), the latter what an
idle machine's wall time would be near when the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def child(path: str) -> None:
    """One open → first paint: wall and CPU seconds."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6 import QtWidgets

    from fabricviz.ui import MainWindow
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    w = MainWindow()
    w.resize(1920, 1080)
    w.show()
    w.files.new_design()
    app.processEvents()
    t0, c0 = time.perf_counter(), time.process_time()
    w.files.open_path(path)
    app.processEvents()                 # what Qt does before its first paint
    w.view.viewport().repaint()
    print(f"{time.perf_counter() - t0:.4f} {time.process_time() - c0:.4f}")
    w.editor.stack.setClean()
    w.close()


def measure(checkout: Path, path: Path) -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=str(checkout), QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", str(path)], env=env,
                         cwd=str(checkout), capture_output=True, text=True, check=True).stdout
    wall, cpu = out.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--child")
    ap.add_argument("--against", type=Path)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--k", type=int, default=48)
    a = ap.parse_args()
    if a.child:
        child(a.child)
        return
    sys.path.insert(0, str(HERE))
    from fabricviz.formats.native import save_fabric
    from fabricviz.generate import k_ary_fat_tree
    with tempfile.TemporaryDirectory(prefix="fabricviz-bench-") as tmp:
        path = Path(tmp) / f"k{a.k}.fabric.json"
        save_fabric(k_ary_fat_tree(a.k), path)
        ours, theirs = [], []
        for _ in range(a.runs):
            ours.append(measure(HERE, path))
            if a.against is not None:
                theirs.append(measure(a.against.resolve(), path))
    def med(runs: list[tuple[float, float]], i: int) -> float:
        return statistics.median(r[i] for r in runs)

    def row(name: str, runs: list[tuple[float, float]]) -> str:
        return (f"{name}: wall {med(runs, 0):.2f} {sorted(round(r[0], 2) for r in runs)}, "
                f"cpu {med(runs, 1):.2f} {sorted(round(r[1], 2) for r in runs)}")
    print(f"k={a.k} open → first paint, median of {a.runs} (s)")
    print("  " + row("this checkout", ours))
    if theirs:
        print("  " + row(str(a.against), theirs))
        print(f"  ratio: wall {med(ours, 0) / med(theirs, 0):.2f}, cpu {med(ours, 1) / med(theirs, 1):.2f}")
    print(f"  load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
