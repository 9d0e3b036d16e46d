"""The port counters readers in the fuzzer (tests/formats/fuzzing.py): their seeds, each read
against the design it belongs to, and what ``fabricviz counters DESIGN FILE`` does with a mutant."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
#: fuzzer format -> the seed files (tests/data/counters) of that reader
SEEDS = {
    "perfquery": ("perfquery_t0.txt", "perfquery_lid1_ports1_3.txt", "perfquery_x_lid3_ports1_3.txt",
                  "perfquery_a_lid1.txt"),
    "ibqueryerrors": ("ibqueryerrors_t0.txt", "ibqueryerrors_r_data.txt", "ibqueryerrors_counters.txt"),
    "ibdiagnet_pm": ("ibdiagnet2.pm", "ibdiagnet2_t1.pm"),
    "ibdiagnet_csv": ("ibdiagnet2.db_csv", "ibdiagnet2_t1.db_csv"),
}
COUNTER_FORMATS = tuple(SEEDS)
DESIGN = DATA / "samples" / "ibsim_net.2sw2path4hca.net"


def counter_seeds(fmt: str) -> list[tuple[str, bytes, tuple[str, bytes]]]:
    """(name, bytes, (design name, design bytes)) of each seed of ``fmt``."""
    topo = (DESIGN.name, DESIGN.read_bytes())
    return [(n, (DATA / "counters" / n).read_bytes(), topo) for n in SEEDS[fmt]]


def read_counters(path: str, topology: str | None) -> None:
    """``fabricviz counters DESIGN FILE``: read, match to the design, rank, and write the lines."""
    from fabricviz.check.counters import Metric, link_line, port_counters
    from fabricviz.formats.counter_files import load_counters
    from fabricviz.loaders import load_any
    assert topology is not None
    report = port_counters(load_any(topology), [load_counters(path)])
    for metric in Metric:
        for lk in report.worst(metric):
            link_line(lk, metric)
