"""A SONiC ``config_db.json`` as an instance of SONiC's YANG models, checked with yanglint.

SONiC itself validates CONFIG_DB with ``sonic_yang`` (sonic-buildimage ``src/sonic-yang-mgmt``,
``sonic_yang_ext.py``), which translates each table into its module's containers before libyang
checks it. This helper follows the same rules (written from reading ``_xlateList``,
``_xlateType1MapList`` and ``_extractKey`` there):

* table ``T`` lives in the module whose top container ``sonic-x`` holds a container ``T``;
* each entry key is split at ``|`` into the key leaves of the first list of ``T`` with that many
  keys (``QUEUE|Ethernet0|3`` → ``QUEUE_LIST`` [ifname qindex]); an entry no list takes, or a
  table no module has, is an error (sonic_yang's "not translated");
* the entry's fields become the list's leaves (a JSON list → a leaf-list);
* "type 1 maps" (a list whose only child list is the map itself, e.g. ``DSCP_TO_TC_MAP_LIST``
  holding ``DSCP_TO_TC_MAP`` [dscp] tc): each ``field: value`` of the entry becomes one inner
  entry {inner key: field, other leaf: value}.

The instance is written as XML (every value is text there, as in CONFIG_DB, so no typed JSON
encoding is needed) and checked by ``yanglint -t config`` with every vendored module loaded, so
leafrefs across tables (BUFFER_PG → PORT, QUEUE → SCHEDULER, …) are resolved too.

The schema shape comes from ``yanglint -f tree`` over the vendored modules (tests/data/sonic_yang).
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

YANG_DIR = Path(__file__).resolve().parents[1] / "data" / "sonic_yang"
YANGLINT = shutil.which("yanglint")


@dataclass(frozen=True)
class YangList:
    name: str
    keys: tuple[str, ...]
    inner: tuple[str, str, str] | None      # type 1 map: (inner list, its key, its value leaf)


@dataclass(frozen=True)
class Table:
    module: str
    namespace: str
    lists: tuple[YangList, ...]


def modules() -> list[Path]:
    return sorted(YANG_DIR.glob("*.yang"))


_NODE = re.compile(r"^(?P<indent>[\s|]*)\+--(?:rw|ro) (?P<name>[\w-]+)(?P<star>\*)?(?:\s+\[(?P<keys>[^\]]*)\])?")


@functools.lru_cache(maxsize=1)
def tables() -> dict[str, Table]:
    """Table name → its module and lists, from ``yanglint -f tree``."""
    out: dict[str, Table] = {}
    ns = {p.stem: re.search(r'namespace\s+"([^"]+)"', p.read_text()).group(1) for p in modules()}
    for path in modules():
        tree = subprocess.run([YANGLINT, "-f", "tree", "-p", str(YANG_DIR), str(path)],
                              capture_output=True, text=True, check=True).stdout
        nodes = []                          # (depth, name, is list, keys)
        for line in tree.splitlines():
            m = _NODE.match(line)
            if m:
                nodes.append((len(m["indent"]), m["name"], m["keys"] is not None,
                              tuple((m["keys"] or "").split())))
        top = min((d for d, *_ in nodes), default=0)
        for i, (d, name, _, _) in enumerate(nodes):
            if d != top + 3:                  # sonic-x / TABLE
                continue
            lists = []
            j = i + 1
            while j < len(nodes) and nodes[j][0] > d:
                ld, lname, is_list, keys = nodes[j]
                if ld == d + 3 and is_list:
                    kids = [n for n in _children(nodes, j)]
                    inner_lists = [n for n in kids if n[2]]
                    inner = None
                    if inner_lists and all(not n[2] for n in kids if n not in inner_lists) and \
                            len(kids) == len(keys) + 1:
                        k = _children(nodes, nodes.index(inner_lists[0]))
                        key = inner_lists[0][3][0]
                        val = next(n[1] for n in k if n[1] != key)
                        inner = (inner_lists[0][1], key, val)
                    lists.append(YangList(lname, keys, inner))
                j += 1
            out[name] = Table(path.stem, ns[path.stem], tuple(lists))
    return out


def _children(nodes: list[tuple[int, str, bool, tuple[str, ...]]], i: int) -> list[tuple[int, str, bool, tuple[str, ...]]]:
    d = nodes[i][0]
    kids = []
    for n in nodes[i + 1:]:
        if n[0] <= d:
            break
        if n[0] == d + 3:
            kids.append(n)
    return kids


class NotTranslated(Exception):
    """An entry or table of the config_db that no YANG list takes."""


def to_xml(config_db: dict[str, Any]) -> str:
    """The YANG instance of ``config_db`` (see the module docstring)."""
    known = tables()
    by_module: dict[str, list[str]] = {}
    for table, entries in config_db.items():
        if table not in known:
            raise NotTranslated(f"{table}: no YANG module has this table")
        t = known[table]
        body = []
        for key, fields in entries.items():
            parts = key.split("|")
            lst = next((x for x in t.lists if len(x.keys) == len(parts)), None)
            if lst is None:
                raise NotTranslated(f"{table}|{key}: no list of {table} has {len(parts)} keys")
            leaves = [f"<{k}>{escape(v)}</{k}>" for k, v in zip(lst.keys, parts, strict=True)]
            if lst.inner is not None:
                name, ikey, ival = lst.inner
                leaves += [f"<{name}><{ikey}>{escape(str(f))}</{ikey}><{ival}>{escape(str(v))}</{ival}></{name}>"
                           for f, v in fields.items()]
            else:
                for f, v in fields.items():
                    for one in v if isinstance(v, list) else [v]:
                        leaves.append(f"<{f}>{escape(str(one))}</{f}>")
            body.append(f"<{lst.name}>{''.join(leaves)}</{lst.name}>")
        by_module.setdefault(t.module, []).append(f"<{table}>{''.join(body)}</{table}>")
    return "\n".join(f'<{m} xmlns="{known_ns(m)}">{"".join(b)}</{m}>' for m, b in by_module.items()) + "\n"


def known_ns(module: str) -> str:
    return next(t.namespace for t in tables().values() if t.module == module)


def yanglint_errors(config_db: dict[str, Any]) -> list[str]:
    """yanglint's error lines for ``config_db`` ([] when it passes)."""
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "config_db.xml"
        data.write_text(to_xml(config_db))
        r = subprocess.run([YANGLINT, "-t", "config", "-p", str(YANG_DIR), *map(str, modules()), str(data)],
                           capture_output=True, text=True, timeout=120)
    errors = [line for line in (r.stdout + r.stderr).splitlines()
              if line.startswith(("libyang err", "YANGLINT[E]"))]
    if r.returncode != 0 and not errors:
        errors = [f"yanglint exit {r.returncode}"]
    return errors
