"""Big legal inputs (issue 28): a 32,767-partition partitions.conf (read + the P_Key tables OpenSM
programs on the bundled demo, as ``fabricviz partitions DEMO --conf``), a 1,000,000-row flow CSV
(``simulate --flows``) and a 1,100,000-line htsim connection matrix; and the whole command
``fabricviz partitions DEMO --conf FILE`` on the 32,767-statement file, as a process (start-up,
imports, read, tables and its 7 MB of output; the target: under 2 s); and what the design carrying
that file costs elsewhere: the partition lint rules (``lint``), Partition Marks' host memberships
(``marks``) and the Traffic dock's partition choice as a window opens (``traffic``). The suite
counts their work (tests/ib/test_pkeys_linear.py, tests/sim/test_flows_csv_big.py,
tests/formats/test_htsim_matrix_big.py, tests/check/test_lint_partitions_arrays.py,
tests/ui/canvas/test_partition_marks_arrays.py, tests/model/test_settings_snapshot.py); the timings
are here.

Run: .venv/bin/python bench/big_inputs.py [--repeat 3] [--only partitions,command,flows,htsim,lint,marks,traffic]
     PYTHONPATH=/path/to/another/checkout python bench/big_inputs.py   (the same cases on other code)
Prints, per case, the median wall time of the read and of its peer measured in the same run
(``json.loads`` of the same values as a JSON list: the floor any parsed text pays; for the
command, a process that imports numpy and json-loads them), and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from timing import median_ms  # noqa: E402  (bench/timing.py)

from fabricviz.check import lint_partitions
from fabricviz.check.lint_core import LintContext
from fabricviz.formats.htsim import parse_connection_matrix
from fabricviz.formats.native import load_fabric
from fabricviz.formats.partitions_conf import loads as conf_loads
from fabricviz.ib.partitions import to_meta
from fabricviz.ib.pkeys import design_tables
from fabricviz.ib.subnet import discover
from fabricviz.model.fabric import KIND_CODE
from fabricviz.resources import asset_path
from fabricviz.sim.flows_csv import load_flows

PARTITIONS, FLOW_ROWS, MATRIX_LINES = 32_767, 1_000_000, 1_100_000


def partitions_case(demo):
    text = "".join(f"p{i}=0x{i:04x} : ALL=full ;\n" for i in range(1, PARTITIONS))   # + Default: 32,767
    subnet = discover(demo)
    peer = json.dumps([[f"p{i}", i, "ALL", "full"] for i in range(1, PARTITIONS)])
    return (f"partitions.conf, {PARTITIONS - 1:,} statements ({len(text) / 1e3:,.0f} KB) + P_Key tables",
            lambda: design_tables(subnet, conf_loads(text, "big.conf")), lambda: json.loads(peer))


def big_design(demo):
    """The demo carrying the 32,767-statement file as its design partitions (``meta.partitions``)."""
    design = demo.copy()
    design.meta["partitions"] = to_meta(conf_loads(
        "".join(f"p{i}=0x{i:04x} : ALL=full ;\n" for i in range(1, PARTITIONS)), "big.conf"))
    return design


def lint_case(demo):
    """The four partition lint rules on the big design, its resolution computed once (as one lint
    run does; ``partition-pkey-capacity`` finds every CA port in 32,767 partitions)."""
    ctx = LintContext(big_design(demo))
    lint_partitions._state(ctx)
    rules = [lint_partitions.unknown_guid, lint_partitions.default_only, lint_partitions.limited_only,
             lint_partitions.pkey_capacity]
    peer = json.dumps([[i, list(range(24))] for i in range(1, PARTITIONS)])
    return (f"partition lint rules on the {PARTITIONS - 1:,}-statement design (resolved once)",
            lambda: [list(r(ctx)) for r in rules], lambda: json.loads(peer))


def marks_case(demo):
    """Partition Marks' host memberships (``memberships``) on the big design, resolved once (the
    routing cache's entry): 16 hosts in 32,766 partitions each."""
    from fabricviz.ib.partition_design import host_port_guids, resolve_design
    from fabricviz.ui.canvas.overlays.partitions import memberships
    design = big_design(demo)
    res = resolve_design(design)
    t = design.devices_t
    hosts = np.flatnonzero(t.alive & (t.parent < 0) & (t.kind == KIND_CODE["server"])).tolist()
    ports = host_port_guids(design, hosts, res.end_ports)
    order = [p.pkey for p in res.partitions]
    peer = json.dumps([[i, list(range(len(hosts)))] for i in range(1, PARTITIONS)])
    return (f"Partition Marks memberships, {len(ports)} hosts x the {PARTITIONS - 1:,}-statement design",
            lambda: memberships(res, ports, order), lambda: json.loads(peer))


def traffic_case(demo):
    """The Traffic dock's partition choice as the window opens (``design_partition_names``: the
    design's partitions read from ``meta.partitions`` and kept with a snapshot of it)."""
    from fabricviz.ib.partitions import META_KEY
    from fabricviz.ui.docks.traffic_partition import design_partition_names
    design = big_design(demo)
    peer = json.dumps(design.meta[META_KEY])

    def read():
        design.settings.forget(META_KEY)              # as a window opening on the design
        return design_partition_names(design)
    return (f"Traffic dock partition choice on the {PARTITIONS - 1:,}-statement design",
            read, lambda: json.loads(peer))


def command_case(folder):
    """The whole ``partitions`` command in its own process (its output to /dev/null)."""
    conf = os.path.join(folder, "big.conf")
    with open(conf, "w") as fh:
        fh.write("".join(f"p{i}=0x{i:04x} : ALL=full ;\n" for i in range(1, PARTITIONS)))
    peer = os.path.join(folder, "peer.json")
    with open(peer, "w") as fh:
        json.dump([[f"p{i}", i, "ALL", "full"] for i in range(1, PARTITIONS)], fh)
    demo = asset_path("demo", "demo-fat-tree.json")

    def run(*argv):      # from the temporary folder: ``-m`` imports the fabricviz on PYTHONPATH, not ./fabricviz
        subprocess.run([sys.executable, *argv], check=True, stdout=subprocess.DEVNULL, cwd=folder)
    return (f"fabricviz partitions DEMO --conf (the {PARTITIONS - 1:,}-statement file), whole process",
            lambda: run("-m", "fabricviz", "partitions", demo, "--conf", conf),
            lambda: run("-c", f"import json, numpy; json.load(open({peer!r}))"))


def flows_case(demo, folder):
    names = [demo.name_of(int(d)) for d in demo.device_ids("gpu")]
    path = os.path.join(folder, "flows.csv")
    rows = [(names[i % len(names)], names[(i + 3) % len(names)], 1000 + i, i * 0.5, i % 8) for i in range(FLOW_ROWS)]
    with open(path, "w") as fh:
        fh.write("src,dst,bytes,rate_gbps,start_us,step\n")
        fh.writelines(f"{a},{b},{n},,{s},{k}\n" for a, b, n, s, k in rows)
    peer = json.dumps(rows)
    return (f"flow CSV, {FLOW_ROWS:,} rows ({os.path.getsize(path) / 1e6:,.0f} MB)",
            lambda: load_flows(demo, path), lambda: json.loads(peer))


def htsim_case():
    rows = [(i % 128, (i + 1) % 128, i + 1, i * 1000, 4096) for i in range(MATRIX_LINES)]
    text = f"Nodes 128\nConnections {MATRIX_LINES}\n" + "".join(
        f"{a}->{b} id {c} start {d} size {e}\n" for a, b, c, d, e in rows)
    peer = json.dumps(rows)
    return (f"htsim connection matrix, {MATRIX_LINES:,} lines ({len(text) / 1e6:,.0f} MB)",
            lambda: parse_connection_matrix(text, "big.cm"), lambda: json.loads(peer))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="partitions,command,flows,htsim,lint")
    args = ap.parse_args()
    only = set(args.only.split(","))
    demo = load_fabric(asset_path("demo", "demo-fat-tree.json"))
    with tempfile.TemporaryDirectory() as folder:
        makers = {"partitions": lambda: partitions_case(demo), "command": lambda: command_case(folder),
                  "flows": lambda: flows_case(demo, folder),
                  "htsim": htsim_case, "lint": lambda: lint_case(demo),
                  "marks": lambda: marks_case(demo),
                  "traffic": lambda: traffic_case(demo)}
        for key in [k for k in makers if k in only]:
            name, read, peer = makers[key]()          # one case's data alive at a time
            r, j = median_ms(read, args.repeat), median_ms(peer, args.repeat)
            print(f"{name}: {r:,.0f} ms; json.loads of the same values {j:,.0f} ms; {r / j:.1f}x", flush=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
