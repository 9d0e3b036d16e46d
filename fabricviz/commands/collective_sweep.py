"""``fabricviz collective A.json [B.json …] --op OP[,OP…] --gpus N1,N2,…``: several cases at once.

The cases (designs × ops × GPU counts, :mod:`fabricviz.sim.collective_sweep`) run on
:class:`~fabricviz.sim.fanout.FanOut` (``--workers`` / ``--scheduler``, a progress bar unless
``--quiet``), one task each, the designs scattered once. Printed: each case's nccl-tests table under
a line naming its design, op and GPUs, then a summary (busbw at the largest size, and at 1 MB or
1 MiB when the sweep has it). ``--csv`` one file with leading design, op, algo, gpus columns,
``--json`` a list, ``--plot`` one curve per case. One case is :mod:`.collective`'s own output.
"""

from __future__ import annotations

import argparse
import json

from ..model import FabricError
from .collective_output import FLAGS, as_json, table, write_plot

#: The 1 MB buffer the summary quotes (decimal, then binary: the default 8B:8GB:x2 sweep has 1 MiB).
ONE_MB = (1e6, 2.0 ** 20)


def one_case(args: argparse.Namespace) -> bool:
    """True when the arguments make a single case (one design, op and GPU set); ``args.file``
    becomes that one file, as :func:`.collective.run` reads it."""
    from ..sim.collective_sweep import parse_gpus
    from ..sim.units import ParamError
    files = [args.file] if isinstance(args.file, str) else list(args.file)
    try:
        one_gpus = len(parse_gpus(args.gpus)) == 1
    except ParamError:
        return False                      # the sweep path refuses it in one line
    if len(files) == 1 and "," not in args.op and one_gpus:
        from ..sim.fanout import fanout_from_args
        runner = fanout_from_args(args)   # --workers / --scheduler refused alike; one case runs here
        if runner.mode == "remote":
            with runner:                  # but a --scheduler given must answer (one line if it does not)
                pass
        args.file = files[0]
        return True
    return False


def run_sweep(args: argparse.Namespace) -> int:
    from ..sim.collective import parse_sizes
    from ..sim.collective_sweep import Sweep, cases, parse_gpus, parse_ops, run_case
    from ..sim.fanout import TaskRefused, fanout_from_args
    from ..sim.units import ParamError
    files = list(args.file)
    try:
        sizes = parse_sizes(args.sizes)
        ops, gpus = parse_ops(args.op), parse_gpus(args.gpus)
        if args.plot and not args.plot.lower().endswith(".png"):
            raise ParamError("plot", args.plot, "writes a PNG (OUT.png)")
        sweep = Sweep(tuple(_load(p, len(files) > 1, args) for p in files), sizes, args.algo.strip().lower(),
                      args.routing, args.transport, args.seed, getattr(args, "engine", None) or "minhop")
        todo = cases(len(files), ops, gpus)
        for case in todo:
            _check(sweep, case, files[case.design], len(files) > 1)
        results = fanout_from_args(args).map(run_case, sweep, todo)
    except TaskRefused as e:                 # a case refused as it ran: name its file, op and GPUs
        c = e.item
        raise FabricError(f"{files[c.design]}: {c.op}, --gpus {c.gpus}: {e.error}") from None
    except ParamError as e:
        raise FabricError(e.with_flag(FLAGS.get(e.param, f"--{e.param}"))) from None
    names = [f.name for f in sweep.fabrics]
    labels = names if len(set(names)) == len(names) else files
    titles = [f"{labels[c.design]}: {r.op} ({r.algo}), {r.n} GPUs" for c, r in zip(todo, results, strict=True)]
    if args.csv:
        write_csv(args.csv, results, [labels[c.design] for c in todo])
    if args.plot:
        write_plot(results, args.plot, f"busbw of {len(results)} cases", titles)
    if args.json:
        print(json.dumps([as_json(r, names[c.design]) for c, r in zip(todo, results, strict=True)], indent=2))
        return 0
    for c, r, title in zip(todo, results, titles, strict=True):
        print(f"## {title}")
        print(table(r, names[c.design]))
        print()
    print(summary(results, [labels[c.design] for c in todo]))
    return 0


def _load(path: str, name_file: bool, args: argparse.Namespace):
    from ..loaders import load_any
    from .simulate import check_tech_options
    try:
        fabric = load_any(path)
        check_tech_options(fabric, args, path)    # --engine is InfiniBand's
        return fabric
    except FabricError as e:
        if not name_file or path in str(e):
            raise
        raise FabricError(f"{path}: {e}") from None


def _check(sweep, case, path: str, name_file: bool) -> None:
    """Refuse a case before any runs; with several designs the line names the file."""
    from ..sim.collective_sweep import check_case
    from ..sim.units import ParamError
    try:
        try:
            check_case(sweep, case)
        except ParamError as e:
            raise FabricError(e.with_flag(FLAGS.get(e.param, f"--{e.param}"))) from None
    except FabricError as e:
        if not name_file or path in str(e):
            raise
        raise FabricError(f"{path}: {e}") from None


def summary(results: list, designs: list[str]) -> str:
    """Case → busbw (GB/s) at the largest size, and at 1 MB (or 1 MiB) when every case has it."""
    from ..sim.collective import size_label as _size
    from ..sim.collective_sweep import busbw_at
    big = max(r.rows[-1].size for r in results)
    mb = next((s for s in ONE_MB if all(busbw_at(r, s) is not None for r in results)), None)
    w = max(6, *(len(d) for d in designs))
    head = f"{'design':<{w}}  {'op':<13}  {'algo':<4}  {'gpus':>5}  {'busbw @' + _size(big):>14}"
    if mb is not None:
        head += f"  {'busbw @' + _size(mb):>14}"
    lines = ["# summary (busbw GB/s)", head]
    for d, r in zip(designs, results, strict=True):
        line = f"{d:<{w}}  {r.op:<13}  {r.algo:<4}  {r.n:>5}  {r.rows[-1].busbw:>14.2f}"
        if mb is not None:
            line += f"  {busbw_at(r, mb):>14.2f}"
        lines.append(line)
    return "\n".join(lines)


def write_csv(path: str, results: list, designs: list[str]) -> None:
    """Every case's rows (the engine's CSV) under leading design, op, algo, gpus columns."""
    import csv
    import io

    from ..model.atomic import write_atomic
    from ..sim.collective import CSV_HEADER, csv_rows
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["design", "op", "algo", "gpus", *CSV_HEADER.split(",")])
    for d, r in zip(designs, results, strict=True):
        for row in csv_rows(r):
            w.writerow([d, r.op, r.algo, r.n, *row])
    write_atomic(path, buf.getvalue())
