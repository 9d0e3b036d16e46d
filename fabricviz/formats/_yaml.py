"""YAML for containerlab files: read with PyYAML's event parser (libyaml when built in), or,
without PyYAML, with the small subset reader below.

Either way the tree is built here, iteratively, so that every file gets the same verdict:
plain scalars typed as YAML 1.2 core (null/bool/int/float; ``yes``, ``12:30`` and dates stay
text, where PyYAML's own YAML 1.1 loader would make them a bool, 750 and a date), mapping keys as text, collections nested at most MAX_DEPTH deep, and
anchors, aliases (no "billion laughs"), tags, keys given twice and multi-document files
refused with the line number. The subset reader takes block mappings and sequences,
``- key: value`` items, one-line flow ``[a, "b"]`` and ``{k: v}``, quoted and plain scalars,
``|``/``>`` block scalars and comments. :func:`dump` writes that subset with every string
double-quoted (JSON string syntax, which is valid YAML).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..model import FabricError
from .limits import MAX_DEPTH, one_line   # MAX_DEPTH: how deep collections may nest

_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-/]*$")
_INT = re.compile(r"^[-+]?(0|[1-9][0-9]*)$")
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_FLOW_PLAIN = re.compile(r"[^,\]\}]*")
#: Longest run of digits read as an integer (Python refuses int() of more than 4300).
_MAX_DIGITS = 400


class YamlError(FabricError):
    pass


# ---------------------------------------------------------------------------- writing
def dump(data: Any) -> str:
    out: list[str] = []
    _emit(data, 0, out)
    return "\n".join(out) + "\n"


def _key(k: str) -> str:
    return k if _PLAIN_KEY.match(k) and _scalar_type(k) is str else json.dumps(k, ensure_ascii=False)


def _scalar(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return json.dumps(str(v), ensure_ascii=False)


def _flow(v: Any) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_flow(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)}: {_flow(x)}" for k, x in v.items()) + "}"
    return _scalar(v)


def _emit(v: Any, ind: int, out: list[str]) -> None:
    pad = " " * ind
    if isinstance(v, dict):
        for k, x in v.items():
            if isinstance(x, (dict, list)) and x and not getattr(x, "flow", False):
                out.append(f"{pad}{_key(k)}:")
                _emit(x, ind + 2, out)
            else:
                out.append(f"{pad}{_key(k)}: {_flow(x)}")
    elif isinstance(v, list):
        for x in v:
            if isinstance(x, dict) and x:
                sub: list[str] = []
                _emit(x, ind + 2, sub)
                out.append(f"{pad}- {sub[0].lstrip()}")
                out.extend(sub[1:])
            elif isinstance(x, list) and x:
                out.append(f"{pad}- {_flow(x)}")
            else:
                out.append(f"{pad}- {_flow(x)}")
    else:
        out.append(pad + _scalar(v))


class Flow(list):
    """A list :func:`dump` writes in flow style (``[a, b]``)."""

    flow = True


class FlowMap(dict):
    """A mapping :func:`dump` writes in flow style (``{k: v}``)."""

    flow = True


# ---------------------------------------------------------------------------- reading
def _scalar_type(text: str) -> type:
    return type(_plain(text))


def _plain(t: str) -> Any:
    if t in ("", "~", "null", "Null", "NULL"):
        return None
    if t in ("true", "True", "TRUE"):
        return True
    if t in ("false", "False", "FALSE"):
        return False
    if _INT.match(t) and len(t) <= _MAX_DIGITS:
        return int(t)
    if _FLOAT.match(t) and any(c.isdigit() for c in t):
        return float(t)
    return t


class _Reader:
    def __init__(self, text: str, where: str) -> None:
        self.where = where
        self.lines: list[tuple[int, int, str]] = []   # (line number, indent, content without comment)
        self.raw = text.splitlines()
        for n, raw in enumerate(self.raw, 1):
            if "\t" in raw[:len(raw) - len(raw.lstrip())]:
                raise self.err(n, "tab in indentation")
            body = self._strip_comment(raw, n).rstrip()
            if not body.strip():
                continue
            s = body.lstrip()
            if s in ("---", "...") and not self.lines:
                continue
            if s.startswith(("---", "%")):
                raise self.err(n, "multi-document files and directives are not supported")
            self.lines.append((n, len(body) - len(s), s))
        self.i = 0
        self.depth = 0

    def err(self, n: int, msg: str) -> YamlError:
        return YamlError(f"{self.where}:{n}: {msg}")

    @staticmethod
    def _strip_comment(raw: str, n: int) -> str:
        quote = None
        for i, c in enumerate(raw):
            if quote:
                if c == quote:
                    quote = None
                elif c == "\\" and quote == '"':
                    continue
            elif c in "\"'" and (i == 0 or raw[i - 1] in " [{,:-"):
                quote = c
            elif c == "#" and (i == 0 or raw[i - 1] in " \t"):
                return raw[:i]
        return raw

    def parse(self) -> Any:
        if not self.lines:
            return None
        v = self.block(self.lines[0][1])
        if self.i < len(self.lines):
            n, ind, s = self.lines[self.i]
            raise self.err(n, f"unexpected indentation or content: {s[:40]}")
        return v

    def block(self, ind: int) -> Any:
        n, i2, s = self.lines[self.i]
        if self.depth >= MAX_DEPTH:
            raise self.err(n, f"collections nested deeper than {MAX_DEPTH}")
        self.depth += 1
        try:
            if s == "-" or s.startswith("- "):
                return self.seq(ind)
            if self._split_key(s, n) is not None:
                return self.mapping(ind)
            self.i += 1
            return self.value(s, n, ind)
        finally:
            self.depth -= 1

    def seq(self, ind: int) -> list:
        out = []
        while self.i < len(self.lines):
            n, i2, s = self.lines[self.i]
            if i2 != ind or not (s == "-" or s.startswith("- ")):
                break
            rest = s[1:].lstrip()
            if not rest:
                self.i += 1
                out.append(self.child(ind, n, allow_same=False))
                continue
            # "- key: value" starts a mapping at the column of "key"
            sub_ind = ind + (len(s) - len(rest))
            if rest.startswith(("- ",)) or self._split_key(rest, n) is not None:
                self.lines[self.i] = (n, sub_ind, rest)
                out.append(self.block(sub_ind))
            else:
                self.i += 1
                out.append(self.value(rest, n, ind))
        return out

    def mapping(self, ind: int) -> dict:
        out: dict = {}
        while self.i < len(self.lines):
            n, i2, s = self.lines[self.i]
            if i2 != ind:
                if i2 > ind:
                    raise self.err(n, "unexpected indentation")
                break
            kv = self._split_key(s, n)
            if kv is None:
                raise self.err(n, f"expected \"key: value\", got: {s[:40]}")
            k, rest = kv
            if k in out:
                raise self.err(n, f"key {k!r} given twice")
            self.i += 1
            if rest == "":
                out[k] = self.child(ind, n, allow_same=True)
            else:
                out[k] = self.value(rest, n, ind)
        return out

    def child(self, ind: int, n: int, allow_same: bool) -> Any:
        if self.i >= len(self.lines):
            return None
        n2, i2, s = self.lines[self.i]
        if i2 > ind or (allow_same and i2 == ind and (s == "-" or s.startswith("- "))):
            return self.block(i2)
        return None

    def _split_key(self, s: str, n: int) -> tuple[str, str] | None:
        if s[0] in "\"'":
            k, end = self._quoted(s, 0, n)
            rest = s[end:].lstrip()
            if rest.startswith(":") and (len(rest) == 1 or rest[1] == " "):
                return k, rest[1:].strip()
            return None
        if s[0] in "[{":
            return None
        m = re.match(r"^([^#]*?):(?:\s+(.*))?$", s)
        if m is None or m.group(1) == "" or "{" in m.group(1) or "[" in m.group(1):
            return None
        return m.group(1).rstrip(), (m.group(2) or "").strip()

    def value(self, s: str, n: int, ind: int) -> Any:
        if s[0] in "&*!":
            raise self.err(n, "anchors, aliases and tags are not supported")
        if s[0] in "|>":
            return self.block_scalar(s, n, ind)
        if s[0] in "[{\"'":
            v, end = self.flow(s, 0, n)
            if s[end:].strip():
                raise self.err(n, f"unexpected text after the value: {s[end:].strip()[:30]}")
            return v
        return _plain(s)

    def block_scalar(self, s: str, n: int, ind: int) -> str:
        parts = []
        base = None
        while self.i < len(self.lines) and self.lines[self.i][1] > ind:
            n2, i2, _ = self.lines[self.i]
            base = i2 if base is None else min(base, i2)
            parts.append(n2)
            self.i += 1
        if not parts:
            return ""
        text = [self.raw[k - 1][base:].rstrip() for k in range(parts[0], parts[-1] + 1)]
        body = "\n".join(text) if s[0] == "|" else re.sub(r"(?<!\n)\n(?!\n)", " ", "\n".join(text))
        return body + ("" if "-" in s[1:] else "\n")

    def _quoted(self, s: str, i: int, n: int) -> tuple[str, int]:
        q = s[i]
        j = i + 1
        while j < len(s):
            if q == '"' and s[j] == "\\":
                j += 2
                continue
            if s[j] == q:
                if q == "'" and j + 1 < len(s) and s[j + 1] == "'":
                    j += 2
                    continue
                break
            j += 1
        if j >= len(s):
            raise self.err(n, "unterminated quoted string")
        body = s[i + 1:j]
        if q == "'":
            return body.replace("''", "'"), j + 1
        try:
            return json.loads('"' + body + '"'), j + 1
        except json.JSONDecodeError:
            raise self.err(n, f"bad escape in a quoted string: {body[:30]}") from None

    def flow(self, s: str, i: int, n: int, key: bool = False, depth: int = 0) -> tuple[Any, int]:
        if self.depth + depth >= MAX_DEPTH:
            raise self.err(n, f"collections nested deeper than {MAX_DEPTH}")
        while i < len(s) and s[i] == " ":
            i += 1
        if i >= len(s):
            raise self.err(n, "unterminated flow collection (multi-line flow is not supported)")
        c = s[i]
        if c in "\"'":
            return self._quoted(s, i, n)
        if c in "[{":
            close = "]" if c == "[" else "}"
            out: Any = [] if c == "[" else {}
            i += 1
            while True:
                while i < len(s) and s[i] == " ":
                    i += 1
                if i < len(s) and s[i] == close:
                    return out, i + 1
                if c == "{":
                    k, i = self.flow(s, i, n, key=True, depth=depth + 1)
                    while i < len(s) and s[i] == " ":
                        i += 1
                    if i >= len(s) or s[i] != ":":
                        raise self.err(n, "expected ':' in a flow mapping")
                    v, i = self.flow(s, i + 1, n, depth=depth + 1)
                    try:
                        out[k] = v
                    except TypeError:
                        raise self.err(n, "a flow mapping key must be a scalar") from None
                else:
                    v, i = self.flow(s, i, n, depth=depth + 1)
                    out.append(v)
                while i < len(s) and s[i] == " ":
                    i += 1
                if i < len(s) and s[i] == ",":
                    i += 1
                    continue
                if i < len(s) and s[i] == close:
                    return out, i + 1
                raise self.err(n, f"expected ',' or '{close}' in a flow collection")
        tok = _FLOW_PLAIN.match(s, i).group(0)
        if key:   # a plain key inside a flow mapping ends at ":"
            tok = tok.split(":", 1)[0]
        return _plain(tok.strip()), i + len(tok)


def load(text: str, where: str = "<yaml>") -> Any:
    """Parse ``text``; YamlError ``where:line: why`` on anything refused (see the module doc)."""
    try:
        import yaml
    except ImportError:
        return _Reader(text, where).parse()
    return _from_events(yaml, text, where)


_NOKEY = object()


def _from_events(yaml: Any, text: str, where: str) -> Any:
    """The document of ``text`` built from PyYAML's parse events (no recursion, no aliases)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    stack: list[list] = []          # [container, pending key or _NOKEY]
    root: Any = None
    docs = 0

    def err(line: int, msg: str) -> YamlError:
        return YamlError(f"{where}:{line}: {msg}")

    try:
        while loader.check_event():
            ev = loader.get_event()
            line = ev.start_mark.line + 1
            if isinstance(ev, yaml.DocumentStartEvent):
                docs += 1
                if docs > 1:
                    raise err(line, "multi-document files and directives are not supported")
                continue
            if isinstance(ev, (yaml.StreamStartEvent, yaml.StreamEndEvent, yaml.DocumentEndEvent)):
                continue
            if isinstance(ev, yaml.AliasEvent) or getattr(ev, "anchor", None) is not None \
                    or getattr(ev, "tag", None) not in (None, "!"):
                raise err(line, "anchors, aliases and tags are not supported")
            if isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                if len(stack) >= MAX_DEPTH:
                    raise err(line, f"collections nested deeper than {MAX_DEPTH}")
                stack.append([{} if isinstance(ev, yaml.MappingStartEvent) else [], _NOKEY])
                continue
            if isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                value, is_scalar = stack.pop()[0], False
            else:   # a scalar: plain ones typed as YAML 1.2 core, quoted and block ones are text
                value, is_scalar = (_plain(ev.value) if not ev.style else ev.value), True
            if not stack:
                root = value
                continue
            top = stack[-1]
            if isinstance(top[0], list):
                top[0].append(value)
            elif top[1] is _NOKEY:
                if not is_scalar:
                    raise err(line, "a mapping key must be a scalar")
                key = ev.value                     # keys stay text, as the subset reader keeps them
                if key in top[0]:
                    raise err(line, f"key {key!r} given twice")
                top[1] = key
            else:
                top[0][top[1]] = value
                top[1] = _NOKEY
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark is not None else 1
        problem = str(e.problem or e.context or "not valid YAML")
        if "nesting depth" in problem:     # libyaml's own limit, met while it scans ahead
            problem = f"collections nested deeper than {MAX_DEPTH}"
        raise err(line, one_line(problem)) from None
    except yaml.YAMLError as e:        # the reader: a character YAML does not allow
        pos = getattr(e, "position", 0) or 0
        raise err(text.count("\n", 0, pos) + 1, one_line(str(getattr(e, "reason", None) or e))[:120]) from None
    return root
