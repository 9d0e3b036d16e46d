"""run.sh for the htsim simulators of the sprayed and HPCC transports (``export-htsim --transport
eqds|ndp|hpcc``): htsim_eqds, htsim_ndp or htsim_hpcc on the same fat tree and connections.cm, with
the flags fabricviz's flow-level model of that transport assumes (:mod:`fabricviz.sim.transports`):
the design's link speed and latencies, and each simulator's own queue, MTU and window defaults.

The flags, checked against csg-htsim 841d9e7's main_eqds.cpp, main_ndp.cpp and main_hpcc.cpp:
htsim_eqds sprays by default (ECMP_FIB over 64 path entropies per flow), htsim_ndp sprays with
``-strat perm`` (a permutation of the paths), htsim_hpcc keeps a flow on one ECMP path
(``-strat ecmp_host -paths 256``) and has no ``-tiers`` (3 levels always).
"""

from __future__ import annotations

from .htsim import HtsimParams

#: binary, what it is, its routing flags (flag, value, why)
SIMULATORS: dict[str, tuple[str, str, tuple[tuple[str, str, str], ...]]] = {
    "eqds": ("htsim_eqds", "EQDS: receiver-driven credits (pulls at line rate), first window 50 packets unsolicited, "
             "switch queues of 35 packets trim payloads, every packet sprayed",
             ()),
    "ndp": ("htsim_ndp", "NDP: receiver pulls, window 15 packets of 9000 B, switch queues of 15 packets trim",
            (("-strat", "perm", "every packet on the next path of a permutation of the paths (SCATTER_PERMUTE)"),)),
    "hpcc": ("htsim_hpcc", "HPCC: INT-based window (target utilization 0.95) over lossless input queues "
             "(PFC, 15 packets), one ECMP path per flow",
             (("-strat", "ecmp_host", "one ECMP path per flow (hashed)"),
              ("-paths", "256", "path ids a flow hashes over (ecmp_host needs a count)"))),
}
TRANSPORTS = tuple(SIMULATORS)


def transport_flags(p: HtsimParams, transport: str, conns: int, end_us: int, seed: int,
                    end_why: str) -> list[tuple[str, str, str]]:
    """(flag, value, where it came from) of the simulator's command line, in run.sh's order."""
    s = p.sources
    rows = [("-nodes", str(p.nodes), s["-nodes"])]
    if transport != "hpcc":
        rows.append(("-tiers", str(p.tiers), s["-tiers"]))
    rows += [("-conns", str(conns), "flows in connections.cm"),
             ("-tm", '"$here/connections.cm"', "the flows in htsim host numbers (flows.csv maps them back)")]
    rows += list(SIMULATORS[transport][2])
    rows += [("-linkspeed", f"{p.linkspeed_mbps:.6g}", s["-linkspeed"]),
             ("-hop_latency", f"{p.hop_latency_us:.6g}", s["-hop_latency"]),
             ("-switch_latency", f"{p.switch_latency_us:.6g}", s["-switch_latency"]),
             ("-end", str(end_us), end_why), ("-seed", str(seed), "--seed of the export (htsim's srand/srandom)"),
             ("-o", '"$here/logout.dat"', "htsim's binary log")]
    return rows


def transport_run_sh(p: HtsimParams, transport: str, conns: int, sized: int, end_us: int, seed: int,
                     end_why: str, design: str) -> str:
    """The bash script running the transport's simulator on this folder (HTSIM = csg-htsim's sim/datacenter)."""
    binary, what, _ = SIMULATORS[transport]
    rows = transport_flags(p, transport, conns, end_us, seed, end_why)
    width = max(len(f"{f} {v}") for f, v, _ in rows)
    lines = ["#!/usr/bin/env bash",
             f"# {binary} run of {design} ({conns:,} flows), written by fabricviz export-htsim "
             f"--transport {transport}; see README.txt.",
             "# HTSIM: the sim/datacenter folder of github.com/Broadcom/csg-htsim, built with `make` in sim/ "
             "and there.",
             f"# {what}.",
             "# Queues, MTU and window stay at the simulator's defaults: fabricviz's model uses the same "
             "constants.",
             "set -euo pipefail", 'here=$(cd "$(dirname "$0")" && pwd)',
             ': "${HTSIM:?set HTSIM to csg-htsim/sim/datacenter}"', "args=("]
    lines += [f"  {f'{f} {v}':<{width}}  # {why}" for f, v, why in rows]
    pin = ""
    if transport == "hpcc":
        lines += [")", "# HpccSrc seeds each flow with srand(time(NULL)): with LD_PRELOAD of a shim whose time() "
                       "returns a constant", "# (FIXTIME=path/to/fixtime.so) a run repeats exactly."]
        pin = '${FIXTIME:+env LD_PRELOAD="$FIXTIME"} '
    else:
        lines.append(")")
    lines += [f'{pin}"$HTSIM/{binary}" "${{args[@]}}" "$@" > "$here/{binary}.out"',
              f"done=$(grep -c ' finished at ' \"$here/{binary}.out\" || true)",
              f'echo "$done of {sized} sized flows finished; per flow: grep \' finished at \' $here/{binary}.out"']
    return "\n".join(lines) + "\n"


__all__ = ["SIMULATORS", "TRANSPORTS", "transport_flags", "transport_run_sh"]
