"""Atomic file writes: the target is always the old whole file or the new whole file.

:func:`write_atomic` writes a hidden temporary file beside the target
(``.NAME.PID.XXXXXXXX.tmp``), flushes and fsyncs it, gives it the old file's
permissions (a new file gets the usual umask ones) and renames it over the
target. Whatever goes wrong while writing (an exception, a full disk, a
permission error) the temp file is removed and a one-line FabricError names the
file. A process killed mid-save leaves its temp file behind; the next save of
the same file removes the temp files of processes that are no longer running.
Symbolic links are written through (the link stays a link).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import threading
from pathlib import Path

from ..model import FabricError

#: This process's temp files being written right now (never removed as stale).
_writing: set[str] = set()
_lock = threading.Lock()


def _umask() -> int:
    """The process umask without changing it (os.umask(0) would race other threads)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _lock:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if not hasattr(os, "kill") or sys.platform.startswith("win"):
        return True            # cannot tell: keep it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:    # someone else's live process
        return True
    except OSError:
        return True
    return True


def stale_temp_files(path: str | os.PathLike[str]) -> list[Path]:
    """Temp files of ours beside ``path`` that no running save owns: ``.NAME.PID.*.tmp``
    of a process that is gone (or of this one, not being written), and ``.NAME.*.tmp``
    with no PID (left by older versions)."""
    target = Path(path)
    folder = target.parent
    prefix = f".{target.name}."
    pat = re.compile(re.escape(prefix) + r"(?:(\d+)\.)?[A-Za-z0-9_]+\.tmp")
    out: list[Path] = []
    try:
        names = os.listdir(folder if str(folder) else ".")
    except OSError:
        return out
    with _lock:
        busy = set(_writing)
    for name in names:
        m = pat.fullmatch(name)
        if m is None:
            continue
        p = folder / name
        if str(p) in busy:
            continue
        pid = m.group(1)
        if pid is not None and int(pid) != os.getpid() and _pid_alive(int(pid)):
            continue
        out.append(p)
    return out


def remove_stale(path: str | os.PathLike[str]) -> int:
    """Remove :func:`stale_temp_files` of ``path``; returns how many went."""
    n = 0
    for p in stale_temp_files(path):
        try:
            p.unlink()
            n += 1
        except FileNotFoundError:
            pass
        except OSError:        # not ours to remove after all; the save itself goes on
            pass
    return n


def remove_stale_in(folder: str | os.PathLike[str]) -> int:
    """Remove the stale temp files of every file in ``folder`` (for a folder of our own, such
    as the recovery folder, where a killed save's target may never be written again)."""
    pat = re.compile(r"\.(.+?)\.(?:\d+\.)?[A-Za-z0-9_]+\.tmp")
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    targets = {m.group(1) for m in map(pat.fullmatch, names) if m is not None}
    return sum(remove_stale(Path(folder) / t) for t in sorted(targets))


def write_atomic(path: str | os.PathLike[str], data: str | bytes, where: str | None = None) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8) atomically.

    Raises FabricError ``WHERE: cannot save: why`` (``where`` defaults to ``path``);
    the target is untouched then and no temp file is left.
    """
    where = str(path) if where is None else where
    if isinstance(data, str):
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError as e:
            raise FabricError(f"{where}: cannot save: character {e.object[e.start:e.end]!r} "
                              "cannot be written as UTF-8") from None
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    remove_stale(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=folder)
    except OSError as e:
        raise FabricError(f"{where}: cannot save: {e.strerror or e}") from None
    with _lock:
        _writing.add(tmp)
    done = False
    try:
        try:
            mode = target.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        else:
            os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as fh:
            fd = -1
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        done = True
        _fsync_dir(folder)
    except OSError as e:
        raise FabricError(f"{where}: cannot save: {e.strerror or e}") from None
    finally:
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass
        if not done:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        with _lock:
            _writing.discard(tmp)


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (POSIX); harmless where directories cannot be opened."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    try:
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


__all__ = ["remove_stale", "remove_stale_in", "stale_temp_files", "write_atomic"]
