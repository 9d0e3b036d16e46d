"""A lesson's fabric spec: checked when the lesson is read, built into a fresh Fabric per run
(a leaf the lesson reader and the action runners share; see :mod:`.lessons` for the format)."""

from __future__ import annotations

from typing import Any

from .. import generate
from ..formats.native import fabric_from_dict
from ..model import Fabric, FabricError

GENERATORS = ("fat_tree", "k_ary_fat_tree", "leaf_spine", "rail_optimized", "torus", "ring", "dragonfly")
CABLE_FIELDS = ("port", "length_m", "type", "part")     # a lesson fabric's "cables" entries


def fail(where: str, fld: str, msg: str) -> FabricError:
    return FabricError(f"{where}: {fld}: {msg}")


def check_fabric_spec(fab: Any, where: str, at: str = "fabric") -> None:
    """A lesson's (or step's, ``at``) fabric: a generator with its args or a native design."""
    if not isinstance(fab, dict) or ("generator" in fab) == ("design" in fab):
        raise fail(where, at, "give either {\"generator\": ..., \"args\": {...}} or {\"design\": {...}}")
    if "generator" in fab:
        if fab["generator"] not in GENERATORS:
            raise fail(where, f"{at}.generator", f"unknown generator {fab['generator']!r} "
                                                  f"(use {', '.join(GENERATORS)})")
        if not isinstance(fab.get("args", {}), dict):
            raise fail(where, f"{at}.args", "must be an object of generator arguments")
    elif not isinstance(fab["design"], dict):
        raise fail(where, f"{at}.design", "must be a native fabricviz design object")
    _check_cables(fab.get("cables", []), where, at)


def _check_cables(cables: Any, where: str, at_fabric: str = "fabric") -> None:
    """A lesson fabric's ``cables``: a list of {port, and length_m / type / part to change}."""
    if not isinstance(cables, list):
        raise fail(where, f"{at_fabric}.cables", "must be a list of {\"port\": ..., \"length_m\": ...} objects")
    for i, c in enumerate(cables):
        at = f"{at_fabric}.cables[{i}]"
        if not isinstance(c, dict) or not isinstance(c.get("port"), str):
            raise fail(where, at, "an object with a \"port\" (e.g. \"leaf01:5\")")
        extra = sorted(set(c) - set(CABLE_FIELDS))
        if extra:
            raise fail(where, f"{at}.{extra[0]}", f"not a cable field (use {', '.join(CABLE_FIELDS)})")
        if len(c) == 1:
            raise fail(where, at, "give length_m, type or part to change")
        m = c.get("length_m", 1.0)
        if isinstance(m, bool) or not isinstance(m, (int, float)) or not m > 0:
            raise fail(where, f"{at}.length_m", f"{m!r}: a length in metres above 0")
        for key in ("type", "part"):
            if key in c and not isinstance(c[key], str):
                raise fail(where, f"{at}.{key}", "must be a string")


def build_spec(spec: dict[str, Any], path: str = "<lesson>", tech: str | None = None) -> Fabric:
    """A fresh fabric from a lesson's (or a step's) fabric spec (see the module doc)."""
    if "generator" in spec:
        args = dict(spec.get("args", {}))
        if tech is not None:
            args["fabric"] = tech
        try:
            f = getattr(generate, spec["generator"])(**args)
        except TypeError as e:
            raise FabricError(f"{path}: fabric.args: {e}") from None
    elif tech is not None:
        raise FabricError(f"{path}: fabric: comparing InfiniBand with RoCE needs a generator fabric")
    else:
        f = fabric_from_dict(spec["design"], where=f"{path}: fabric.design")
    for i, c in enumerate(spec.get("cables", [])):     # re-made cables: a long optical uplink, ...
        try:
            port = f.port(c["port"])
            if port.cable is None:
                raise FabricError(f"port {c['port']}: no cable there")
            f.set_cable(int(port.cable.id), length_m=c.get("length_m"), ctype=c.get("type"),
                        part=c.get("part"))
        except (FabricError, KeyError, ValueError) as e:
            raise FabricError(f"{path}: fabric.cables[{i}]: {e}") from None
    return f
