"""ibutils' own checkers run on our ibdm topology export: ``ibdmchk -t`` (does ibdm accept it as a
cluster design) and ``ibtopodiff -t TOPO -d opensm-subnet.lst -e`` (ibdm's diff of a design against
what OpenSM discovered), the second opinion on ``fabricviz diff``.

Debian 12's ibutils (1.5.7+0.2.gbd7e502-3) is built with _FORTIFY_SOURCE, and ibdm's
``guid2str`` (ibdm/ibdm/Fabric.h) prints ``"0x%016" PRIx64`` (19 bytes with its NUL) into
``char buff[18]``: every ``ibtopodiff -e`` run that matches a host calls it and is aborted with
"*** buffer overflow detected ***" (the bundled RhinoBased512.topo/.lst example too). The
one-byte overrun itself is harmless on x86-64 (the byte written is the NUL), so the checks run the
real binary with a two-line ``__sprintf_chk`` that skips the size check, built here with the C
compiler; without one (or without ibutils, OpenSM, ibsim) the tests skip. ``ibdmchk`` also
crashes (SIGSEGV) as it exits, after printing its whole report; the report is what is checked.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from fabricviz.check.diff import DiffKind, DiffReport
from fabricviz.formats.ibdm_topo_export import IbdmTopology

SHIM_C = r"""
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
int __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...) {
    va_list ap; int r; (void)flag; (void)slen;
    va_start(ap, fmt); r = vsprintf(s, fmt, ap); va_end(ap); return r;
}
"""


def ibutils_missing() -> str | None:
    """None when ibtopodiff, ibdmchk and a C compiler are there, else why the check is skipped."""
    missing = [t for t in ("ibtopodiff", "ibdmchk") if shutil.which(t) is None]
    if missing:
        return f"ibutils not installed ({', '.join(missing)} missing): apt-get install -y ibutils"
    if shutil.which("cc") is None:
        return "no C compiler for the _FORTIFY_SOURCE shim ibtopodiff -e needs on Debian 12"
    return None


def build_shim(folder: Path) -> Path:
    src, lib = folder / "sprintf_chk.c", folder / "sprintf_chk.so"
    src.write_text(SHIM_C)
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(lib), str(src)], check=True,
                   capture_output=True, timeout=60)
    return lib


def _env(ibnl: Path, shim: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env["IBDM_IBNL_PATH"] = str(ibnl)
    if shim is not None:
        env["LD_PRELOAD"] = str(shim)
    return env


def ibdmchk(topo: Path, ibnl: Path, sm_node: str, cwd: Path) -> tuple[int, str]:
    """``ibdmchk -t TOPO -n SM_NODE -p 1`` (cluster design mode): exit status and output."""
    r = subprocess.run(["ibdmchk", "-t", str(topo), "-n", sm_node, "-p", "1"], capture_output=True,
                       text=True, timeout=120, cwd=cwd, env=_env(ibnl, None))
    return r.returncode, r.stdout + r.stderr


def ibtopodiff(topo: Path, ibnl: Path, subnet_lst: Path, shim: Path, cwd: Path) -> str:
    """``ibtopodiff -t TOPO -d SUBNET_LST -e``'s output (it writes ibtopodiff.names into cwd)."""
    r = subprocess.run(["ibtopodiff", "-t", str(topo), "-d", str(subnet_lst), "-e"], capture_output=True,
                       text=True, timeout=120, cwd=cwd, env=_env(ibnl, shim))
    assert r.returncode == 0, f"ibtopodiff exited {r.returncode}: {r.stdout[-2000:]}{r.stderr[-500:]}"
    return r.stdout


def pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


@dataclass
class LinkSets:
    """A diff as two sets of links by design port names: design links not found as designed, and
    found links the design does not have; plus whatever else was said (lines not of that form)."""
    unrealised: set[tuple[str, str]] = field(default_factory=set)
    extra: set[tuple[str, str]] = field(default_factory=set)
    other: list[str] = field(default_factory=list)
    ports_ok: int | None = None


_MISSING = re.compile(r"^-E- Missing cable between (\S+) and (\S+)$")
_EXTRA = re.compile(r"^-W- Extra cable between (\S+) and (\S+)$")
_BAD = re.compile(r"^-E- Mis+match: port:? ?(\S+) should be connected to:(\S+) but connects to:? ?(?:port: )?(\S+)$")
_OK = re.compile(r"^-I- Total of (\d+) ports match the provided topology$")
_TOTALS = re.compile(r"^-[EW]- Total of \d+ (missing nodes|extra nodes|connections)")


def ibdm_names(topo: IbdmTopology, fabric) -> dict[str, str]:
    """ibdm's names of our ports (``leaf01/P3``, and ``leaf01/U1/P3`` by node) -> ours (``leaf01:3``)."""
    out = {}
    for p, name in topo.port_names.items():
        d, num = int(fabric.ports_t.device[p]), int(fabric.ports_t.num[p])
        out[name] = out[f"{topo.node_names[d]}/P{num}"] = fabric.port_name(p)
    return out


def from_ibtopodiff(text: str, names: dict[str, str]) -> LinkSets:
    s = LinkSets()
    for line in text.splitlines():
        n = lambda x: names.get(x, x)  # noqa: E731
        if m := _MISSING.match(line):
            s.unrealised.add(pair(n(m[1]), n(m[2])))
        elif m := _EXTRA.match(line):
            s.extra.add(pair(n(m[1]), n(m[2])))
        elif m := _BAD.match(line):
            s.unrealised.add(pair(n(m[1]), n(m[2])))
            s.extra.add(pair(n(m[1]), n(m[3])))
        elif m := _OK.match(line):
            s.ports_ok = int(m[1])
        elif line.startswith(("-E-", "-W-")) and not _TOTALS.match(line):
            s.other.append(line)
    return s


_CABLES = {DiffKind.MISSING_CABLE, DiffKind.EXTRA_CABLE, DiffKind.WRONG_PORT, DiffKind.WRONG_PEER,
           DiffKind.SWAPPED}


def from_fabricviz(report: DiffReport) -> LinkSets:
    s = LinkSets()
    for d in report.differences:
        if d.kind in _CABLES:
            s.unrealised.update(x.key for x in d.design)
            s.extra.update(x.key for x in d.found)
        else:
            s.other.append(d.line)
    s.ports_ok = 2 * report.cables_ok
    return s
