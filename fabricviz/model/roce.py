"""The design's RoCE settings, ``fabric.meta["roce"]``: checked and defaulted into :class:`RoceSettings`.

``meta["roce"]`` is a plain JSON object (all keys optional)::

    {"mtu": 9216, "priorities": [3], "method": "ieee", "dcqcn": "nvidia",
     "ecn": {"kmin": 150000, "kmax": 1500000, "pmax": 0.1}, "pfc": {"xoff": 144000, "xon": 99000}}

* ``mtu``: the largest frame on a lossless port, bytes (the switch port MTU; 1500 … 9216);
* ``priorities``: the lossless 802.1p priorities (PFC enabled), distinct, 0 … 7;
* ``method``: headroom sizing, ``ieee`` (802.1Qbb/802.3 worst case) or ``nvidia`` (rule of thumb);
* ``dcqcn``: the DCQCN parameter preset, ``nvidia`` (ConnectX firmware defaults) or ``paper``;
* ``ecn``: an override of the per-speed RED thresholds (bytes, bytes, probability 0 … 1);
* ``pfc``: fixed PFC thresholds for every lossless port and priority, bytes held at the ingress:
  pause at ``xoff``, resume at ``xon`` (default XOFF − 2 MTU) — a switch configured with static
  thresholds, or another simulator's queues (htsim: 15 packets); without it the plan derives them
  from the switch part's buffer.

A bad design value raises :class:`RoceMetaError`, which names its field (``meta.roce.priorities``)
so a command can say which file and element to fix. A design reads its settings once per value,
through ``fabric.settings.roce`` (:mod:`fabricviz.model.settings`); the engines' side, with the
command line's arguments winning, is :mod:`fabricviz.ethernet.roce_meta`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MTU_MIN, MTU_MAX = 1500, 9216
DEFAULT_MTU = 9216
DEFAULT_PRIORITIES: tuple[int, ...] = (3,)
DEFAULT_METHOD = "ieee"
DEFAULT_DCQCN = "nvidia"
METHODS = ("ieee", "nvidia")
DCQCN_PRESETS = ("nvidia", "paper")
KEYS = ("mtu", "priorities", "method", "dcqcn", "ecn", "pfc")
PFC_KEYS = ("xoff", "xon")
ECN_KEYS = ("kmin", "kmax", "pmax")


class RoceMetaError(ValueError):
    """A refused ``meta["roce"]`` value; ``where`` names the element (``meta.roce.mtu``)."""

    def __init__(self, message: str, field_name: str = "") -> None:
        super().__init__(message)
        self.field_name = field_name

    @property
    def where(self) -> str:
        return f"meta.roce.{self.field_name}" if self.field_name else "meta.roce"


def _checked(field_name: str, check: Any, value: Any) -> Any:
    """``check(value)`` with its ValueError re-raised as the RoceMetaError of ``field_name``."""
    try:
        return check(value)
    except ValueError as e:
        raise RoceMetaError(str(e), field_name) from None


@dataclass(frozen=True)
class RoceSettings:
    """Checked RoCE settings of a design (see the module docstring)."""

    mtu: int = DEFAULT_MTU
    priorities: tuple[int, ...] = DEFAULT_PRIORITIES
    method: str = DEFAULT_METHOD
    dcqcn: str = DEFAULT_DCQCN
    ecn: dict[str, float] = field(default_factory=dict)
    pfc: dict[str, float] = field(default_factory=dict)
    #: The keys the design set (the others are defaults); not part of equality.
    given: frozenset[str] = field(default=frozenset(), compare=False)


def check_mtu(mtu: Any) -> int:
    if isinstance(mtu, bool) or not isinstance(mtu, int) or not MTU_MIN <= mtu <= MTU_MAX:
        raise ValueError(f"mtu {mtu!r}: a whole number of bytes, {MTU_MIN} … {MTU_MAX}")
    return mtu


def check_priorities(prios: Any) -> tuple[int, ...]:
    if isinstance(prios, int) and not isinstance(prios, bool):
        prios = (prios,)
    if not isinstance(prios, (list, tuple)) or not prios:
        raise ValueError(f"priorities {prios!r}: a non-empty list of 802.1p priorities 0 … 7")
    for p in prios:
        if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p <= 7:
            raise ValueError(f"priority {p!r}: an 802.1p priority 0 … 7")
    if len(set(prios)) != len(prios):
        raise ValueError(f"priorities {list(prios)}: each at most once")
    return tuple(sorted(prios))


def check_method(method: Any) -> str:
    if method not in METHODS:
        raise ValueError(f"headroom method {method!r}: one of {', '.join(METHODS)}")
    return str(method)


def check_ecn(ecn: Any) -> dict[str, float]:
    if not isinstance(ecn, Mapping):
        raise ValueError(f"ecn {ecn!r}: an object with kmin, kmax (bytes) and/or pmax")
    out: dict[str, float] = {}
    for k, v in ecn.items():
        if k not in ECN_KEYS:
            raise ValueError(f"ecn: unknown key {k!r} (known: {', '.join(ECN_KEYS)})")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise ValueError(f"ecn {k} {v!r}: a number ≥ 0")
        out[k] = float(v)
    if out.get("pmax", 0.0) > 1:
        raise ValueError(f"ecn pmax {out['pmax']:g}: a probability 0 … 1")
    if "kmin" in out and "kmax" in out and out["kmin"] > out["kmax"]:
        raise ValueError(f"ecn kmin {out['kmin']:g} above kmax {out['kmax']:g}")
    return out


def check_pfc(pfc: Any) -> dict[str, float]:
    if not isinstance(pfc, Mapping) or "xoff" not in pfc:
        raise ValueError(f"pfc {pfc!r}: an object with xoff and optionally xon (bytes)")
    out: dict[str, float] = {}
    for k, v in pfc.items():
        if k not in PFC_KEYS:
            raise ValueError(f"pfc: unknown key {k!r} (known: {', '.join(PFC_KEYS)})")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < 2 ** 40:
            raise ValueError(f"pfc {k} {v!r}: a number of bytes > 0")
        out[k] = float(v)
    if "xon" in out and out["xon"] >= out["xoff"]:
        raise ValueError(f"pfc xon {out['xon']:g} not below xoff {out['xoff']:g}")
    return out


def _pfc_of(value: Mapping[str, Any]) -> dict[str, float]:
    """meta roce's pfc, checked, with XOFF at least one frame of the design's MTU."""
    if "pfc" not in value:
        return {}
    pfc = _checked("pfc", check_pfc, value["pfc"])
    mtu = _checked("mtu", check_mtu, value.get("mtu", DEFAULT_MTU))
    if pfc["xoff"] < mtu:
        raise RoceMetaError(f"pfc xoff {pfc['xoff']:g} below one frame (mtu {mtu})", "pfc")
    return pfc


def check_roce(value: Any) -> RoceSettings:
    """Check a ``meta["roce"]`` value (None: all defaults); :class:`RoceMetaError` names the
    bad field."""
    if value is None:
        return RoceSettings()
    if not isinstance(value, Mapping):
        raise RoceMetaError(f"meta roce {value!r}: an object")
    unknown = sorted(set(value) - set(KEYS))
    if unknown:
        raise RoceMetaError(f"meta roce: unknown key {unknown[0]!r} (known: {', '.join(KEYS)})")
    dcqcn = value.get("dcqcn", DEFAULT_DCQCN)
    if dcqcn not in DCQCN_PRESETS:
        raise RoceMetaError(f"dcqcn preset {dcqcn!r}: one of {', '.join(DCQCN_PRESETS)}", "dcqcn")
    return RoceSettings(mtu=_checked("mtu", check_mtu, value.get("mtu", DEFAULT_MTU)),
                        priorities=_checked("priorities", check_priorities,
                                            value.get("priorities", DEFAULT_PRIORITIES)),
                        method=_checked("method", check_method, value.get("method", DEFAULT_METHOD)),
                        dcqcn=str(dcqcn), ecn=_checked("ecn", check_ecn, value.get("ecn", {})),
                        pfc=_pfc_of(value), given=frozenset(value))


def to_meta(s: RoceSettings) -> dict[str, Any]:
    """``RoceSettings`` as the plain JSON a design file keeps (for ``set_meta("roce", …)``)."""
    out: dict[str, Any] = {"mtu": s.mtu, "priorities": list(s.priorities), "method": s.method,
                           "dcqcn": s.dcqcn}
    if s.ecn:
        out["ecn"] = dict(s.ecn)
    if s.pfc:
        out["pfc"] = dict(s.pfc)
    return out
