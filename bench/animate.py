"""Traffic heatmap speed: per-frame overlay update (bucketing + paths) and repaint on k-ary fat trees.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/animate.py [k ...]   (default 16 32)
The frames are the max-min permutation frame of the fabric with its utilisation
shuffled per frame (so every frame moves cables between buckets, and a few
percent of links are paused / marking). Prints medians (ms) of: the overlay
update alone, update + synchronous repaint of the whole design in view, and the
repaint of the same view with no overlay (the empty frame of this run).
"""

from __future__ import annotations

import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
from PySide6 import QtWidgets  # noqa: E402

from fabricviz.build import k_ary_fat_tree  # noqa: E402
from fabricviz.sim.frames import Frame  # noqa: E402
from fabricviz.ui import MainWindow  # noqa: E402
from fabricviz.ui.traffic_dock import integrate, run_traffic  # noqa: E402
from fabricviz.ui.traffic_overlay import scale_for  # noqa: E402


def median_ms(fn, n: int = 15) -> float:
    times = []
    for i in range(n):
        t0 = time.perf_counter()
        fn(i)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def frames_for(res, n: int, seed: int = 0) -> list[Frame]:
    rng = np.random.default_rng(seed)
    base = res.frames[0]
    out = []
    for _ in range(n):
        util = rng.permutation(base.link_util)
        paused = rng.random(len(util)) < 0.02
        ecn = (rng.random(len(util)) < 0.03).astype(np.float32)
        out.append(Frame.make(0.0, util, base.link_queue, base.link_latency_ns, paused, ecn,
                              base.flow_rate_gbps, base.flow_latency_ns))
    return out


def main(ks: list[int]) -> None:
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    w = MainWindow()
    w.resize(1600, 1000)
    w.show()
    integrate(w)
    app.processEvents()
    print(f"{'k':>3} {'cables':>7} {'update ms':>9} {'update+paint':>12} {'paint only':>10} {'ratio':>6}")
    for k in ks:
        f = k_ary_fat_tree(k)
        w.editor.set_fabric(f)
        app.processEvents()
        w.view.fit_all()
        app.processEvents()
        res = run_traffic(f, "permutation", "maxmin", "static", "dmodk", 1e-3, 0)
        ov = w.traffic_view.overlay
        ov.set_links(f, res.links.n)
        frames = frames_for(res, 16)
        scale = scale_for("utilisation", frames)
        vp = w.view.viewport()
        update = median_ms(lambda i: ov.show_frame(frames[i % len(frames)], scale))
        both = median_ms(lambda i: (ov.show_frame(frames[i % len(frames)], scale), vp.repaint()))
        ov.clear()
        empty = median_ms(lambda i: vp.repaint())
        print(f"{k:>3} {int(f.cables_t.alive.sum()):>7} {update:>9.2f} {both:>12.2f} {empty:>10.2f} "
              f"{both / max(empty, 1e-9):>6.2f}", flush=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [16, 32])
