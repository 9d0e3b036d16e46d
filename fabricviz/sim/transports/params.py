"""The transports' constants, each with where it comes from: htsim (github.com/Broadcom/csg-htsim at
841d9e7, sim/ and sim/datacenter/) and the papers it implements — EQDS (Olteanu et al., NSDI 2022),
NDP (Handley et al., SIGCOMM 2017), HPCC (Li et al., SIGCOMM 2019). No factor here is fitted."""

from __future__ import annotations

from dataclasses import dataclass

#: transports of this package, by ``--transport`` name
EQDS, NDP, HPCC = "eqds", "ndp", "hpcc"
NEW_TRANSPORTS = (EQDS, NDP, HPCC)
#: routing each runs over: EQDS and NDP spray every packet over the equal-cost paths, HPCC keeps a
#: flow on its ECMP path (lossless, PFC)
ROUTING = {EQDS: "spray", NDP: "spray", HPCC: "ecmp"}


@dataclass(frozen=True)
class SprayParams:
    """A receiver-driven sprayer that trims: EQDS or NDP.

    ``entropies``: path ids a flow sprays over, hashed onto the equal-cost paths (0: a fresh
    permutation of the paths per round — every path gets an equal share); ``queue_pkts``: an egress
    queue's payload limit in packets (beyond it payloads are trimmed to headers); ``mtu`` / ``hdr``:
    packet and header bytes on the wire; ``window_pkts``: packets in flight per flow (the first
    window goes unsolicited; later ones as the receiver pulls, paced at its line rate)."""

    name: str
    entropies: int
    queue_pkts: int
    mtu: int
    hdr: int
    window_pkts: int
    source: str

    @property
    def payload(self) -> int:
        return self.mtu - self.hdr


#: EQDS (htsim_eqds): eqds.cpp: _hdr_size 64, _mss 4096, _mtu = _mss + _hdr_size, _maxwnd = 50 × _mtu
#: (the unsolicited first window), pull credit 8 × 512 B per MTU time; main_eqds.cpp:
#: DEFAULT_QUEUE_SIZE 35 packets, path_entropy_size 64 (ECMP_FIB: each packet's path id hashed).
EQDS_PARAMS = SprayParams(EQDS, entropies=64, queue_pkts=35, mtu=4160, hdr=64, window_pkts=50,
                          source="htsim eqds.cpp (_mss 4096, _hdr_size 64, _maxwnd 50 MTU), "
                                 "main_eqds.cpp (queue 35 packets, 64 path entropies)")
#: NDP (htsim_ndp -strat perm): main_ndp.cpp: packet_size 9000, DEFAULT_QUEUE_SIZE 15, cwnd 15;
#: ndp.cpp: _cwnd = 15 × data packet size, ACKSIZE 64; SCATTER_PERMUTE: a permutation of the paths.
NDP_PARAMS = SprayParams(NDP, entropies=0, queue_pkts=15, mtu=9000, hdr=64, window_pkts=15,
                         source="htsim main_ndp.cpp (MTU 9000, queue 15 packets, cwnd 15, -strat perm), "
                                "ndp.cpp (ACKSIZE 64)")


@dataclass(frozen=True)
class HpccParams:
    """HPCC over lossless per-flow ECMP: each flow's window tracks ``eta`` of its bottleneck's
    capacity from the in-band telemetry (HPCC §3.2: W = W / (U / η) + W_AI), so a saturated link
    runs at ``eta`` shared equally (additive increase, multiplicative decrease to the same target);
    ``mtu`` bytes per packet, first window one BDP at line rate (hpcc.cpp: _cwnd = _T · rate)."""

    eta: float = 0.95          # hpcc.cpp: HPCCSrc::_eta = 0.95, "Target link utilization"
    mtu: int = 9000            # main_hpcc.cpp: packet_size 9000
    queue_pkts: int = 15       # main_hpcc.cpp: DEFAULT_QUEUE_SIZE 15 (lossless input, PFC)
    base_rtt_s: float = 12e-6  # hpcc.cpp: HPCCSrc::_T = timeFromUs(12.0), "Known baseline RTT"
    max_stages: int = 5        # hpcc.cpp: HPCCSrc::_max_stages = 5, additive increases before a MD step
    pfc_high_pkts: int = 15    # main_hpcc.cpp: high_pfc = 15 (LosslessInputQueue::_high_threshold, packets)
    pfc_low_pkts: int = 12     # main_hpcc.cpp: low_pfc = 12 (LosslessInputQueue::_low_threshold, packets)
    source: str = ("htsim hpcc.cpp (_eta 0.95, _Wai one MSS, _T 12 us, _max_stages 5), main_hpcc.cpp (MTU 9000, "
                   "queue 15, PFC 15/12 packets, ecmp_host)")


HPCC_PARAMS = HpccParams()
