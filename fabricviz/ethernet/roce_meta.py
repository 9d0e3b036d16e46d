"""The engines' view of the design's RoCE settings: the design's values (``fabric.settings.roce``,
checked once per value by :mod:`fabricviz.model.roce`) with explicit arguments winning.

Explicit arguments (the CLI's ``--mtu`` …) win over the design's values. A bad design value
raises :class:`RoceMetaError`, which names its field (``meta.roce.priorities``) so a command can
say which file and element to fix; a bad explicit argument raises a plain ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..model.roce import (  # noqa: F401  (re-exported)
    DCQCN_PRESETS,
    DEFAULT_DCQCN,
    DEFAULT_METHOD,
    DEFAULT_MTU,
    DEFAULT_PRIORITIES,
    ECN_KEYS,
    KEYS,
    METHODS,
    MTU_MAX,
    MTU_MIN,
    PFC_KEYS,
    RoceMetaError,
    RoceSettings,
    check_ecn,
    check_method,
    check_mtu,
    check_pfc,
    check_priorities,
    check_roce,
    to_meta,
)

if TYPE_CHECKING:
    from ..model import Fabric


def parse_priorities(texts: str | Sequence[str | int] | None, option: str) -> tuple[int, ...] | None:
    """Command-line priorities, ``3,4`` or the option given several times → checked tuple (None:
    not given); the ValueError names the option (``--priorities 9: priority 9: …``)."""
    if texts is None or not len(texts):
        return None
    text = texts if isinstance(texts, str) else ",".join(map(str, texts))
    try:
        values = tuple(int(t) for t in text.split(","))
    except ValueError:
        raise ValueError(f"{option} {text!r}: 802.1p priorities 0-7, comma-separated") from None
    try:
        return check_priorities(values)
    except ValueError as e:
        raise ValueError(f"{option} {text}: {e}") from None


def roce_settings(design: Fabric | Mapping[str, Any], *, mtu: int | None = None, method: str | None = None,
                  priorities: tuple[int, ...] | None = None) -> RoceSettings:
    """The settings of ``design`` (a Fabric, or a design's ``meta`` mapping) with explicit arguments
    winning (:class:`RoceMetaError` for a bad design value, ``ValueError`` for a bad argument)."""
    s = check_roce(design.get("roce")) if isinstance(design, Mapping) else design.settings.roce
    return RoceSettings(mtu=s.mtu if mtu is None else check_mtu(mtu),
                        priorities=s.priorities if priorities is None else check_priorities(priorities),
                        method=s.method if method is None else check_method(method),
                        dcqcn=s.dcqcn, ecn=s.ecn, pfc=s.pfc, given=s.given)


def design_error(path: str, e: RoceMetaError) -> str:
    """The one-line refusal of a bad design value: ``FILE: meta.roce.FIELD: reason``."""
    return f"{path}: {e.where}: {e}"
