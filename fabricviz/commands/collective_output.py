"""What ``fabricviz collective`` prints and writes for a case: the nccl-tests table, the JSON,
the CSV and the busbw plot (shared by :mod:`.collective`, one case, and :mod:`.collective_sweep`)."""

from __future__ import annotations

FLAGS = {"op": "--op", "algo": "--algo", "sizes": "--sizes", "gpus": "--gpus", "transport": "--transport",
         "routing": "--routing"}


def table(res, design: str) -> str:
    """The result as nccl-tests prints it."""
    from ..sim.collective import redop_root
    redop, root = redop_root(res.op)
    lines = [f"# fabricviz collective: {res.op} ({res.algo}) over {res.n} GPUs on {res.servers} servers, "
             f"{res.channels} channel(s), {design}",
             "#",
             f"# {'size':>12} {'count':>12} {'type':>6} {'redop':>6} {'root':>6} {'time':>10} {'algbw':>8} "
             f"{'busbw':>8}",
             f"# {'(B)':>12} {'(elements)':>12} {'':>6} {'':>6} {'':>6} {'(us)':>10} {'(GB/s)':>8} {'(GB/s)':>8}"]
    for r in res.rows:
        lines.append(f"  {r.size:>12.0f} {r.count:>12d} {'float':>6} {redop:>6} {root:>6} {r.time_us:>10.2f} "
                     f"{r.algbw:>8.2f} {r.busbw:>8.2f}" + (f"  {r.algo}" if res.algo == "auto" else ""))
    avg = sum(r.busbw for r in res.rows) / len(res.rows)
    lines.append(f"# Avg bus bandwidth    : {avg:g}")
    return "\n".join(lines)


def as_json(res, design: str) -> dict:
    from ..sim.collective import MTU_BYTES, NVLINK_LATENCY_NS, STEP_OVERHEAD_NS, redop_root, wire_efficiency
    redop, root = redop_root(res.op)
    return {"design": design, "op": res.op, "algo": res.algo, "gpus": res.n, "servers": res.servers,
            "channels": res.channels, "fabric": res.tech, "engine": res.engine,
            "model": {"step_overhead_us": STEP_OVERHEAD_NS / 1e3, "nvlink_latency_us": NVLINK_LATENCY_NS / 1e3,
                      "mtu_bytes": MTU_BYTES, "wire_efficiency": wire_efficiency(res.tech)},
            "rows": [{"size_bytes": r.size, "count": r.count, "type": "float", "redop": redop, "root": root,
                      "time_us": r.time_us, "algbw_GBps": r.algbw, "busbw_GBps": r.busbw, "algo": r.algo}
                     for r in res.rows]}


def write_csv(res, path: str) -> None:
    """The engine's CSV (:func:`~fabricviz.sim.collective.csv_text`, the Collectives dock's too), atomically."""
    from ..model.atomic import write_atomic
    from ..sim.collective import csv_text
    write_atomic(path, csv_text(res))


#: Curve colours (matplotlib's first ten).
COLOURS = ((31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189), (140, 86, 75),
           (227, 119, 194), (127, 127, 127), (188, 189, 34), (23, 190, 207))


def write_plot(results, path: str, title: str, labels: list[str] | None = None, width: int = 800,
               height: int = 500) -> None:
    """busbw (GB/s) against size (log₂ x) as a PNG, one curve per result (one result, or a list of
    them with ``labels`` for a legend), drawn by matplotlib (:mod:`.plotting`)."""
    import numpy as np

    from ..sim.collective import size_label
    from ..sim.units import ParamError
    from .plotting import figure, rgb, write_png
    if not path.lower().endswith(".png"):
        raise ParamError("plot", path, "writes a PNG (OUT.png)")
    results = results if isinstance(results, (list, tuple)) else [results]
    xs = [np.log2([r.size for r in res.rows]) for res in results]
    ys = [np.array([r.busbw for r in res.rows]) for res in results]
    x0 = float(min(x.min() for x in xs))
    x1 = float(max(max(x.max() for x in xs), x0 + 1))
    y1 = float(max(y.max() for y in ys)) * 1.1 or 1.0
    fig = figure((width, height))
    ax = fig.add_subplot()
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        ax.plot(x, y, color=rgb(COLOURS[i % len(COLOURS)]), linewidth=2, marker="o", markersize=5,
                label=labels[i] if labels else None)
    ticks = list(range(int(np.ceil(x0)), int(x1) + 1, max(1, int(x1 - x0) // 8)))   # powers of 2
    ax.set_xticks(ticks, [size_label(2.0 ** e) for e in ticks])
    ax.set_xlim(x0 - (x1 - x0) / 40, x1 + (x1 - x0) / 40)
    ax.set_ylim(0, y1)
    ax.grid(axis="y", color=rgb((220, 220, 220)))
    ax.set_axisbelow(True)
    ax.set_title(title, loc="left")
    ax.set_xlabel("message size")
    ax.set_ylabel("busbw GB/s")
    if labels:
        ax.legend(loc="upper left")
    fig.tight_layout()
    write_png(fig, path)
