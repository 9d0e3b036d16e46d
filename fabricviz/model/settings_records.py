"""The design's generator and import records, typed: the parsers behind ``fabric.settings``.

What a generator leaves in ``meta`` (``generator``, ``fabric``, ``params``, ``plan``,
``oversubscription``, ``groups``), the LMC a design or an imported file sets (``lmc``,
``file_lmc``), and what an import records of its file (``source``, ``node_descriptions``). All
are records, not choices: what cannot be read is left out (a lint rule or an export then works
from the graph alone), never refused, as the readers did before these types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

LMC_KEY = "lmc"
FILE_LMC_KEY = "file_lmc"
SOURCE_KEY = "source"
DESCRIPTIONS_KEY = "node_descriptions"
MAX_LMC = 7


@dataclass(frozen=True)
class SwitchGroup:
    """One group a generator stored (a dragonfly's group, a 3-D torus's plane): its switches by name."""

    name: str
    switches: tuple[str, ...]


@dataclass(frozen=True)
class GeneratorRecord:
    """What the generator that built a design recorded: its name (``fat-tree``, ``leaf-spine``,
    ``rail``, ``torus``, ``dragonfly``; None: not generated), the technology it built for
    (``fabric``: ``ib``/``roce``), its parameters and plan (plain JSON objects, empty when absent or
    no object), the oversubscription asked per tier (tier name -> ``"3:1"``) and its switch groups
    (empty: none, or a list that cannot be read)."""

    name: str | None = None
    fabric: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    plan: dict[str, Any] = field(default_factory=dict)
    oversubscription: dict[str, str] = field(default_factory=dict)
    groups: tuple[SwitchGroup, ...] = ()


def parse_text(raw: Any) -> str | None:
    """``meta["generator"]`` / ``meta["fabric"]``: a text, else None."""
    return raw if isinstance(raw, str) else None


def parse_object(raw: Any) -> dict[str, Any]:
    """``meta["params"]`` / ``meta["plan"]``: a copy of the object, else empty."""
    return dict(raw) if isinstance(raw, dict) else {}


def parse_ratios(raw: Any) -> dict[str, str]:
    """``meta["oversubscription"]``: tier name -> ``"3:1"``; an entry that is no text is left out."""
    if not isinstance(raw, dict):
        return {}
    return {k: v for k, v in raw.items() if isinstance(k, str) and isinstance(v, str)}


def parse_groups(raw: Any) -> tuple[SwitchGroup, ...]:
    """``meta["groups"]`` (``[{"name": NAME, "switches": [NAMES]}]``); empty when absent or when
    any entry is not of that form (the groups are then inferred from the graph)."""
    if not isinstance(raw, list):
        return ()
    out = []
    for entry in raw:
        members = entry.get("switches") if isinstance(entry, dict) else None
        if (not isinstance(members, list) or not isinstance(entry.get("name"), str)
                or not all(isinstance(m, str) for m in members)):
            return ()
        out.append(SwitchGroup(entry["name"], tuple(members)))
    return tuple(out)


def parse_lmc(raw: Any) -> int:
    """``meta["lmc"]`` / ``meta["file_lmc"]``: an LMC 0..7; anything else (absent included): 0."""
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw <= MAX_LMC:
        return 0
    return raw


@dataclass(frozen=True)
class SourceRecord:
    """The file an imported design was read from, ``meta["source"]``: its format (``ibnetdiscover``,
    ``ibsim``, ``containerlab``), the file's name (no directory) and the topology's own name, when
    recorded ("" when not)."""

    format: str = ""
    file: str = ""
    name: str = ""


def parse_source(raw: Any) -> SourceRecord | None:
    """``meta["source"]`` (None: not imported, or no object)."""
    if not isinstance(raw, dict):
        return None
    fmt, file, name = (raw.get(k) for k in ("format", "file", "name"))
    return SourceRecord(*(v if isinstance(v, str) else "" for v in (fmt, file, name)))


def parse_descriptions(raw: Any) -> dict[str, tuple[str, str]]:
    """``meta["node_descriptions"]``: node GUID (``0x`` + 16 hex digits) -> (the device's name on
    import, the NodeDescription kept verbatim); an entry of another form is left out."""
    if not isinstance(raw, dict):
        return {}
    return {k: (v[0], v[1]) for k, v in raw.items()
            if isinstance(k, str) and isinstance(v, list) and len(v) == 2 and all(isinstance(x, str) for x in v)}


def descriptions_meta(kept: dict[str, tuple[str, str]]) -> dict[str, list[str]]:
    """The JSON form of node descriptions (``meta["node_descriptions"]``)."""
    return {k: [name, desc] for k, (name, desc) in kept.items()}


__all__ = ["DESCRIPTIONS_KEY", "FILE_LMC_KEY", "GeneratorRecord", "LMC_KEY", "SOURCE_KEY",
           "SourceRecord", "SwitchGroup", "descriptions_meta", "parse_descriptions",
           "parse_groups", "parse_lmc", "parse_object", "parse_ratios", "parse_source", "parse_text"]
