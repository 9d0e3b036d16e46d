"""Files a command or the GUI is handed, checked once before anything reads them (issue 28).

Every reader of a design, a dump, a flow list or a side file opens it through :func:`read_input`
(or checks it with :func:`check_input` where a library opens it): a path that is no regular file
— a folder, a FIFO, a device such as ``/dev/zero``, a socket — or one over its size limit is
refused at once with one line, ``PATH: why``, instead of being read for ever or into all memory.

Limits (bytes): :data:`MAX_INPUT_BYTES` for designs, topologies, LFT dumps, flow CSVs and htsim
connection matrices (the biggest generated design, a 4,096-GPU rail SuperPOD, is ~60 MB; a
1M-row flow CSV ~45 MB); the small side files keep their own, smaller limits (parts and prices
16 MiB, partitions.conf 16 MiB, opensm.conf 4 MiB: see their readers).
"""

from __future__ import annotations

import gc
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager

from .errors import FabricError
from .text import one_line

#: Largest design, topology, dump, flow CSV or connection matrix read: 1 GiB.
MAX_INPUT_BYTES = 1 << 30

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _where(path: str | os.PathLike[str]) -> str:
    return one_line(os.fspath(path))


def check_input(path: str | os.PathLike[str], limit: int = MAX_INPUT_BYTES, what: str = "an input file",
                error: type[FabricError] = FabricError) -> int:
    """The size of ``path`` if it is a regular file of at most ``limit`` bytes; else
    ``error("PATH: why")`` (no such file, a folder, a FIFO, a device, a socket, too big)."""
    where = _where(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise error(f"{where}: no such file") from None
    except (OSError, ValueError) as e:          # ValueError: a NUL in the path
        raise error(f"{where}: cannot read ({one_line(getattr(e, 'strerror', None) or str(e))})") from None
    _check_stat(st, where, limit, what, error)
    return st.st_size


def _check_stat(st: os.stat_result, where: str, limit: int, what: str, error: type[FabricError]) -> None:
    for test, kind in _KINDS:
        if test(st.st_mode):
            raise error(f"{where}: is {kind}, not a regular file (fabricviz reads regular files only)")
    if not stat.S_ISREG(st.st_mode):
        raise error(f"{where}: not a regular file (fabricviz reads regular files only)")
    if st.st_size > limit:
        raise error(f"{where}: {st.st_size:,} bytes, over the {limit:,} bytes {what} may have here")


def read_input(path: str | os.PathLike[str], limit: int = MAX_INPUT_BYTES, what: str = "an input file",
               error: type[FabricError] = FabricError) -> bytes:
    """The bytes of ``path``, checked by :func:`check_input` first and again on the open file
    (never more than ``limit`` bytes read, even from a file that grows meanwhile)."""
    where = _where(path)
    check_input(path, limit, what, error)
    try:
        with open(path, "rb") as fh:
            _check_stat(os.fstat(fh.fileno()), where, limit, what, error)
            data = fh.read(limit + 1)
    except OSError as e:
        raise error(f"{where}: cannot read ({one_line(e.strerror or type(e).__name__)})") from None
    except MemoryError:
        raise error(f"{where}: too large to read into memory") from None
    if len(data) > limit:
        raise error(f"{where}: over the {limit:,} bytes {what} may have here")
    return data


def read_input_text(path: str | os.PathLike[str], limit: int = MAX_INPUT_BYTES, what: str = "an input file",
                    error: type[FabricError] = FabricError) -> str:
    """:func:`read_input` decoded as UTF-8, an undecodable byte as U+FFFD (the readers that name
    such a byte themselves look for it)."""
    return read_input(path, limit, what, error).decode("utf-8", errors="replace")


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a reader builds a million small objects that hold
    no cycles (it would otherwise walk them again and again: superlinear), back on after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
