"""OpenSM's partitions.conf: read it the way OpenSM 3.3.23 does, write an equivalent file.

Grammar (opensm/osm_prtn_config.c, doc/partition-config.txt), as OpenSM reads it:

* ``#`` starts a comment to the end of the line. White space is space, tab and
  newline only (OpenSM does not skip ``\\r``: a CRLF file fails there, so it is
  refused here with that reason).
* A statement is ``Header : members ;``. It may run over several lines: it
  ends at ``;`` (or at the end of the file), and several may share a line. The
  header ``[Name][=PKey][,flag…]`` and its ``:`` must be on the statement's
  first line. A ``;`` that is the first thing on a line or follows another
  ``;`` is refused: OpenSM 3.3.23's parser then steps one character too far
  and reads the rest of the line as members (or a header), or reads past the
  end of the line.
* PKey is read like C ``strtoul(s, 0)`` (``0x`` hex, leading-``0`` octal,
  decimal). OpenSM clears the full bit: ``0x8001`` is partition ``0x0001``.
  Without a PKey (or with 0 / 0x8000) a partition whose name is already defined
  is that one, else OpenSM numbers it from 1 up, skipping P_Keys in use. A
  header that is only a number is the PKey. More than 16 bits is refused here
  (OpenSM would truncate it silently).
* Header flags: ``ipoib``, ``defmember=full|limited|both``, ``indx0`` and the
  multicast group flags (``mtu``, ``rate``, ``scope``, ``Q_Key``, ``TClass``,
  ``sl``, ``FlowLabel``), each matched as OpenSM does, by prefix (``def=f`` is
  ``defmember=full``); unknown flags are ignored, as OpenSM does.
* Members ``target[=full|limited|both]``, comma separated. ``target`` is a port
  GUID (``strtoull(s, 0)``, not 0) or, by prefix, ``ALL``, ``ALL_CAS``,
  ``ALL_SWITCHES``, ``ALL_ROUTERS``, ``SELF``; a prefix of ``NONE`` (or nothing)
  adds no one. A membership word that is none of the three (by prefix) is
  ``limited``; no ``=`` takes the statement's ``defmember`` (default limited).
  ``mgid=GID[,flags]`` declares a multicast group and takes the rest of its line.

Every refusal is one :class:`~fabricviz.formats.limits.FileFormatError` naming
``file:line``, and nothing of the file is used. Guards: at most
:data:`MAX_BYTES` bytes, :data:`MAX_LINES` lines, lines of at most
:data:`MAX_LINE` characters (OpenSM's ``fgets`` buffer would split a longer one).
"""

from __future__ import annotations

import os

from ..ib.partitions import DEFAULT_PKEY, KEYWORDS, PKEY_MASK, Member, Partition, PartitionConfig, osm_pkey_order
from ..model.names import escape_name, name_problem
from .limits import FileFormatError, read_small_text

MAX_BYTES = 16 << 20
MAX_LINES = 1_000_000
MAX_LINE = 4094            # fgets(line, sizeof(line) - 1) with char line[4096]
_WS = " \t\n"
_GROUP_FLAGS = ("mtu", "rate", "scope", "Q_Key", "TClass", "sl", "FlowLabel")
_HEX = frozenset("0123456789abcdefABCDEF")
_OCT = frozenset("01234567")
# Members are frozen: one object per keyword and membership serves every statement that names it
_KEYWORD_MEMBERS = {(k, m): Member(k, m) for k in KEYWORDS for m in ("full", "limited", "both")}
# every non-empty prefix of a keyword -> the first keyword it is a prefix of (OpenSM's strncmp order)
_KEYWORD_OF: dict[str, str] = {}
for _k in KEYWORDS:
    for _i in range(1, len(_k) + 1):
        _KEYWORD_OF.setdefault(_k[:_i], _k)


def c_strtoul(s: str) -> int | None:
    """C ``strtoul(s, &end, 0)`` with ``*end == 0`` required; None when not a number.
    A minus sign is refused (C would wrap it around)."""
    t = s.lstrip(" \t\n\v\f\r")
    if t.startswith("+"):
        t = t[1:]
    if not t or t.startswith("-"):
        return None
    try:
        if t[:2].lower() == "0x":
            return int(t[2:], 16) if t[2:] and _HEX.issuperset(t[2:]) else None
        if t[0] == "0":
            return int(t, 8) if _OCT.issuperset(t) else None
        return int(t) if t.isdigit() and t.isascii() else None
    except ValueError:
        return None


def _prefix_of(word: str, full: str) -> bool:
    """OpenSM's ``!strncmp(word, full, strlen(word))``: word is a prefix of full."""
    return full.startswith(word)


def _token(text: str) -> tuple[str, str | None]:
    """``name[=value]`` with OpenSM's white space stripped around both."""
    name, eq, val = text.partition("=")
    return name.strip(_WS), (val.strip(_WS) if eq else None)


def _membership(flag: str | None, default: str) -> str:
    if flag is None:
        return default
    if _prefix_of(flag, "full"):
        return "full"
    if _prefix_of(flag, "both"):
        return "both"
    return "limited"          # "limited" or anything unrecognized (OpenSM warns, assumes limited)


class _Statement:
    def __init__(self, line: int, name: str, pkey: int, ipoib: bool, defmember: str, indx0: bool,
                 flags: list[str]) -> None:
        self.line, self.name, self.pkey, self.ipoib = line, name, pkey, ipoib
        self.defmember, self.indx0, self.flags = defmember, indx0, flags
        self.members: list[Member] = []
        self.mgroups: list[str] = []

    def done(self) -> Partition:
        return Partition(self.name, self.pkey, self.ipoib, self.defmember, tuple(self.members),
                         self.indx0, tuple(self.flags), tuple(self.mgroups), self.line)


def loads(text: str, where: str = "<partitions.conf>") -> PartitionConfig:
    """Parse a partitions.conf; raise FileFormatError ``where:line: why`` on the first error."""
    if len(text) > MAX_BYTES:
        raise FileFormatError(f"{where}: {len(text):,} characters, over the {MAX_BYTES >> 20} MiB a "
                              "partitions.conf may have here")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if len(lines) > MAX_LINES:
        raise FileFormatError(f"{where}: {len(lines):,} lines, over the {MAX_LINES:,} a partitions.conf "
                              "may have here")
    out: list[Partition] = []
    names = _Names()
    used = {DEFAULT_PKEY}
    counter = 0
    cur: _Statement | None = None
    for lineno, raw in enumerate(lines, 1):
        if len(raw) > MAX_LINE:
            raise FileFormatError(f"{where}:{lineno}: line of {len(raw):,} characters; OpenSM reads "
                                  f"{MAX_LINE} per line and would split it")
        if "\0" in raw:
            raise FileFormatError(f"{where}:{lineno}: NUL character")
        line = raw.split("#", 1)[0]
        if "\r" in line:
            raise FileFormatError(f"{where}:{lineno}: carriage return (CRLF line end?): OpenSM does not "
                                  "take \\r as white space and rejects the file; use LF line ends")
        rest = line
        while True:
            rest = rest.lstrip(_WS)
            if not rest:
                break
            if rest.startswith(";"):
                raise FileFormatError(f"{where}:{lineno}: ';' with nothing before it: OpenSM 3.3 then "
                                      "misreads the text after it (or past the line's end); put the ';' "
                                      "right after the last member")
            piece, semi, rest = rest.partition(";")
            if cur is None:
                head, colon, body = piece.partition(":")
                if not colon:
                    raise FileFormatError(f"{where}:{lineno}: no partition definition found (expected "
                                          "'Name=PKey[,flags] : members ;', the ':' on this line)")
                cur, counter = _header(head, lineno, where, names, used, counter)
                piece = body
            _members(piece, cur, lineno, where)
            if semi:
                out.append(cur.done())
                cur = None
            else:
                break
    if cur is not None:       # OpenSM takes a last statement without ';' as it is
        out.append(cur.done())
    return PartitionConfig(out, where)


class _Names:
    """P_Key -> its partition's (first) name, and back (a name lookup per header stays O(1))."""

    def __init__(self) -> None:
        self.of: dict[int, str] = {DEFAULT_PKEY: "Default"}
        self.pkeys: dict[str, list[int]] = {"Default": [DEFAULT_PKEY]}

    def setdefault(self, pkey: int, name: str) -> str:
        if pkey not in self.of:
            self.of[pkey] = name
            self.pkeys.setdefault(name, []).append(pkey)
        return self.of[pkey]


def _header(head: str, lineno: int, where: str, names: _Names, used: set[int],
            counter: int) -> tuple[_Statement, int]:
    first, *flag_tokens = head.split(",")
    name_s, ident = _token(first)
    name: str | None = name_s
    if ident is None and name_s[:1].isdigit():
        ident, name = name_s, None
    pkey = 0
    if ident is not None:
        value = c_strtoul(ident)
        if value is None:
            raise FileFormatError(f"{where}:{lineno}: bad partition definition: P_Key {ident!r} is not a number")
        if value > 0xFFFF:
            raise FileFormatError(f"{where}:{lineno}: P_Key {ident} does not fit 16 bits "
                                  "(a partition's P_Key is 0x0001-0x7fff)")
        pkey = value & PKEY_MASK              # OpenSM drops the full bit: 0x8001 is 0x0001
    ipoib, defmember, indx0 = False, "limited", False
    flags: list[str] = []
    for tok in flag_tokens:
        flag, val = _token(tok)
        if any(_prefix_of(flag, g) for g in _GROUP_FLAGS):
            if flag:
                flags.append(flag if val is None else f"{flag}={val}")
        elif _prefix_of(flag, "ipoib"):
            ipoib = True
        elif _prefix_of(flag, "defmember"):
            if val is not None and any(_prefix_of(val, w) for w in ("limited", "both", "full")):
                defmember = _membership(val, "limited")
        elif flag == "indx0":
            indx0 = True
        else:
            flags.append(flag if val is None else f"{flag}={val}")   # OpenSM ignores it
    if not pkey:
        # OpenSM looks the name up in its partition map: the first match in that map's order
        same = sorted(names.pkeys.get(name, ()) if name else (), key=osm_pkey_order)
        if same:
            pkey = same[0]
        else:
            while counter < DEFAULT_PKEY - 1:
                counter += 1
                if counter not in used:
                    pkey = counter
                    break
            if not pkey:
                raise FileFormatError(f"{where}:{lineno}: bad partition definition: no P_Key left to "
                                      "number this partition")
    if not name:
        name = f"{pkey:04x}"
    elif (why := name_problem(name)) is not None:       # the one name validator (model.names)
        raise FileFormatError(f"{where}:{lineno}: partition name '{escape_name(name)}': {why}")
    stored = names.setdefault(pkey, name)      # a repeated P_Key keeps its first name
    used.add(pkey)
    return _Statement(lineno, stored, pkey, ipoib, defmember, indx0, flags), counter


def _members(piece: str, st: _Statement, lineno: int, where: str) -> None:
    toks = piece.split(",")
    for i, tok in enumerate(toks):
        name, eq, value = tok.partition("=")          # _token(tok), inlined: once per member
        name = name.strip(_WS)
        flag = value.strip(_WS) if eq else None
        if name == "mgid":
            rest = ",".join(t.strip(_WS) for t in toks[i + 1:])
            st.mgroups.append(f"mgid={flag or ''}" + (f",{rest}" if rest else ""))
            return                               # an mgid takes the rest of the line
        if not name or "NONE".startswith(name):          # _prefix_of(name, "NONE")
            continue
        membership = _membership(flag, st.defmember)
        keyword = _KEYWORD_OF.get(name)
        if keyword is not None:
            st.members.append(_KEYWORD_MEMBERS[keyword, membership])
        else:
            guid = c_strtoul(name)
            if not guid:
                raise FileFormatError(f"{where}:{lineno}: bad PortGUID {name!r} (a port GUID, ALL, "
                                      "ALL_CAS, ALL_SWITCHES, ALL_ROUTERS or SELF)")
            if guid >> 64:
                raise FileFormatError(f"{where}:{lineno}: port GUID {name} does not fit 64 bits")
            st.members.append(Member(guid, membership))


def load(path: str | os.PathLike[str]) -> PartitionConfig:
    """Read a partitions.conf file (size-checked before it is read)."""
    return loads(read_small_text(path, MAX_BYTES, "a partitions.conf"), os.fspath(path))


# ---------------------------------------------------------------------------- writing

def _target(m: Member) -> str:
    return m.target if isinstance(m.target, str) else f"0x{m.target:016x}"


def dumps(conf: PartitionConfig) -> str:
    """An equivalent partitions.conf: every P_Key and membership explicit, one statement
    per partition statement of ``conf`` (mgid groups on their own lines)."""
    out = ["# partitions.conf written by fabricviz (OpenSM 3.3 syntax)"]
    for s in conf.statements:
        head = [f"{s.name}=0x{s.pkey:04x}"]
        if s.ipoib:
            head.append("ipoib")
        head += list(s.flags)
        if s.indx0:
            head.append("indx0")
        if s.defmember != "limited":
            head.append(f"defmember={s.defmember}")
        members = ", ".join(f"{_target(m)}={m.membership}" for m in s.members) or "NONE"
        if s.mgroups:
            out.append(",".join(head) + " :")
            out += [f"\t{g}" for g in s.mgroups]
            out.append(f"\t{members} ;")
        else:
            out.append(f"{','.join(head)} : {members} ;")
    return "\n".join(out) + "\n"


def dump(conf: PartitionConfig, path: str | os.PathLike[str]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(dumps(conf))
