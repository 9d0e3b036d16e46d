"""Write ibdiagnet2.pm and ibdiagnet2.db_csv beside this script from perfquery_t0.txt, and
ibdiagnet2_t1.* from perfquery_t1.txt (the same
ports and counters), in the layouts the public readers of real ibdiagnet files parse (see the
README): no real ibdiagnet output is published that we could vendor. Run from the repository root:
``python tests/data/counters/make_ibdiagnet.py``.
"""

from __future__ import annotations

from pathlib import Path

from fabricviz.formats.counter_files import load_counters
from fabricviz.model.port_counters import Counter

HERE = Path(__file__).parent
#: LID → (node name, node GUID, port GUID of port 1 for a CA; None: a switch, ports share the node GUID)
NODES = {1: ("Switch1", 0x200000, None), 3: ("Switch2", 0x200001, None), 2: ("Hca1", 0x100000, 0x100001),
         4: ("Hca2", 0x100003, 0x100004), 5: ("Hca3", 0x100006, 0x100007), 6: ("Hca4", 0x100009, 0x10000A)}
PM_KEYS = [("symbol_error_counter", Counter.SYMBOL_ERRORS), ("link_error_recovery_counter", Counter.LINK_ERROR_RECOVERY),
           ("link_down_counter", Counter.LINK_DOWNED), ("port_rcv_errors", Counter.RCV_ERRORS),
           ("port_rcv_remote_physical_errors", Counter.RCV_REMOTE_PHYSICAL_ERRORS),
           ("port_rcv_switch_relay_errors", Counter.RCV_SWITCH_RELAY_ERRORS), ("port_xmit_discard", Counter.XMIT_DISCARDS),
           ("port_xmit_constraint_errors", Counter.XMIT_CONSTRAINT_ERRORS),
           ("port_rcv_constraint_errors", Counter.RCV_CONSTRAINT_ERRORS),
           ("local_link_integrity_errors", Counter.LOCAL_LINK_INTEGRITY_ERRORS),
           ("excessive_buffer_overrun_errors", Counter.EXCESSIVE_BUFFER_OVERRUN_ERRORS),
           ("vl15_dropped", Counter.VL15_DROPPED), ("port_xmit_data", Counter.XMIT_DATA), ("port_rcv_data", Counter.RCV_DATA),
           ("port_xmit_pkts", Counter.XMIT_PKTS), ("port_rcv_pkts", Counter.RCV_PKTS), ("port_xmit_wait", Counter.XMIT_WAIT)]
EXT = [Counter.XMIT_DATA, Counter.RCV_DATA, Counter.XMIT_PKTS, Counter.RCV_PKTS]
CSV_COLS = [c for _k, c in PM_KEYS]


def write(source: str, suffix: str) -> None:
    """ibdiagnet2{suffix}.pm and .db_csv from the perfquery sweep ``source``."""
    records = load_counters(HERE / source, "perfquery").records
    pm, rows = [], []
    for r in records:
        name, node, port1 = NODES[r.lid or 0]
        pguid = port1 if port1 is not None else node
        pm += ["-" * 55, f"Port={r.port} Lid=0x{r.lid:04x} GUID=0x{pguid:016x} Device=0 Port Name={name}/P{r.port}",
               "-" * 55]
        pm += [f"{k}=0x{r.values.get(c, 0):016x}" for k, c in PM_KEYS]
        pm += [f"{k}_extended=0x{r.values.get(c, 0):016x}" for k, c in PM_KEYS if c in EXT]
        pm += ["port_xmit_wait_extended=NA"]
        rows.append(",".join([f"0x{node:016x}", f"0x{pguid:016x}", str(r.port)]
                             + [str(r.values.get(c, 0)) for c in CSV_COLS]
                             + [str(r.values.get(c, 0)) for c in EXT] + ["N/A"]))
    (HERE / f"ibdiagnet2{suffix}.pm").write_text("\n".join(pm) + "\n")
    head = ",".join(["NodeGUID", "PortGUID", "PortNumber"] + [c.value for c in CSV_COLS]
                    + [c.value + "Extended" for c in EXT] + ["PortXmitWaitExt"])
    (HERE / f"ibdiagnet2{suffix}.db_csv").write_text("\n".join([
        "START_NODES", "NodeDesc,NumPorts,NodeType,NodeGUID", '"Switch1",8,2,0x0000000000200000', "END_NODES", "",
        "START_PM_INFO", head, *rows, "END_PM_INFO", ""]) + "\n")


def main() -> None:
    write("perfquery_t0.txt", "")        # the first snapshot
    write("perfquery_t1.txt", "_t1")     # the second (a second seed for the fuzzer, a later sweep)


if __name__ == "__main__":
    main()
