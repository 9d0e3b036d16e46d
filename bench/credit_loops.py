"""Credit loops per VL: the check's speed next to the routing it checks.

Run: .venv/bin/python bench/credit_loops.py
For each fabric prints medians (ms) of ``route`` (the peer, same run) and of
``check_credit_loops`` — every path on SL0 (minhop/ftree) and, when the engine is there, with
dfsssp's path SLs — and the ratio check / route. Goal (issue 14): a 4×4 torus and a k=8 fat
tree checked in well under a second.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from timing import median_ms  # noqa: E402  (bench/timing.py)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fabricviz.formats.ibnetdiscover import loads  # noqa: E402
from fabricviz.generate import k_ary_fat_tree  # noqa: E402
from fabricviz.ib.creditloops import check_credit_loops  # noqa: E402
from fabricviz.ib.routing import route  # noqa: E402
from tests.ib.topologies import dragonfly, torus_2d  # noqa: E402


def main() -> None:
    cases = [("torus 4x4", loads(torus_2d(4, 4).text()), "minhop"),
             ("dragonfly 4x4", loads(dragonfly().text()), "minhop"),
             ("fat tree k=8", k_ary_fat_tree(8), "ftree"), ("fat tree k=16", k_ary_fat_tree(16), "ftree")]
    if importlib.util.find_spec("fabricviz.ib.dfsssp") is not None:
        cases.insert(1, ("torus 4x4", cases[0][1], "dfsssp"))
    print(f"{'fabric':16} {'engine':8} {'route ms':>9} {'check ms':>9} {'ratio':>6}  result")
    for name, f, engine in cases:
        r = route(f, engine)
        t_route = median_ms(lambda f=f, engine=engine: route(f, engine), n=5)
        t_check = median_ms(lambda r=r: check_credit_loops(r), n=5)
        print(f"{name:16} {r.routed_by:8} {t_route:9.1f} {t_check:9.1f} {t_check / t_route:6.2f}  "
              f"{check_credit_loops(r).summary()}")


if __name__ == "__main__":
    main()
