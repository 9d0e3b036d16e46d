"""ConnectX (mlx5) host settings matching the switches' lossless RoCE configuration.

One shell script per host, one block per RDMA device cabled to a lossless switch port, with
the commands NVIDIA documents for MLNX_OFED / mlnx-tools:

* ``mlnx_qos -i IF --trust dscp``: classify by DSCP, as the switches do;
* ``mlnx_qos -i IF --pfc 0,0,0,1,0,0,0,0``: PFC on the lossless priorities only;
* ``mlnx_qos -i IF --dscp2prio set,DSCP,PRIO`` for each lossless priority's DSCP and the CNP
  DSCP 48 → 6;
* ``mlnx_qos -i IF --cable_len M``: the NIC's own headroom for its cable (metres, rounded up:
  the switch port's NVUE ``cable-length`` of the same cable); the NIC sizes its receive buffer
  from it the way the switch's PFC profile does (headroom above the XOFF fill, see
  :mod:`.nvue_config`);
* ``cma_roce_tos -d DEV -t TOS`` and ``/sys/class/infiniband/DEV/tc/1/traffic_class``: the
  default IP ToS of RoCE traffic (RDMA-CM and verbs), ``DSCP << 2 | 2`` (ECN-capable, ECT(0)),
  with the DSCP of the first lossless priority (an application picks another by its ToS);
* ``/sys/class/net/IF/ecn/roce_np/cnp_dscp`` and ``cnp_802p_prio``: the CNPs' DSCP 48 and
  priority 6; ``ecn/roce_np/enable/PRIO`` and ``ecn/roce_rp/enable/PRIO``: DCQCN on each
  lossless priority as notification and reaction point.

The netdev of each RDMA device is looked up at run time from sysfs
(``/sys/class/infiniband/DEV/device/net``), so the script needs no interface names.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Sequence

from .switch_types import CNP_DSCP, CNP_PRIORITY, ExportSettings, NicPort

ECT0 = 2                        # the ECN field of an ECN-capable transport


def tos(dscp: int) -> int:
    """The IP ToS byte of RoCE traffic on DSCP ``dscp``, ECN-capable."""
    return dscp << 2 | ECT0


def pfc_vector(priorities: tuple[int, ...]) -> str:
    return ",".join("1" if p in priorities else "0" for p in range(8))


def nic_commands(n: NicPort, s: ExportSettings) -> list[str]:
    """The commands for one RDMA device (``$IF`` is its netdev, set just before)."""
    dev = shlex.quote(n.rdma_dev)
    first = s.dscps[0]
    return [
        f"IF=$(ls /sys/class/infiniband/{dev}/device/net | head -n 1)",
        'mlnx_qos -i "$IF" --trust dscp',
        f'mlnx_qos -i "$IF" --pfc {pfc_vector(s.priorities)}',
        *(f'mlnx_qos -i "$IF" --dscp2prio set,{d},{p}' for p, d in s.dscp_of.items()),
        f'mlnx_qos -i "$IF" --dscp2prio set,{CNP_DSCP},{CNP_PRIORITY}',
        f'mlnx_qos -i "$IF" --cable_len {max(math.ceil(n.cable_m - 1e-9), 1)}',
        f"cma_roce_tos -d {dev} -t {tos(first)}",
        f"echo {tos(first)} > /sys/class/infiniband/{dev}/tc/1/traffic_class",
        f'echo {CNP_DSCP} > "/sys/class/net/$IF/ecn/roce_np/cnp_dscp"',
        f'echo {CNP_PRIORITY} > "/sys/class/net/$IF/ecn/roce_np/cnp_802p_prio"',
        *(f'echo 1 > "/sys/class/net/$IF/ecn/roce_np/enable/{p}"' for p in s.priorities),
        *(f'echo 1 > "/sys/class/net/$IF/ecn/roce_rp/enable/{p}"' for p in s.priorities),
    ]


def nic_script(host: str, nics: Sequence[NicPort], s: ExportSettings) -> str:
    lines = ["#!/bin/sh",
             f"# ConnectX RoCE settings of {host}: lossless {s.text}, "
             f"CNPs on DSCP {CNP_DSCP} / priority {CNP_PRIORITY} (fabricviz)",
             "set -e"]
    for n in nics:
        lines.append(f"# {n.rdma_dev} -> {n.switch_port}")
        lines.extend(nic_commands(n, s))
    return "\n".join(lines) + "\n"
