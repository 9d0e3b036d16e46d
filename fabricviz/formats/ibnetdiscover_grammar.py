"""The grammar ibnetdiscover and ibsim topology files share: line patterns, InfiniBand limits,
the plain records a file is parsed into, and the number readers (a leaf of the importers).

:mod:`.ibnetdiscover` parses and checks a file with these, :mod:`._ibbuild` builds a Fabric from
the records, :mod:`.ibsim_guids` numbers GUIDs the way ibsim does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import LinkRate
from ..model.limits import MAX_PORTS as _MODEL_MAX_PORTS

#: Part ids/notes of the end ports that are not compute hosts (SHARP_PART: see fabricviz.ib.sharp).
SHARP_DESC = "Mellanox Technologies Aggregation Node"
SHARP_NOTES = "SHARP aggregation node inside a Quantum switch; not a compute host"

HDR = re.compile(r'^(Switch|Ca|Hca|Rt)\s*(\d+)\s+"([^"]*)"(.*)$')
HDR_LOOSE = re.compile(r"^(Switch|Ca|Hca|Rt)\b")
PORT = re.compile(r'^\[(\d+)\](?:\[ext \d+\])?(?:\(([0-9a-fA-Fx]+)\))?\s*"([^"]*)"'
                   r'(?:\[(\d+)\])?(?:\[ext \d+\])?\s*(?:\(([0-9a-fA-Fx]+)\))?(.*)$')
ASSIGN = re.compile(r"^(vendid|devid|sysimgguid|switchguid|hcaguids|caguid|rtguid|width|speed|"
                     r"extspeed|module|include|pdebug|do)\b\s*([=+])?\s*(.*)$")
GUID_KEYS = {"switchguid": "Switch", "caguid": "Ca", "hcaguids": "Ca", "rtguid": "Rt"}
UNSUPPORTED = ("width", "speed", "extspeed", "module", "include", "do")
RATE = re.compile(r"\blid\s+(\d+)(?:\s+(\d+)x([A-Za-z0-9?]+))?")
LOCAL_LID = re.compile(r"^\s*lid\s+(\d+)\s+lmc\s+(\d+)")
SW_LID = re.compile(r"\blid\s+(\d+)(?:\s+lmc\s+(\d+))?")
ID_GUID = re.compile(r"^[SHR]-([0-9a-fA-F]{1,16})$")

#: InfiniBand limits, checked on every number before anything is sized by it: NumPorts is a byte
#: (a switch has ports 1-254 plus port 0; 255 means "no port"), unicast LIDs are 1-0xBFFF (0 = not
#: assigned yet, as ibnetdiscover prints it), LMC is 0-7, GUIDs are 64 bits.
MAX_PORTS = _MODEL_MAX_PORTS["ib"]
MAX_LID = 0xBFFF
MAX_LMC = 7
MAX_GUID = (1 << 64) - 1
MAX_WIDTH = 12


@dataclass(slots=True)
class Link:
    """One ``[port] "remote"[port]`` line."""

    line: int
    port: int
    rid: str
    rport: int
    port_guid: int | None = None     # (…) after the local port (CA lines)
    rguid: int | None = None         # (…) after the remote port (remote is a CA)
    lid: int | None = None           # local LID (CA lines: "# lid N lmc M")
    lmc: int | None = None
    rlid: int | None = None          # remote LID (switch: its port-0 LID)
    rate: LinkRate | None = None
    width_opt: int | None = None     # ibsim "w=N"
    rdesc: str | None = None         # the remote's NodeDescription as the comment quotes it


@dataclass(slots=True)
class Node:
    """One ``Switch|Ca|Hca|Rt`` block."""

    line: int
    type: str                        # Switch | Ca | Rt
    nports: int
    id: str
    desc: str
    lid: int | None = None
    lmc: int | None = None
    raw_desc: str = ""               # the NodeDescription exactly as the file has it (spaces kept)
    guid_line: int | None = None     # switchguid=/caguid= given just before (ibnetdiscover)
    links: dict[int, Link] = field(default_factory=dict)
    guid: int = 0
    port_guids: dict[int, int] = field(default_factory=dict)
    bad: bool = False                # header refused (port count): its links are not checked
    inferred: bool = False           # no block of its own: built from the link lines naming it


@dataclass
class Topology:
    """Everything a file says, before it becomes a Fabric."""

    nodes: list[Node]
    guid_events: list[tuple[int, str, int, bool]]  # (line, node type, value, relative) in order
    uses_hca: bool = False


def hex_guid(text: str) -> int:
    """A GUID in hex (``0x`` optional); ValueError when it is not hex or over 64 bits."""
    digits = text[2:] if text[:2] in ("0x", "0X") else text
    if not digits or len(digits.lstrip("0")) > 16:
        raise ValueError(text)
    return int(digits, 16)


def show(text: str) -> str:
    """A number quoted in a message: at most 24 characters (a mutant may have thousands)."""
    return text if len(text) <= 24 else text[:23] + "…"


def dec(text: str, hi: int) -> int | None:
    """``int(text)`` (decimal digits) when it is at most ``hi``, else None; the length is checked
    first, so a 100,000-digit number costs nothing."""
    if len(text) > 9:
        text = text.lstrip("0") or "0"
        if len(text) > len(str(hi)):
            return None
    v = int(text)
    return v if v <= hi else None


def guid_value(text: str) -> int | None:
    """A GUID as ibsim's ``strtoull(s, 0)`` reads it (0x hex, leading-0 octal, decimal); None if
    it is not a number or needs more than 64 bits."""
    v: int | None
    try:
        if text[:2] in ("0x", "0X"):
            return hex_guid(text)
        if len(text) > 1 and text.startswith("0"):
            v = int(text, 8) if len(text.lstrip("0")) <= 22 else MAX_GUID + 1
        else:
            v = dec(text, MAX_GUID)
    except ValueError:
        return None
    return v if v is not None and v <= MAX_GUID else None


def lines_of(text: str):
    """The lines of ``text`` split at "\\n" only (line numbers as editors count them), one at a time:
    a big file is never copied into a list of lines."""
    pos, end_all = 0, len(text)
    while pos <= end_all:
        end = text.find("\n", pos)
        if end < 0:
            end = end_all
        yield text[pos:end]
        pos = end + 1
