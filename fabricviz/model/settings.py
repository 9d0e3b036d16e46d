"""The design's settings, typed: ``fabric.settings`` reads ``fabric.meta`` once per value.

A design file keeps its design-wide settings in ``meta`` as plain JSON (``roce``, ``sms``,
``qos``, ``partitions``, ...), and writes them back byte for byte. What the code reads is the
typed, checked object: :attr:`DesignSettings.roce` (:class:`~fabricviz.model.roce.RoceSettings`),
:attr:`DesignSettings.sms` (:class:`SmEntry` tuple), and for settings whose types live in an
engine package (QoS, partitions), :meth:`DesignSettings.parsed` with that package's parser. What a
generator or an import recorded is typed too (:mod:`fabricviz.model.settings_records`):
:attr:`DesignSettings.generator` (:class:`GeneratorRecord`: ``generator``, ``fabric``, ``params``,
``plan``, ``oversubscription``, ``groups``), :attr:`DesignSettings.lmc` (``lmc``, else
``file_lmc``), :attr:`DesignSettings.source` and :attr:`DesignSettings.node_descriptions`; records
are read leniently (what is of another form is left out), as before they were typed.

A value is parsed the first time it is read and kept while ``meta`` holds an equal value (a
copy of what was parsed is compared, so an edit in place is seen too: comparing plain JSON is
far cheaper than checking it again). A refused value raises on every read, with the same one-line
error naming its key (``meta.roce.mtu: ...``, ``meta.sms[1].priority: ...``), so a design with a
bad setting still loads and each command says what is wrong with it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from .errors import FabricError
from .planes import PLANES_KEY, PlaneSet, parse_planes
from .roce import RoceSettings, check_roce
from .settings_records import (
    DESCRIPTIONS_KEY,
    FILE_LMC_KEY,
    LMC_KEY,
    SOURCE_KEY,
    GeneratorRecord,
    SourceRecord,
    SwitchGroup,
    descriptions_meta,
    parse_descriptions,
    parse_groups,
    parse_lmc,
    parse_object,
    parse_ratios,
    parse_source,
    parse_text,
)

if TYPE_CHECKING:
    from .fabric import Fabric

T = TypeVar("T")

ROCE_KEY = "roce"
SMS_KEY = "sms"
TWIN_KEY = "twin"
FILE_LIDS_KEY = "file_lids"
SM_NODE_KEY = "sm_node"


@dataclass(frozen=True)
class SmEntry:
    """One SM-capable node a design lists in ``meta["sms"]``: its name and SM priority (0..15)."""

    node: str
    priority: int = 0


def parse_sms(raw: Any) -> tuple[SmEntry, ...]:
    """``meta["sms"]`` (``[{"node": NAME, "priority": 0..15}, ...]``; None or empty: no list)."""
    if not raw:
        return ()
    if not isinstance(raw, list):
        raise FabricError('meta.sms: expected a list of {"node": NAME, "priority": N}')
    out = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("node"), str):
            raise FabricError(f"meta.sms[{i}]: expected {{\"node\": NAME, \"priority\": N}}")
        prio = item.get("priority", 0)
        if not isinstance(prio, int) or not 0 <= prio <= 15:
            raise FabricError(f"meta.sms[{i}].priority: SM priority is 0..15")
        out.append(SmEntry(item["node"], prio))
    return tuple(out)


@dataclass(frozen=True)
class TwinRecord:
    """Where a twin came from, ``meta["twin"]``: the design it twins (``of``), its technology
    (``source_tech``, "ib" or "roce"), the source's switch parts and the device rates a round trip
    could not recover (by device name), and how many cables of the twin run at another rate."""

    of: str = ""
    source_tech: str = ""
    parts: dict[str, str] = field(default_factory=dict)
    rates: dict[str, str] = field(default_factory=dict)
    changed_rate_cables: int = 0


def _names_map(raw: Any) -> dict[str, str]:
    """An object of device name -> text (anything else, or an entry that is not: left out)."""
    if not isinstance(raw, dict):
        return {}
    return {k: v for k, v in raw.items() if isinstance(k, str) and isinstance(v, str)}


def parse_twin(raw: Any) -> TwinRecord | None:
    """``meta["twin"]`` (None: the design is no twin). A record, not a choice: what cannot be
    read of it is left out (twinning back then picks parts afresh), never refused."""
    if not isinstance(raw, dict):
        return None
    changed = raw.get("changed_rate_cables", 0)
    if isinstance(changed, bool) or not isinstance(changed, int):
        changed = 0
    return TwinRecord(str(raw.get("of", "")), str(raw.get("from", "")), _names_map(raw.get("parts")),
                      _names_map(raw.get("rates")), changed)


def parse_file_lids(raw: Any) -> dict[str, int]:
    """``meta["file_lids"]``: the LIDs an imported file shows, ``"0xGUID:PORT"`` -> LID (empty: none).

    A record of the file, not a choice: an entry that is no LID is left out (OpenSM then assigns
    that port a LID), never refused."""
    if not isinstance(raw, dict):
        return {}
    return {k: v for k, v in raw.items() if isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)}


def parse_sm_node(raw: Any) -> str | None:
    """``meta["sm_node"]``: the node an imported file's SM sits on (ibsim's first node), or None."""
    return raw if isinstance(raw, str) and raw else None


def snapshot(raw: Any) -> Any:
    """A copy of a meta value, to tell later whether it changed: through JSON when that gives back
    an equal value (meta is saved as JSON), which costs a few calls whatever its size (issue 28:
    ``copy.deepcopy`` of a 32,767-statement ``meta.partitions`` made ~330,000 calls on opening the
    Traffic dock); ``copy.deepcopy`` for anything JSON would change (tuples, non-string keys, NaN,
    objects)."""
    try:
        out = json.loads(json.dumps(raw, allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        return copy.deepcopy(raw)
    return out if type(out) is type(raw) and out == raw else copy.deepcopy(raw)


class DesignSettings:
    """The typed settings of one Fabric (``fabric.settings``), each parsed once per value."""

    def __init__(self, fabric: Fabric) -> None:
        self.fabric = fabric
        #: key -> (a copy of the raw value parsed, the parser, the typed value)
        self._parsed: dict[str, tuple[Any, Callable[[Any], Any], Any]] = {}

    def parsed(self, key: str, parse: Callable[[Any], T]) -> T:
        """``parse(meta[key])`` (None when absent), kept while ``meta[key]`` stays equal."""
        raw = self.fabric.meta.get(key)
        hit = self._parsed.get(key)
        if hit is not None and hit[1] is parse and type(hit[0]) is type(raw) and hit[0] == raw:
            return hit[2]
        value = parse(raw)
        self._parsed[key] = (snapshot(raw), parse, value)
        return value

    def forget(self, key: str) -> None:
        """Drop what was parsed of ``meta[key]`` (it was set anew)."""
        self._parsed.pop(key, None)

    @property
    def roce(self) -> RoceSettings:
        """The RoCE settings (defaults where the design sets none); RoceMetaError names a bad field."""
        return self.parsed(ROCE_KEY, check_roce)

    @property
    def sms(self) -> tuple[SmEntry, ...]:
        """The SM-capable nodes the design lists (empty: none, the default SM); FabricError if refused."""
        return self.parsed(SMS_KEY, parse_sms)

    @property
    def planes(self) -> PlaneSet:
        """The design's planes (:mod:`fabricviz.model.planes`; empty: one plane); FabricError if refused."""
        return self.parsed(PLANES_KEY, parse_planes)

    @property
    def twin(self) -> TwinRecord | None:
        """Where a twin came from (None: the design is no twin); FabricError if refused."""
        return self.parsed(TWIN_KEY, parse_twin)

    @property
    def file_lids(self) -> dict[str, int]:
        """The LIDs an imported file shows (``"0xGUID:PORT"`` -> LID; empty: none)."""
        return self.parsed(FILE_LIDS_KEY, parse_file_lids)

    @property
    def sm_node(self) -> str | None:
        """The node an imported file's SM sits on, or None."""
        return self.parsed(SM_NODE_KEY, parse_sm_node)

    @property
    def generator(self) -> GeneratorRecord:
        """What the generator that built the design recorded (all defaults: not generated)."""
        return GeneratorRecord(self.parsed("generator", parse_text), self.parsed("fabric", parse_text),
                               self.parsed("params", parse_object), self.parsed("plan", parse_object),
                               self.parsed("oversubscription", parse_ratios), self.parsed("groups", parse_groups))

    @property
    def groups(self) -> tuple[SwitchGroup, ...]:
        """The switch groups a generator stored (empty: none, or a list that cannot be read)."""
        return self.parsed("groups", parse_groups)

    @property
    def lmc(self) -> int:
        """The design's LMC: ``meta["lmc"]`` when set, else the imported file's (``file_lmc``), else
        0; a value that is no LMC (0..7) counts as 0."""
        return self.parsed(LMC_KEY if LMC_KEY in self.fabric.meta else FILE_LMC_KEY, parse_lmc)

    @property
    def source(self) -> SourceRecord | None:
        """The file an imported design was read from (None: not imported)."""
        return self.parsed(SOURCE_KEY, parse_source)

    @property
    def node_descriptions(self) -> dict[str, tuple[str, str]]:
        """NodeDescriptions an import kept verbatim: node GUID text -> (device name, description)."""
        return self.parsed(DESCRIPTIONS_KEY, parse_descriptions)

    def set_node_descriptions(self, kept: Mapping[str, tuple[str, str]]) -> None:
        """Keep ``kept`` (node GUID text -> (device name, description)) as ``meta["node_descriptions"]``
        (empty: drop it), as :meth:`Fabric.set_meta` does."""
        self.fabric.set_meta(DESCRIPTIONS_KEY, descriptions_meta(dict(kept)) or None)


__all__ = ["DesignSettings", "FILE_LIDS_KEY", "GeneratorRecord", "ROCE_KEY", "SMS_KEY", "SM_NODE_KEY", "SmEntry",
           "SourceRecord", "SwitchGroup", "TWIN_KEY", "TwinRecord", "parse_file_lids", "parse_sm_node", "parse_sms",
           "parse_twin"]
