"""How long ``fabricviz counters`` takes on a large design: a perfquery sweep of every port and an
ibqueryerrors report, synthesised for a generated fat tree (LIDs from fabricviz's own assignment,
the OpenSM one), read, matched and ranked.

Run: python bench/counters.py [--radix 32] [--levels 3] [--sick 200] [--seed 1]
Prints the design's size, the files' sizes and the seconds of each stage (read, match + rank).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from fabricviz.check.counters import Metric, port_counters  # noqa: E402
from fabricviz.formats.counter_files import load_counters  # noqa: E402
from fabricviz.generate import fat_tree  # noqa: E402
from fabricviz.ib.lid_table import lid_table  # noqa: E402

FIELDS = ("SymbolErrorCounter", "LinkErrorRecoveryCounter", "LinkDownedCounter", "PortRcvErrors",
          "PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors", "PortXmitDiscards", "PortXmitConstraintErrors",
          "PortRcvConstraintErrors", "LocalLinkIntegrityErrors", "ExcessiveBufferOverrunErrors", "VL15Dropped",
          "PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts", "PortXmitWait")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--radix", type=int, default=32)
    ap.add_argument("--levels", type=int, default=3)
    ap.add_argument("--sick", type=int, default=200, help="ports given errors")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    f = fat_tree(levels=a.levels, radix=a.radix)
    t0 = time.perf_counter()
    lids = lid_table(f).lids
    t_lids = time.perf_counter() - t0
    rng = random.Random(a.seed)
    ports = sorted(p for p in lids if int(f.ports_t.cable[p]) >= 0)
    sick = set(rng.sample(ports, min(a.sick, len(ports))))
    lines, qe = [], []
    for p in ports:
        num = int(f.ports_t.num[p])
        lines.append(f"# Port counters: Lid {lids[p]} port {num} (CapMask: 0x1300)")
        for name in FIELDS:
            v = rng.randrange(1, 5000) if p in sick and name in ("SymbolErrorCounter", "PortXmitWait") else 0
            lines.append(f"{name}:{'.' * max(1, 33 - len(name))}{v}")
        if p in sick:
            d = int(f.ports_t.device[p])
            qe.append(f'Errors for 0x{int(f.devices_t.guid[d]):x} "{f.name_of(d)}"')
            qe.append(f"   GUID 0x{int(f.devices_t.guid[d]):x} port {num}: [SymbolErrorCounter == 7]")
    with tempfile.TemporaryDirectory() as tmp:
        pq, iq = os.path.join(tmp, "perfquery.txt"), os.path.join(tmp, "ibqueryerrors.txt")
        with open(pq, "w") as fh:
            fh.write("\n".join(lines) + "\n")
        with open(iq, "w") as fh:
            fh.write("\n".join(qe) + "\n\n## Summary: done\n")
        print(f"design: {f.devices_t.n:,} devices, {f.cables_t.n:,} cables; LID assignment {t_lids:.2f} s")
        for path in (pq, iq):
            t0 = time.perf_counter()
            cf = load_counters(path)
            t_read = time.perf_counter() - t0
            t0 = time.perf_counter()
            r = port_counters(f, [cf])
            worst = r.worst(Metric.ERRORS)
            t_rank = time.perf_counter() - t0
            print(f"{os.path.basename(path)}: {os.path.getsize(path) / 1e6:.1f} MB, {len(cf.records):,} records; "
                  f"read {t_read:.2f} s, match + rank {t_rank:.2f} s; {len(worst):,} sick links, "
                  f"{len(r.unmatched)} unmatched")
    return 0


if __name__ == "__main__":
    sys.exit(main())
