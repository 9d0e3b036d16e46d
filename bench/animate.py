"""Traffic heatmap speed: per-frame overlay update and repaint on k-ary fat trees at every
semantic-zoom level.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/animate.py [k ...]   (default 16 32 48)
The frames are the max-min permutation frame of the fabric with its utilisation
shuffled per frame (so every frame moves cables between buckets, and a few
percent of links are paused / marking). For each k, in a 1600×1000 window, at the
three levels of the semantic zoom — ``far`` (the whole design fitted, zoomed out
further if fitting is not far yet: pods as boxes, bundles coloured by their hottest
member), ``middle`` (switches, host blocks, one line per switch pair; the view centred
at the geometric middle of the middle level's zoom range) and ``near`` (1:1, every cable
drawn on its own) — and with semantic zoom off at fit and 8× (``fit*``, ``1/8*``: the
heat item's own level of detail, as before the semantic zoom),
prints medians (ms, over ``--frames`` frames) of: the overlay update alone,
update + synchronous repaint, the repaint of the same view with no overlay (the
empty frame of this run: plain bundles / cables) and their ratio; fps of update +
repaint; ``lod``: heat segments drawn / cables in the run (zoomed out: ``bundles``
coloured); ``regroup``: the first repaint after arriving at that zoom (grouping built
once, then cached).
Goals: ≥ 30 fps at every level for k = 32 (issue 13); ≥ 30 fps at 20k+ cables,
≥ 10 fps at 100k (issue 6).
"""

from __future__ import annotations

import argparse
import os
import time

from timing import median_ms as _median_ms  # noqa: E402  (bench/timing.py)

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
from PySide6 import QtWidgets  # noqa: E402

from fabricviz.generate import k_ary_fat_tree  # noqa: E402
from fabricviz.sim.frames import Frame  # noqa: E402
from fabricviz.sim.run import run_traffic  # noqa: E402
from fabricviz.ui import MainWindow  # noqa: E402
from fabricviz.ui.canvas.overlays.traffic import scale_for  # noqa: E402


def median_ms(fn, n: int = 15) -> float:
    return _median_ms(fn, n, indexed=True)


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


def measure(w, ov, frames, scale, n: int) -> dict:
    vp = w.view.viewport()
    ov.show_frame(frames[0], scale)
    t0 = time.perf_counter()
    vp.repaint()                       # first paint at this zoom: groups for it
    regroup = (time.perf_counter() - t0) * 1000
    update = median_ms(lambda i: ov.show_frame(frames[i % len(frames)], scale), n)
    both = median_ms(lambda i: (ov.show_frame(frames[i % len(frames)], scale), vp.repaint()), n)
    sem = w.scene.semantic
    lod = f"{ov.drawn_count()}/{len(ov.run_cables)}"
    if sem.level != "near":
        lod = f"{len(sem.bundles)}b+{ov.drawn_count()}"
    ov.clear()
    empty = median_ms(lambda i: vp.repaint(), n)
    return dict(update=update, both=both, empty=empty, lod=lod, regroup=regroup)


def scale_of_level(sem, level: str) -> float:
    """A view scale showing ``level``: the geometric middle of the scales that do (1:1 for near)."""
    if level == "near" and sem.level_for(1.0) == "near":
        return 1.0
    scales = np.geomspace(1e-4, 8.0, 600)
    ok = scales[[sem.level_for(float(s)) == level for s in scales]]
    if not len(ok):
        raise SystemExit(f"no zoom shows {level!r} on this design")
    return float(np.sqrt(ok.min() * ok.max()))


def set_view(w, sem, view: str) -> None:
    """Zoom and centre the canvas for one row of the table."""
    sem.set_enabled(not view.endswith("*"))
    w.view.fit_all()
    if view == "1/8*":
        w.view.zoom_by(8.0)
    elif view == "far":
        if sem.level != "far":
            w.view.zoom_by(scale_of_level(sem, "far") / w.view.scale_factor())
    elif view in ("middle", "near"):
        w.view.zoom_by(scale_of_level(sem, view) / w.view.scale_factor())
    w.view.centerOn(w.scene.content_rect().center())
    sem.refresh()
    want = {"far": "far", "middle": "middle", "near": "near"}.get(view, "near")
    assert sem.level == want, (view, sem.level)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("k", nargs="*", type=int, default=[16, 32, 48])
    ap.add_argument("--frames", type=int, default=21, help="frames per median (≥ 15)")
    args = ap.parse_args()
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    w = MainWindow()
    w.resize(1600, 1000)
    w.show()
    app.processEvents()
    print(f"{'k':>3} {'view':>6} {'cables':>7} {'lod':>13} {'update':>7} {'upd+paint':>9} {'fps':>6} "
          f"{'empty':>6} {'ratio':>6} {'regroup':>7}   (ms, medians of {args.frames})")
    for k in args.k:
        f = k_ary_fat_tree(k)
        w.editor.set_fabric(f)
        app.processEvents()
        res = run_traffic(f, "permutation", "maxmin", "static", "dmodk", 1e-3, 0)
        ov = w.traffic_view.overlay
        frames = frames_for(res, 16)
        scale = scale_for("utilisation", frames)
        sem = w.scene.semantic
        for view in ("far", "middle", "near", "fit*", "1/8*"):
            set_view(w, sem, view)
            app.processEvents()
            ov.set_links(f, res.links.n)
            m = measure(w, ov, frames, scale, args.frames)
            print(f"{k:>3} {view:>6} {int(f.cables_t.alive.sum()):>7} {m['lod']:>13} {m['update']:>7.2f} "
                  f"{m['both']:>9.2f} {1000 / m['both']:>6.1f} {m['empty']:>6.2f} "
                  f"{m['both'] / max(m['empty'], 1e-9):>6.1f} {m['regroup']:>7.1f}", flush=True)
        sem.set_enabled(True)


if __name__ == "__main__":
    main()
