"""YAML for containerlab files: read with PyYAML's event parser (libyaml when built in).

The tree is built here from the events, iteratively (no recursion however deep the file):
plain scalars typed as YAML 1.2 core (null/bool/int/float; ``yes``, ``12:30`` and dates stay
text, where PyYAML's own YAML 1.1 loader would make them a bool, 750 and a date), mapping keys
as text, collections nested at most MAX_DEPTH deep, and
anchors, aliases (no "billion laughs"), tags, keys given twice and multi-document files
refused with the line number. :func:`dump` writes block mappings and sequences, one-line
flow ``[a, "b"]`` and ``{k: v}`` with every string double-quoted (JSON string syntax, which is
valid YAML).
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


def load(text: str, where: str = "<yaml>") -> Any:
    """Parse ``text``; YamlError ``where:line: why`` on anything refused (see the module doc)."""
    import yaml
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
