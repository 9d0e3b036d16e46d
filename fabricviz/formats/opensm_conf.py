"""Read the QoS options of an OpenSM options file (``opensm -F opensm.conf``).

The file is ``key value`` lines; ``#`` starts a comment anywhere on a line; the value is
the rest of the line with surrounding blanks and one pair of matching quotes removed; a
key given twice keeps its last value (all as OpenSM 3.3.23's ``osm_subn_parse_conf_file``).
Only the keys that decide the QoS tables are read (:data:`QOS_KEYS`, ``max_op_vls`` and
``use_optimized_slvl``); every other key is ignored, except that an unknown key starting
with ``qos`` is refused (a misspelt QoS option would silently do nothing in OpenSM).

Values are checked as OpenSM checks them (``osm_subnet.c``), but where OpenSM only warns
and goes on with a default or a half-read value, this reader refuses the file with
``file:line: message``:

* ``qos``: ``TRUE`` or ``FALSE`` (OpenSM takes anything but ``TRUE`` as FALSE).
* ``*_max_vls``: 1..15; ``*_high_limit``: 0..255; ``max_op_vls``: 1..5 (PortInfo code).
* ``*_vlarb_high`` / ``*_vlarb_low``: up to 64 ``VL:weight`` pairs, comma separated,
  VL 0..14, weight 0..255.
* ``*_sl2vl``: exactly 16 comma-separated VLs 0..15 (SL0 first).
* Numbers as C's ``strtol(..., 0)``: decimal, ``0x`` hex, and a leading ``0`` means octal.

The value ``(null)`` resets a string option to unset, as in OpenSM. A size guard
(:data:`MAX_BYTES`, :data:`MAX_LINE`) gives every file a verdict at once.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from typing import Any

from ..ib.qos import PORT_TYPES, QosOptions, QosSet
from .limits import FileFormatError, one_line, read_small_text, strip_bom

#: Biggest options file read (OpenSM's own full dump is ~30 KB).
MAX_BYTES = 4 * 1024 * 1024
#: OpenSM reads lines with fgets(line, 1023): a longer line would be split in two keys.
MAX_LINE = 1022
_FIELDS = ("max_vls", "high_limit", "vlarb_high", "vlarb_low", "sl2vl")
_SET_OF = {"": "default", **{f"{t}_": t for t in PORT_TYPES}}
#: Every QoS key OpenSM 3.3.23 knows -> (option set, field); "qos" itself is the switch.
QOS_KEYS: dict[str, tuple[str, str]] = {
    f"qos_{prefix}{fld}": (name, fld) for prefix, name in _SET_OF.items() for fld in _FIELDS}
#: Other keys starting with "qos" that OpenSM knows and that do not change these tables.
IGNORED_QOS_KEYS = frozenset({"qos_policy_file"})
_NUM = re.compile(r"\s*[+-]?(?:0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")


def _int(text: str) -> int | None:
    """C strtol(text, &end, 0) when it consumes the whole text (leading blanks allowed), else None."""
    if not _NUM.fullmatch(text):
        return None
    t = text.lstrip()
    sign = -1 if t.startswith("-") else 1
    t = t.lstrip("+-")
    if t[:2] in ("0x", "0X"):
        return sign * int(t[2:], 16)
    return sign * int(t, 8 if t.startswith("0") else 10)


def _number(text: str, what: str, lo: int, hi: int) -> int:
    v = _int(text)
    if v is None:
        raise ValueError(f"{what} must be a number, got {text!r}")
    if not lo <= v <= hi:
        raise ValueError(f"{what} {v} is out of range ({lo}-{hi})")
    return v


def _tokens(value: str) -> list[str]:
    toks = value.split(",")
    if any(not t.strip() for t in toks):
        raise ValueError(f"empty entry in {value!r}")
    return toks


def parse_vlarb(value: str, key: str) -> tuple[tuple[int, int], ...]:
    """``VL:weight,...`` -> ((vl, weight), ...), as OpenSM's subn_verify_vlarb checks it."""
    out = []
    for tok in _tokens(value):
        vl, sep, w = tok.partition(":")
        if not sep:
            raise ValueError(f"{key}: {tok.strip()!r} is not VL:weight")
        out.append((_number(vl, f"{key}: VL", 0, 14), _number(w, f"{key}: weight", 0, 255)))
    if len(out) > 64:
        raise ValueError(f"{key}: {len(out)} VL:weight pairs, at most 64 (two blocks of 32)")
    return tuple(out)


def parse_sl2vl(value: str, key: str) -> tuple[int, ...]:
    """16 comma-separated VLs (SL0..SL15), as OpenSM's subn_verify_sl2vl checks them."""
    vls = tuple(_number(t, f"{key}: VL", 0, 15) for t in _tokens(value))
    if len(vls) != 16:
        raise ValueError(f"{key}: {len(vls)} VLs listed, need 16 (one per SL)")
    return vls


def _clean(value: str) -> str:
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        v = v[1:-1]
    return v


def loads(text: str, where: str = "opensm.conf") -> QosOptions:
    """The QoS options in ``text``; FileFormatError ``where:line: why`` on the first problem."""
    if len(text) > MAX_BYTES:
        raise FileFormatError(f"{where}: {len(text):,} characters, more than an options file "
                              f"can be ({MAX_BYTES:,})")
    text = strip_bom(text)
    sets: dict[str, QosSet] = {name: QosSet() for name in ("default", *PORT_TYPES)}
    qos, max_op_vls, optimized = False, QosOptions.max_op_vls, False
    for n, raw in enumerate(text.split("\n"), 1):
        if len(raw.rstrip("\r")) > MAX_LINE:
            raise FileFormatError(f"{where}:{n}: line longer than {MAX_LINE} characters "
                                  "(OpenSM would read it as two lines)")
        line = raw.split("#", 1)[0]
        parts = line.strip(" \t\r\n").split(None, 1)
        if not parts:
            continue
        key = parts[0]
        value = _clean(parts[1]) if len(parts) > 1 else ""
        try:
            if not value and (key in QOS_KEYS or key in ("qos", "max_op_vls")):
                raise ValueError(f"{key}: no value")
            if key == "qos":
                if value not in ("TRUE", "FALSE"):
                    raise ValueError(f"qos must be TRUE or FALSE, got {value!r} (OpenSM reads anything "
                                     "but TRUE as FALSE)")
                qos = value == "TRUE"
            elif key == "max_op_vls":
                max_op_vls = _number(value, "max_op_vls", 1, 5)
            elif key == "use_optimized_slvl":
                optimized = value == "TRUE"
            elif key in QOS_KEYS:
                name, fld = QOS_KEYS[key]
                parsed: Any
                if value == "(null)" and fld in ("vlarb_high", "vlarb_low", "sl2vl"):
                    parsed = None
                elif fld == "max_vls":
                    parsed = _number(value, key, 1, 15)
                elif fld == "high_limit":
                    parsed = _number(value, key, 0, 255)
                elif fld == "sl2vl":
                    parsed = parse_sl2vl(value, key)
                else:
                    parsed = parse_vlarb(value, key)
                sets[name] = replace(sets[name], **{fld: parsed})
            elif key.startswith("qos") and key not in IGNORED_QOS_KEYS:
                raise ValueError(f"unknown QoS option {key!r}")
        except ValueError as e:
            raise FileFormatError(one_line(f"{where}:{n}: {e}")) from None
    return QosOptions(qos=qos, default=sets["default"], ca=sets["ca"], sw0=sets["sw0"],
                      swe=sets["swe"], rtr=sets["rtr"], max_op_vls=max_op_vls,
                      use_optimized_slvl=optimized)


def load(path: str | os.PathLike[str]) -> QosOptions:
    """Read an options file from disk (size checked before reading)."""
    return loads(read_small_text(path, MAX_BYTES, "an options file"), os.fspath(path))
