"""QoS options kept in a design (``fabric.meta["qos"]``): plain JSON, checked on the way back.

The options are the ones :class:`~fabricviz.ib.qos.QosOptions` holds (what an opensm.conf's
``qos*`` keys and ``max_op_vls`` say); only what the file set is stored, so the fallbacks
(per-port-type set → ``qos_*`` → OpenSM's built-in default) work the same after a reload.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..model import FabricError
from .qos import NUM_SLS, PORT_TYPES, VLARB_ENTRIES, QosOptions, QosSet

if TYPE_CHECKING:
    from ..model import Fabric

META_KEY = "qos"
META_VERSION = 1
_SETS = ("default", *PORT_TYPES)


def _set_doc(s: QosSet) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if s.max_vls is not None:
        out["max_vls"] = s.max_vls
    if s.high_limit is not None:
        out["high_limit"] = s.high_limit
    if s.vlarb_high is not None:
        out["vlarb_high"] = [list(e) for e in s.vlarb_high]
    if s.vlarb_low is not None:
        out["vlarb_low"] = [list(e) for e in s.vlarb_low]
    if s.sl2vl is not None:
        out["sl2vl"] = list(s.sl2vl)
    return out


def to_meta(opts: QosOptions) -> dict[str, Any]:
    """The JSON kept in ``fabric.meta["qos"]``."""
    sets = {name: d for name in _SETS if (d := _set_doc(getattr(opts, name)))}
    return {"version": META_VERSION, "qos": opts.qos, "max_op_vls": opts.max_op_vls,
            "use_optimized_slvl": opts.use_optimized_slvl, "sets": sets}


def _int(v: Any, at: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise FabricError(f"{at}: {v!r} is not an integer {lo}..{hi}")
    return v


def _vlarb(v: Any, at: str) -> tuple[tuple[int, int], ...]:
    if not isinstance(v, list) or len(v) > VLARB_ENTRIES:
        raise FabricError(f"{at}: expected a list of up to {VLARB_ENTRIES} [vl, weight] pairs")
    out = []
    for i, e in enumerate(v):
        if not isinstance(e, list) or len(e) != 2:
            raise FabricError(f"{at}[{i}]: expected [vl, weight]")
        out.append((_int(e[0], f"{at}[{i}][0]", 0, 15), _int(e[1], f"{at}[{i}][1]", 0, 255)))
    return tuple(out)


def _set(doc: Any, at: str) -> QosSet:
    if not isinstance(doc, dict):
        raise FabricError(f"{at}: expected an object")
    unknown = set(doc) - {"max_vls", "high_limit", "vlarb_high", "vlarb_low", "sl2vl"}
    if unknown:
        raise FabricError(f"{at}: unknown key {sorted(unknown)[0]!r}")
    sl2vl = doc.get("sl2vl")
    if sl2vl is not None:
        if not isinstance(sl2vl, list) or len(sl2vl) != NUM_SLS:
            raise FabricError(f"{at}.sl2vl: expected {NUM_SLS} VLs, one per SL")
        sl2vl = tuple(_int(x, f"{at}.sl2vl[{i}]", 0, 15) for i, x in enumerate(sl2vl))
    return QosSet(max_vls=None if doc.get("max_vls") is None else _int(doc["max_vls"], f"{at}.max_vls", 1, 15),
                  high_limit=None if doc.get("high_limit") is None else
                  _int(doc["high_limit"], f"{at}.high_limit", 0, 255),
                  vlarb_high=None if doc.get("vlarb_high") is None else _vlarb(doc["vlarb_high"], f"{at}.vlarb_high"),
                  vlarb_low=None if doc.get("vlarb_low") is None else _vlarb(doc["vlarb_low"], f"{at}.vlarb_low"),
                  sl2vl=sl2vl)


def from_meta(doc: Any, where: str = "meta.qos") -> QosOptions:
    """Back from :func:`to_meta`; anything malformed raises a one-line FabricError naming the key."""
    if not isinstance(doc, dict):
        raise FabricError(f"{where}: expected an object")
    if doc.get("version", META_VERSION) != META_VERSION:
        raise FabricError(f"{where}: version {doc.get('version')!r} is not {META_VERSION}")
    qos = doc.get("qos", False)
    opt = doc.get("use_optimized_slvl", False)
    if not isinstance(qos, bool) or not isinstance(opt, bool):
        raise FabricError(f"{where}: qos and use_optimized_slvl must be true or false")
    sets = doc.get("sets", {})
    if not isinstance(sets, dict) or set(sets) - set(_SETS):
        raise FabricError(f"{where}.sets: expected an object with keys among {', '.join(_SETS)}")
    kw = {name: _set(sets[name], f"{where}.sets.{name}") for name in sets}
    return QosOptions(qos=qos, max_op_vls=_int(doc.get("max_op_vls", 5), f"{where}.max_op_vls", 1, 5),
                      use_optimized_slvl=opt, **kw)


def _design_qos(raw: Any) -> QosOptions | None:
    return None if raw is None else from_meta(raw)


def design_qos(design: Fabric | Mapping[str, Any] | None) -> QosOptions | None:
    """The QoS options a design carries, or None. ``design``: a Fabric (its ``meta["qos"]`` is
    read once per value, through ``fabric.settings``), or a design's ``meta`` mapping."""
    if design is None:
        return None
    if isinstance(design, Mapping):
        return from_meta(design[META_KEY]) if META_KEY in design else None
    return design.settings.parsed(META_KEY, _design_qos)


__all__ = ["META_KEY", "design_qos", "from_meta", "to_meta"]
