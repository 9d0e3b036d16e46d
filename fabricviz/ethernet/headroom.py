"""PFC headroom per (ingress port, lossless priority): every term, two methods.

Headroom is what an ingress must still absorb after it crosses XOFF: the bytes already on
the wire and those the upstream sends before it stops. All terms are in bytes; the
headroom is their sum.

``ieee`` — the worst case of IEEE 802.1Qbb / 802.3 (congestion.md §1.1), in bit times (BT)
at the port's speed, divided by 8:

* ``receiver_max_frame`` / ``sender_max_frame``: a frame of ``mtu`` bytes + 20 B of preamble,
  SFD and inter-frame gap that neither end can cut short ((9216 + 20) · 8 = 73,888 BT);
* ``pause_frame``: the 64 B PFC frame + 20 B = 672 BT;
* ``interface_delay``: 802.3's PHY/MAC delay bound: 8,192 / 6,144 / 24,576 / 122,880 BT at
  10 / 25 / 40 / 100G, linear in speed between them; above 100G the 100G *time* (1.2288 µs)
  is kept (802.3's 200/400/800G figures were not at hand; keeping the time is the safe side);
* ``response_delay``: 802.1Qbb's bound on how late the sender stops (30,720 … 463,360 BT at
  10 … 400G, :func:`fabricviz.ethernet.pfc.pause_response_s`);
* ``cable_propagation``: 2 × one-way delay (the pause travels up, the last bits come down) ×
  speed. One-way delay = length / (velocity factor · c), by medium:

  ======  ==================  ========  ===============================================
  medium  velocity            ns/m      source
  ======  ==================  ========  ===============================================
  dac     0.70 c              4.765     twinax with foamed dielectric, 0.70–0.80 c in
                                        cable makers' data; the slow end (estimate)
  mmf     c / 1.482           4.943     OM3/OM4 multimode at 850 nm, effective group
                                        index 1.482 (Corning ClearCurve OM4 data sheet)
  smf     c / 1.4676          4.895     G.652 single-mode at 1310 nm, effective group
                                        index 1.4676 (Corning SMF-28 Ultra data sheet)
  ======  ==================  ========  ===============================================

  An AOC is multimode fibre (850 nm VCSELs); a transceiver pair is single-mode when the
  part says so (DR/FR/LR optics, "single-mode") and multimode for SR optics.

``nvidia`` — the NVIDIA/Mellanox rule of thumb (Mellanox community DOC-2623 as cited in
congestion.md §1.1): ``sender_mtu + receiver_mtu + 3,840 B + 130 B per 100 m per Gb/s``
(``fixed``, ``cable_propagation``); 100G, 100 m, MTU 9216 gives 35,272 B.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .pfc import pause_response_s
from .roce_meta import METHODS

if TYPE_CHECKING:  # pragma: no cover
    from ..model.fabric import Fabric

__all__ = ["METHODS", "MEDIA", "NS_PER_M", "cable_media", "headroom_terms", "ieee_terms",
           "nvidia_terms"]

C_M_PER_S = 299_792_458.0
#: One-way propagation delay per metre of cable, by medium (see the module docstring).
NS_PER_M: dict[str, float] = {
    "dac": 1e9 / (0.70 * C_M_PER_S),
    "mmf": 1e9 * 1.482 / C_M_PER_S,
    "smf": 1e9 * 1.4676 / C_M_PER_S,
}
MEDIA = tuple(NS_PER_M)
FRAME_OVERHEAD_B = 20          # preamble 7 + SFD 1 + inter-frame gap 12
PAUSE_FRAME_BT = 672.0         # 64 B PFC frame + 20 B
_INTF_GBPS = (10.0, 25.0, 40.0, 100.0)
_INTF_BT = (8_192.0, 6_144.0, 24_576.0, 122_880.0)
NVIDIA_FIXED_B = 3_840.0
NVIDIA_B_PER_100M_GBPS = 130.0

IEEE_TERMS = ("receiver_max_frame", "pause_frame", "interface_delay", "response_delay",
              "cable_propagation", "sender_max_frame")
NVIDIA_TERMS = ("sender_mtu", "receiver_mtu", "fixed", "cable_propagation")


def interface_delay_bt(gbps: np.ndarray) -> np.ndarray:
    """802.3 interface delay bound in bit times (table up to 100G, 100G's time above)."""
    g = np.asarray(gbps, float)
    bt = np.interp(g, _INTF_GBPS, _INTF_BT)
    return np.where(g > 100.0, _INTF_BT[-1] * g / 100.0, bt)


def ieee_terms(gbps: np.ndarray, length_m: np.ndarray, medium: np.ndarray,
               mtu: int) -> dict[str, np.ndarray]:
    """The six IEEE worst-case terms (bytes) per port."""
    g = np.asarray(gbps, float)
    frame = np.full(g.shape, float(mtu + FRAME_OVERHEAD_B))
    ns = np.array([NS_PER_M.get(str(m), NS_PER_M["smf"]) for m in np.asarray(medium).ravel()],
                  float).reshape(g.shape)
    prop_bits = 2.0 * np.asarray(length_m, float) * ns * g     # ns × Gb/s = bits
    return {
        "receiver_max_frame": frame,
        "pause_frame": np.full(g.shape, PAUSE_FRAME_BT / 8),
        "interface_delay": interface_delay_bt(g) / 8,
        "response_delay": pause_response_s(g) * g * 1e9 / 8,
        "cable_propagation": prop_bits / 8,
        "sender_max_frame": frame.copy(),
    }


def nvidia_terms(gbps: np.ndarray, length_m: np.ndarray, mtu: int) -> dict[str, np.ndarray]:
    """The rule of thumb's four terms (bytes) per port."""
    g = np.asarray(gbps, float)
    return {
        "sender_mtu": np.full(g.shape, float(mtu)),
        "receiver_mtu": np.full(g.shape, float(mtu)),
        "fixed": np.full(g.shape, NVIDIA_FIXED_B),
        "cable_propagation": NVIDIA_B_PER_100M_GBPS * np.asarray(length_m, float) / 100.0 * g,
    }


def headroom_terms(method: str, gbps: np.ndarray, length_m: np.ndarray, medium: np.ndarray,
                   mtu: int) -> dict[str, np.ndarray]:
    """Terms of ``method`` (``ieee`` | ``nvidia``); their sum is the headroom."""
    if method == "ieee":
        return ieee_terms(gbps, length_m, medium, mtu)
    if method == "nvidia":
        return nvidia_terms(gbps, length_m, mtu)
    raise ValueError(f"headroom method {method!r}: one of {', '.join(METHODS)}")


def part_medium(cable_type: str | None, part_id: str, name: str, reach_m: float) -> str:
    """``dac`` | ``mmf`` | ``smf`` of one cable part (see the module docstring)."""
    if cable_type == "dac":
        return "dac"
    if cable_type == "aoc":
        return "mmf"
    text = name.lower()
    if "single-mode" in text or "singlemode" in text:
        return "smf"
    if "multimode" in text or "multi-mode" in text:
        return "mmf"
    optic = part_id.upper().rsplit("-", 1)[-1][:2]
    if optic in ("DR", "FR", "LR", "ER"):
        return "smf"
    if optic == "SR":
        return "mmf"
    return "smf" if reach_m > 100 else "mmf"


def cable_media(fabric: Fabric, cables: np.ndarray) -> np.ndarray:
    """Medium per cable id (object array of ``dac`` | ``mmf`` | ``smf``)."""
    cables = np.asarray(cables, np.int64)
    codes = fabric.cables_t.part[cables].astype(np.int64)
    out = np.empty(len(cables), dtype=object)
    for code in np.unique(codes).tolist():
        sel = codes == code
        p = fabric.cable(int(cables[np.argmax(sel)])).part
        out[sel] = part_medium(p.cable_type, p.id, p.name, p.reach_m)
    return out
