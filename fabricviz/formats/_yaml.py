"""YAML for containerlab files: read with PyYAML's event parser (libyaml when built in).

The tree is built here from the events, iteratively (no recursion however deep the file):
plain scalars typed as YAML 1.2 core (null/bool/int/float; ``yes``, ``12:30`` and dates stay
text, where PyYAML's own YAML 1.1 loader would make them a bool, 750 and a date), mapping keys
as text, collections nested at most MAX_DEPTH deep, and
anchors, aliases (no "billion laughs"), tags, keys given twice and multi-document files
refused with the line number. :func:`dump` writes with PyYAML's safe emitter: block mappings
and sequences, one-line flow ``[a, "b"]`` and ``{k: v}``, every string value double-quoted.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from ..model import FabricError
from .limits import MAX_DEPTH, one_line  # MAX_DEPTH: how deep collections may nest

_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-/]*$")
_INT = re.compile(r"^[-+]?(0|[1-9][0-9]*)$")
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
#: Longest run of digits read as an integer (Python refuses int() of more than 4300).
_MAX_DIGITS = 400


class YamlError(FabricError):
    pass


# ---------------------------------------------------------------------------- writing
def dump(data: Any) -> str:
    """``data`` as YAML by ``yaml.safe_dump``'s emitter (a SafeDumper that keeps key order, indents
    block sequences, writes :class:`Flow` / :class:`FlowMap` in flow style, every string value
    double-quoted and keys plain where the reader keeps them as text)."""
    import yaml
    return yaml.dump(data, Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=_NO_FOLD)


#: Lines are never folded (a long string stays on its line, as a reader of the file expects).
_NO_FOLD = 1 << 30


@functools.cache
def _dumper() -> Any:
    """The SafeDumper subclass of :func:`dump`, made once (PyYAML is imported on first use)."""
    import yaml

    class Dumper(yaml.SafeDumper):
        def increase_indent(self, flow: bool = False, indentless: bool = False) -> Any:
            return super().increase_indent(flow, False)      # "key:\n  - item", not "key:\n- item"

    def key_node(dumper: Any, k: Any) -> Any:
        if isinstance(k, str):
            plain = _PLAIN_KEY.match(k) is not None and _scalar_type(k) is str
            return yaml.ScalarNode("tag:yaml.org,2002:str", k, style=None if plain else '"')
        return dumper.represent_data(k)

    def mapping(flow: bool) -> Any:
        def represent(dumper: Any, data: dict) -> Any:
            node = yaml.MappingNode("tag:yaml.org,2002:map", [], flow_style=flow)
            node.value = [(key_node(dumper, k), dumper.represent_data(v)) for k, v in data.items()]
            return node
        return represent

    def sequence(flow: bool) -> Any:
        def represent(dumper: Any, data: list) -> Any:
            return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)
        return represent

    Dumper.add_representer(str, lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", v, style='"'))
    Dumper.add_representer(dict, mapping(False))
    Dumper.add_representer(FlowMap, mapping(True))
    Dumper.add_representer(list, sequence(False))
    Dumper.add_representer(Flow, sequence(True))
    return Dumper


class Flow(list):
    """A list :func:`dump` writes in flow style (``[a, b]``)."""


class FlowMap(dict):
    """A mapping :func:`dump` writes in flow style (``{k: v}``)."""


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
