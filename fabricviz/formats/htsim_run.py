"""The htsim run folder ``fabricviz export-htsim`` writes: connections.cm, hosts.csv, flows.csv,
run.sh (htsim_roce's command line, one comment per flag; the other fat-tree simulators commented
out) and README.txt (what was mapped, what htsim cannot express, how to read the output).

Every text is made first and the files are written after, each atomically
(:func:`fabricviz.model.atomic.write_atomic`): a refused export writes nothing.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence
from pathlib import Path

from ..model import Fabric, FabricError
from ..model.atomic import write_atomic
from .htsim import ConnectionMatrix, HtsimParams, HtsimTree, format_connection_matrix

FILES = ("connections.cm", "hosts.csv", "flows.csv", "run.sh", "README.txt")

#: Other htsim simulators that build the same FatTreeTopology from the same flags, checked against
#: their main_*.cpp: what each is, and the routings it runs (htsim_hpcc aborts on ecmp_rr:
#: HPCCSrc::processAck asserts on the reordered acks; it has no -tiers and builds 3 levels).
ALTERNATIVES = (
    ("htsim_ndp", "NDP: receiver-pulled, trimming switch queues (lossy); queues left at its default",
     ("ecmp_host", "ecmp_ar", "ecmp_rr"), (2, 3)),
    ("htsim_eqds", "EQDS: receiver credits over trimming queues (lossy); queues left at its default",
     ("ecmp_host", "ecmp_ar", "ecmp_rr"), (2, 3)),
    ("htsim_hpcc", "HPCC: INT-based window control over the same lossless input queues",
     ("ecmp_host", "ecmp_ar"), (3,)),
)
#: Why an alternative is left out: it aborts on spraying (HPCCSrc::processAck asserts on the
#: reordered acks), or it has no -tiers and always builds 3 levels.
NOT_OFFERED = {"strat": "it aborts on -strat {strat} (reordered acks)", "tiers": "it has no -tiers: 3 levels only"}

#: What htsim cannot express, for README.txt (refused: the export stops with one line).
CANNOT = (
    "start times: htsim_roce starts every flow no trigger holds at t = 0 (RoceSrc::connect) - refused",
    "rate caps per flow: a RoceSrc always sends at line rate - refused",
    "service levels / VL arbitration: one traffic class - refused when flows use more than one SL",
    "congestion control: htsim_roce is RoCE without DCQCN or ECN (PFC only); compare with "
    "fabricviz simulate --model fluid --cc none",
    "the receiver's reordering: htsim's RoCE sink is go-back-N (an out-of-order packet is dropped and "
    "NACKed, as --transport roce-gbn), so --routing spray resends where a roce-ooo NIC would not",
    "PCIe: a GPU rank sends from its NIC's host; the GPU-NIC hop is not modelled",
    "cable lengths: every link gets the same -hop_latency (the design's mean)",
    "switch parts: one -switch_latency for every switch (the mean over the parts)",
    "shared buffers: fixed per-ingress PFC thresholds (no dynamic threshold, no headroom to overflow)",
    "cut-through: every hop stores and forwards the whole packet",
    "packet sizes: every data packet is one MTU; a flow is rounded up to whole packets (its 'total bytes')",
    "InfiniBand: no credits (PFC thresholds stand in) and no subnet manager (LFTs become ECMP hashing)",
)


def hosts_csv(fabric: Fabric, tree: HtsimTree) -> str:
    """host,nic,leaf,tor,pod,gpus: htsim host i → the NIC, its leaf, htsim's ToR and pod numbers and
    the GPUs that send through it."""
    t = fabric.devices_t
    gpus: dict[int, list[str]] = {}
    for g, h in enumerate(tree.host_of):
        if h >= 0 and int(t.kind[g]) != int(t.kind[int(tree.nics[h])]):
            gpus.setdefault(int(h), []).append(fabric.name_of(g))
    buf = io.StringIO(newline="")
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["host", "nic", "leaf", "tor", "pod", "gpus"])
    for h, nic in enumerate(tree.nics):
        tor = tree.tor_of(h)
        w.writerow([h, fabric.name_of(int(nic)), fabric.name_of(int(tree.leaves[tor])), tor, tree.pod_of(h),
                    ";".join(gpus.get(h, []))])
    return buf.getvalue()


def flows_csv(cm: ConnectionMatrix, ends: Sequence[tuple[str, str]], steps: Sequence[int]) -> str:
    """id,src,dst,htsim_src,htsim_dst,bytes,step: each connection's fabricviz ends (bytes 0: no size)."""
    buf = io.StringIO(newline="")
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["id", "src", "dst", "htsim_src", "htsim_dst", "bytes", "step"])
    for c, (a, b), s in zip(cm.connections, ends, steps, strict=True):
        w.writerow([c.flow_id, a, b, c.src, c.dst, c.size, s])
    return buf.getvalue()


def _num(v: float) -> str:
    return f"{v:.6g}"


def roce_flags(p: HtsimParams, conns: int, end_us: int, seed: int, end_why: str) -> list[tuple[str, str, str]]:
    """(flag, value, where it came from) of the htsim_roce command line, in run.sh's order."""
    s = p.sources
    rows = [("-nodes", str(p.nodes), s["-nodes"]), ("-tiers", str(p.tiers), s["-tiers"]),
            ("-conns", str(conns), "flows in connections.cm (htsim_roce only prints it)"),
            ("-tm", '"$here/connections.cm"', "the flows in htsim host numbers (flows.csv maps them back)"),
            ("-strat", p.strat, s["-strat"])]
    if p.paths is not None:
        rows.append(("-paths", str(p.paths), s["-paths"]))
    rows += [("-linkspeed", _num(p.linkspeed_mbps), s["-linkspeed"]), ("-mtu", str(p.mtu), s["-mtu"]),
             ("-hop_latency", _num(p.hop_latency_us), s["-hop_latency"]),
             ("-switch_latency", _num(p.switch_latency_us), s["-switch_latency"]),
             ("-queue_type", p.queue_type, s["-queue_type"]),
             ("-pfc_thresholds", f"{p.pfc_low} {p.pfc_high}", s["-pfc_thresholds"] + " (LOW HIGH, packets)"),
             ("-q", str(p.queue_pkts), s["-q"]),
             ("-host_queue_type", p.host_queue_type, s["-host_queue_type"]),
             ("-end", str(end_us), end_why), ("-seed", str(seed), "--seed of the export (htsim's srand/srandom)"),
             ("-o", '"$here/logout.dat"', "htsim's binary log")]
    return rows


def run_sh(p: HtsimParams, conns: int, sized: int, end_us: int, seed: int, end_why: str, design: str,
           tech: str) -> str:
    """The bash script running htsim_roce on this folder (HTSIM = csg-htsim's sim/datacenter)."""
    rows = roce_flags(p, conns, end_us, seed, end_why)
    width = max(len(f"{f} {v}") for f, v, _ in rows)
    lines = ["#!/usr/bin/env bash",
             f"# htsim_roce run of {design} ({conns:,} flows), written by fabricviz export-htsim; see README.txt.",
             "# HTSIM: the sim/datacenter folder of github.com/Broadcom/csg-htsim, built with `make` in sim/.",
             "# Every value comes from the design; its comment says from where. Extra flags are passed on.",
             ]
    if tech == "ib":
        lines.append("# InfiniBand design: htsim has no InfiniBand model; RoCE over lossless input queues "
                     "(no drops, per-hop backpressure) is the closest packet model.")
    lines += ["set -euo pipefail", 'here=$(cd "$(dirname "$0")" && pwd)',
              ': "${HTSIM:?set HTSIM to csg-htsim/sim/datacenter}"', "args=("]
    lines += [f"  {f'{f} {v}':<{width}}  # {why}" for f, v, why in rows]
    lines += [")", '"$HTSIM/htsim_roce" "${args[@]}" "$@" > "$here/htsim_roce.out"',
              "done=$(grep -c ' finished at ' \"$here/htsim_roce.out\" || true)",
              f'echo "$done of {sized} sized flows finished; per flow: grep \' finished at \' $here/htsim_roce.out"',
              "", "# The other htsim simulators on the same fat tree and connections.cm (flags as in their",
              "# main_*.cpp; each prints 'Flow NAME ... finished at T' too):"]
    common = {f: v for f, v, _ in rows}
    for binary, what, strats, tiers in ALTERNATIVES:
        if p.strat not in strats or p.tiers not in tiers:
            why = NOT_OFFERED["strat"].format(strat=p.strat) if p.strat not in strats else NOT_OFFERED["tiers"]
            lines.append(f"# {binary}: not offered here, {why}")
            continue
        keep = ["-nodes", "-tiers", "-conns", "-tm", "-strat", "-paths", "-linkspeed", "-mtu", "-hop_latency",
                "-switch_latency", "-end", "-seed", "-host_queue_type"]
        if binary == "htsim_hpcc":
            keep = [f for f in keep if f != "-tiers"] + ["-pfc_thresholds", "-q"]
        out = f'"$here/{binary.removeprefix("htsim_")}.dat"'
        flags = " ".join(f"{f} {common[f]}" for f in keep if f in common)
        lines += [f"# {what}:", f'#   "$HTSIM/{binary}" {flags} -o {out} > "$here/{binary}.out"']
    return "\n".join(lines) + "\n"


def readme(p: HtsimParams, tree: HtsimTree, conns: int, sized: int, triggers: int, end_us: int, seed: int,
           end_why: str, design: str, flows_from: str, routing: str, tech: str) -> str:
    """README.txt: what was exported and mapped, what htsim cannot express, how to run and read it."""
    rows = roce_flags(p, conns, end_us, seed, end_why)
    fluid = ("--model fluid" if tech == "ib" else "--model fluid --cc none --transport roce-gbn")
    steps = (f" Ring steps are chained by {triggers} barrier triggers: a step starts once every flow of the "
             "step before has finished, as fabricviz's fluid model runs them." if triggers else "")
    mem = 12 * p.nodes * p.nodes
    mem_text = (f"{mem / 1e9:,.1f} GB" if mem >= 1e9 else f"{mem / 1e6:,.1f} MB" if mem >= 1e6
                else f"{mem / 1e3:,.0f} kB")
    out = [f"htsim run of {design}", "=" * (13 + len(design)), "",
           f"Flows: {conns:,} from {flows_from} ({sized:,} with a size; size 0 in connections.cm = no size, it "
           f"sends until -end).{steps}",
           f"Fat tree: {tree.tiers} levels, K = {tree.k}, {tree.nodes} hosts at {tree.rate}; routing: {routing}.",
           "", "Run", "---",
           "  HTSIM=/path/to/csg-htsim/sim/datacenter bash run.sh",
           "htsim_roce writes its log to htsim_roce.out here. It allocates about 12 bytes per host pair "
           f"({mem_text} here).",
           "Repeat runs differ: RoceSrc's constructor calls srand(time(NULL)), which also reseeds the "
           "random() its ECMP path ids come from; to repeat a run, LD_PRELOAD a time() that returns a constant.",
           "", "Read the output", "---------------",
           "  Flow Roce_S_D N finished at T total bytes B",
           "S, D: htsim hosts (hosts.csv: host -> NIC, leaf, ToR, pod, GPUs); T: microseconds since t = 0, the",
           "flow's completion time (FCT) when it started at 0 (a triggered flow's start is its line",
           "'startflow Roce_S_D at T0': FCT = T - T0); B: the bytes acknowledged (the size rounded up to whole",
           "MTU packets). N is htsim's object id, not the flow id: flows.csv gives each flow id its fabricviz",
           "ends; flows on one pair (ring steps) start and finish in step order. A flow without a size prints",
           "no line.",
           f"To compare: fabricviz simulate {design} {flows_from_arg(flows_from)} {fluid} --routing {routing} "
           "--out-flows fabricviz-flows.csv (its fct_us column).",
           "", "What was mapped (run.sh has the same, one comment per flag)", "-" * 59]
    out += [f"  {f} {v}: {why}" for f, v, why in rows]
    out += ["", "What htsim cannot express", "-------------------------"]
    out += [f"  - {c}" for c in CANNOT]
    out += ["", "Other simulators", "----------------",
            "run.sh ends with the command lines of htsim_ndp, htsim_eqds and htsim_hpcc on the same fat tree",
            "and connections.cm (commented out; the routings each can run). htsim_swift is not offered: it",
            "ignores the per-flow sizes of a connection matrix (one -flowsize for all) and has no -tiers."]
    return "\n".join(out) + "\n"


def flows_from_arg(flows_from: str) -> str:
    """``--workload X`` stays; a CSV path becomes ``--flows PATH``."""
    return flows_from if flows_from.startswith("--") else f"--flows {flows_from}"


def write_run_folder(out_dir: str | Path, fabric: Fabric, tree: HtsimTree, params: HtsimParams,
                     cm: ConnectionMatrix, ends: Sequence[tuple[str, str]], steps: Sequence[int], *, design: str,
                     flows_from: str, routing: str, seed: int, end_us: int, end_why: str, tech: str,
                     transport: str | None = None) -> list[Path]:
    """Make every file's text, then write them (atomically, run.sh executable); the paths written.
    ``transport`` (eqds | ndp | hpcc): run.sh runs that transport's simulator (:mod:`.htsim_transport`)."""
    sized = sum(1 for c in cm.connections if c.size)
    n = len(cm.connections)
    texts = {"connections.cm": format_connection_matrix(cm), "hosts.csv": hosts_csv(fabric, tree),
             "flows.csv": flows_csv(cm, ends, steps),
             "run.sh": run_sh(params, n, sized, end_us, seed, end_why, design, tech),
             "README.txt": readme(params, tree, n, sized, len(cm.triggers), end_us, seed, end_why, design,
                                  flows_from, routing, tech)}
    if transport is not None:
        from .htsim_transport import transport_run_sh
        texts["run.sh"] = transport_run_sh(params, transport, n, sized, end_us, seed, end_why, design)
        texts["README.txt"] = (f"run.sh runs htsim's {transport} simulator (export-htsim --transport {transport}); "
                               "what follows describes the fat tree and flows, and htsim_roce's flags for "
                               "comparison.\n\n" + texts["README.txt"])
    folder = Path(out_dir)
    if folder.exists() and not folder.is_dir():
        raise FabricError(f"{folder}: not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise FabricError(f"{folder}: cannot create ({e.strerror})") from None
    paths = []
    for name in FILES:
        path = folder / name
        write_atomic(path, texts[name])
        paths.append(path)
    os.chmod(folder / "run.sh", 0o755)
    return paths


__all__ = ["ALTERNATIVES", "CANNOT", "FILES", "NOT_OFFERED", "flows_csv", "hosts_csv", "readme", "roce_flags", "run_sh",
           "write_run_folder"]
