"""Realistic InfiniBand GUIDs.

NVIDIA/Mellanox node GUIDs are EUI-64s built from an OUI: ``OUI(24) 03:00
serial(24)``, e.g. ``0xb83fd20300a1b2c0``. A CA's port GUIDs are the node GUID
plus the port number, as ConnectX adapters report them; switch external ports
have no GUID of their own (port 0 carries the node GUID).
"""

from __future__ import annotations

#: Mellanox Technologies OUI used by ConnectX and Quantum devices.
MELLANOX_OUI = 0xB83FD2
#: Room left between consecutive generated node GUIDs for port GUIDs.
GUID_STEP = 16


def guid_base(oui: int = MELLANOX_OUI) -> int:
    return (oui << 40) | (0x0300 << 24)


def format_guid(guid: int) -> str:
    """``0xb83fd20300000010`` (16 hex digits, as ibnetdiscover prints them)."""
    return f"0x{guid:016x}"


def parse_guid(text: str | int) -> int:
    """Parse ``0x…``, ``…`` hex, or ``S-…``/``H-…`` ibnetdiscover ids into an int."""
    if isinstance(text, int):
        value = text
    else:
        s = str(text).strip()
        if len(s) > 2 and s[1] == "-" and s[0] in "SHRshr":
            s = s[2:]
        value = int(s, 16)
    if not 0 < value < 1 << 64:
        raise ValueError(f"GUID {text!r} is not a non-zero 64-bit value")
    return value
