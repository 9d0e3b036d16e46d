"""Auto layout speed and shape on generated designs.

Run: .venv/bin/python bench/layout.py [--repeat N]
For each design prints medians (ms, over ``--repeat`` runs) of ``find_groups`` (the grouping the
layout starts from), ``auto_layout`` (grouping included) and, as the peer measured in the same run,
generating the design (which itself ends with the auto layout), their ratio (layout / generate),
and the fitted bounding box's aspect ratio (width : height, as the canvas fits it; aim 16:9 = 1.78).
Goal (issue 13): a radix-48 3-level fat tree (85k devices) laid out in well under a second.
"""

from __future__ import annotations

import argparse

import numpy as np
from timing import median_ms as _median_ms  # noqa: E402  (bench/timing.py)

from fabricviz.generate import fat_tree, leaf_spine, rail_optimized
from fabricviz.generate.autolayout import auto_layout, device_rects
from fabricviz.generate.groups import find_groups

DESIGNS = {
    "fat-tree 3l r16": lambda: fat_tree(3, 16),
    "fat-tree 3l r32": lambda: fat_tree(3, 32),
    "fat-tree 3l r48": lambda: fat_tree(3, 48),
    "fat-tree 2l r64": lambda: fat_tree(2, 64),
    "leaf-spine 16x8": lambda: leaf_spine(16, 8, 16),
    "rail 8 SU": lambda: rail_optimized(8),
}



def median_ms(fn, n: int) -> float:
    return _median_ms(fn, n)


def aspect(f) -> float:
    t = f.devices_t
    tops = np.flatnonzero(t.alive & (t.parent < 0))
    r = device_rects(f, tops)
    return float((r[2].max() - r[0].min()) / (r[3].max() - r[1].min()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    print(f"{'design':18s} {'devices':>8s} {'groups ms':>10s} {'layout ms':>10s} {'generate ms':>12s} "
          f"{'layout/gen':>11s} {'aspect':>7s}")
    for name, make in DESIGNS.items():
        f = make()
        groups = median_ms(lambda f=f: find_groups(f), args.repeat)
        layout = median_ms(lambda f=f: auto_layout(f), args.repeat)
        gen = median_ms(make, args.repeat)
        print(f"{name:18s} {len(f):8,d} {groups:10.1f} {layout:10.1f} {gen:12.1f} {layout / gen:11.2f} "
              f"{aspect(f):7.2f}")


if __name__ == "__main__":
    main()
