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
        fanout_from_args(args)            # --workers / --scheduler refused alike; one case runs here
        args.file = files[0]
        return True
    return False


def run_sweep(args: argparse.Namespace) -> int:
    from ..sim.collective import parse_sizes
    from ..sim.collective_sweep import Sweep, cases, parse_gpus, parse_ops, run_case
    from ..sim.fanout import fanout_from_args
    from ..sim.units import ParamError
    from .collective import FLAGS
    files = list(args.file)
    try:
        sizes = parse_sizes(args.sizes)
        ops, gpus = parse_ops(args.op), parse_gpus(args.gpus)
        if args.plot and not args.plot.lower().endswith(".png"):
            raise ParamError("plot", args.plot, "writes a PNG (OUT.png)")
        sweep = Sweep(tuple(_load(p, len(files) > 1) for p in files), sizes, args.algo.strip().lower(),
                      args.routing, args.transport, args.seed, getattr(args, "engine", None) or "minhop")
        todo = cases(len(files), ops, gpus)
        for case in todo:
            _check(sweep, case, files[case.design], len(files) > 1)
        results = fanout_from_args(args).map(run_case, sweep, todo)
    except ParamError as e:
        raise FabricError(e.with_flag(FLAGS.get(e.param, f"--{e.param}"))) from None
    names = [f.name for f in sweep.fabrics]
    labels = names if len(set(names)) == len(names) else files
    titles = [f"{labels[c.design]}: {r.op} ({r.algo}), {r.n} GPUs" for c, r in zip(todo, results)]
    if args.csv:
        write_csv(args.csv, results, [labels[c.design] for c in todo])
    if args.plot:
        write_plot(results, titles, args.plot, f"busbw of {len(results)} cases")
    if args.json:
        from .collective import as_json
        print(json.dumps([as_json(r, names[c.design]) for c, r in zip(todo, results)], indent=2))
        return 0
    from .collective import table
    for c, r, title in zip(todo, results, titles):
        print(f"## {title}")
        print(table(r, names[c.design]))
        print()
    print(summary(results, [labels[c.design] for c in todo]))
    return 0


def _load(path: str, name_file: bool):
    from ..loaders import load_any
    try:
        return load_any(path)
    except FabricError as e:
        if not name_file or path in str(e):
            raise
        raise FabricError(f"{path}: {e}") from None


def _check(sweep, case, path: str, name_file: bool) -> None:
    """Refuse a case before any runs; with several designs the line names the file."""
    from ..sim.collective_sweep import check_case
    from ..sim.units import ParamError
    from .collective import FLAGS
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
    from ..sim.collective_sweep import busbw_at
    big = max(r.rows[-1].size for r in results)
    mb = next((s for s in ONE_MB if all(busbw_at(r, s) is not None for r in results)), None)
    w = max(6, *(len(d) for d in designs))
    head = f"{'design':<{w}}  {'op':<13}  {'algo':<4}  {'gpus':>5}  {'busbw @' + _size(big):>14}"
    if mb is not None:
        head += f"  {'busbw @' + _size(mb):>14}"
    lines = ["# summary (busbw GB/s)", head]
    for d, r in zip(designs, results):
        line = f"{d:<{w}}  {r.op:<13}  {r.algo:<4}  {r.n:>5}  {r.rows[-1].busbw:>14.2f}"
        if mb is not None:
            line += f"  {busbw_at(r, mb):>14.2f}"
        lines.append(line)
    return "\n".join(lines)


def _size(v: float) -> str:
    for unit, k in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if v >= k and float(v / k).is_integer():
            return f"{v / k:g}{unit}"
    return f"{v:g}B"


def write_csv(path: str, results: list, designs: list[str]) -> None:
    """Every case's rows (the engine's CSV) under leading design, op, algo, gpus columns."""
    import csv
    import io
    from ..model.atomic import write_atomic
    from ..sim.collective import CSV_HEADER, csv_text
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["design", "op", "algo", "gpus", *CSV_HEADER.split(",")])
    for d, r in zip(designs, results):
        for line in csv_text(r).splitlines()[1:]:
            w.writerow([d, r.op, r.algo, r.n, *line.split(",")])
    write_atomic(path, buf.getvalue())


#: Curve colours (matplotlib's first ten).
COLOURS = ((31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189), (140, 86, 75),
           (227, 119, 194), (127, 127, 127), (188, 189, 34), (23, 190, 207))


def write_plot(results: list, labels: list[str], path: str, title: str, width: int = 800,
               height: int = 500) -> None:
    """busbw (GB/s) against size (log₂ x), one curve per case with a legend, as a PNG."""
    import imageio.v3 as iio
    import numpy as np
    from PIL import Image, ImageDraw
    from .collective import _size_label
    img = Image.new("RGB", (width, height), "white")
    d = ImageDraw.Draw(img)
    left, right, top, bottom = 70, width - 20, 40, height - 50
    xs = [np.log2([r.size for r in res.rows]) for res in results]
    ys = [np.array([r.busbw for r in res.rows]) for res in results]
    x0 = float(min(x.min() for x in xs))
    x1 = float(max(max(x.max() for x in xs), x0 + 1))
    y1 = float(max(y.max() for y in ys)) * 1.1 or 1.0
    d.rectangle([left, top, right, bottom], outline="black")
    for k in range(5):                                    # y grid and labels
        yy = bottom - k / 4 * (bottom - top)
        d.line([left, yy, right, yy], fill=(220, 220, 220))
        d.text((5, yy - 6), f"{y1 * k / 4:.1f}", fill="black")
    for e in range(int(np.ceil(x0)), int(x1) + 1, max(1, int(x1 - x0) // 8)):   # x ticks, powers of 2
        xx = left + (e - x0) / (x1 - x0) * (right - left)
        d.line([xx, bottom, xx, bottom + 5], fill="black")
        d.text((xx - 14, bottom + 8), _size_label(2.0 ** e), fill="black")
    for i, (x, y, label) in enumerate(zip(xs, ys, labels)):
        c = COLOURS[i % len(COLOURS)]
        px = (left + (x - x0) / (x1 - x0) * (right - left)).tolist()
        py = (bottom - y / y1 * (bottom - top)).tolist()
        if len(px) > 1:
            d.line(list(zip(px, py)), fill=c, width=2)
        for a, b in zip(px, py):
            d.ellipse([a - 3, b - 3, a + 3, b + 3], fill=c)
        ly = top + 10 + 14 * i                            # the legend, top left inside the frame
        d.line([left + 8, ly + 5, left + 28, ly + 5], fill=c, width=3)
        d.text((left + 34, ly), label, fill="black")
    d.text((left, 10), title, fill="black")
    d.text((width // 2 - 40, height - 20), "message size", fill="black")
    d.text((5, top - 20), "busbw GB/s", fill="black")
    iio.imwrite(path, np.asarray(img))
