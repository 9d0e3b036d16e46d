"""L3 ECMP: a seeded hash of the RoCEv2 5-tuple picks one of the equal-cost next hops.

RoCEv2 runs over UDP port 4791; the entropy is the UDP source port the NIC
sets per QP, so every packet of a QP takes the same path. A switch picks next
hop ``hash5(...) mod n``. When every switch uses the same seed (and function),
the flows that chose uplink i on tier 1 all choose the same uplink again on
tier 2 — hash polarization; per-switch seeds remove it.
"""

from __future__ import annotations

import numpy as np

ROCE_UDP_PORT = 4791
UDP = 17
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser, vectorised (wraps modulo 2**64)."""
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * _M1
        x = (x ^ (x >> np.uint64(27))) * _M2
        return x ^ (x >> np.uint64(31))


def hash5(src: np.ndarray, dst: np.ndarray, sport: np.ndarray, seed: np.ndarray) -> np.ndarray:
    """Hash of (src, dst, UDP, sport, 4791) under a per-switch seed."""
    src = np.asarray(src)
    h = mix64(np.asarray(seed, np.uint64) ^ np.uint64(0x9E3779B97F4A7C15))
    for v in (src, dst, np.full(src.shape, UDP), sport, np.full(src.shape, ROCE_UDP_PORT)):
        h = mix64(h ^ np.asarray(v).astype(np.uint64))
    return h


def flow_sports(n: int, seed: int) -> np.ndarray:
    """Per-flow UDP source ports in 49152..65535 (what NICs set per QP), seeded."""
    with np.errstate(over="ignore"):
        key = np.arange(n, dtype=np.uint64) + np.uint64(seed) * np.uint64(0x100000001)
    return (np.uint64(49152) + mix64(key) % np.uint64(16384)).astype(np.int64)


def switch_seeds(switch_ids: np.ndarray, seed: int, same_seed: bool) -> np.ndarray:
    """Hash seed of every switch: one seed everywhere (polarizes) or one per switch."""
    if same_seed:
        return np.full(len(switch_ids), seed, np.uint64)
    with np.errstate(over="ignore"):
        return mix64(np.asarray(switch_ids, np.uint64) + np.uint64(seed) * np.uint64(0x9E3779B1))
