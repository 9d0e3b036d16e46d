"""Atomic file writes: the target is always the old whole file or the new whole file.

:func:`write_atomic` writes a hidden temporary file beside the target
(``.NAME.PID-START.HOST.XXXXXXXX.tmp``: the writer's process id, its start time
(:func:`start_time`; ``.NAME.PID.HOST...`` where that cannot be read) and host
tag, see :func:`host_tag`),
flushes and fsyncs it, gives it the old file's permissions and group (a new file
gets the usual umask ones) and renames it over the target. Whatever goes wrong
while writing (an exception, a full disk, a permission error) the temp file is
removed and a one-line FabricError names the file. Symbolic links are written
through (the link stays a link).

Where the system can (Linux, on file systems that have ``O_TMPFILE``: ext4, xfs, btrfs,
tmpfs), :func:`write_atomic` writes an anonymous file in the target's folder instead: it has
no name until its data is written and synced, and is then linked under the temp name and
renamed over the target at once — a save killed while writing leaves nothing behind (only
a kill between that link and the rename, a few system calls, can leave a whole temp file).
Elsewhere (NFS, other systems), and for writers that open the temp file by name (a video
encoder), the temp file has its name from the start.

A process killed mid-save may leave its temp file behind; the next save of the
same file removes it. Folders may be shared between hosts (an NFS home), so a
temp file is removed as stale only when that is certain:

* a temp file of this host: when its process is no longer running here (a zombie
  counts as gone; one of this process's own: when no thread of ours is writing
  it), or when the pid was reused (as is normal after a reboot): the process now
  holding it started at another time than the one in the name, or, for a name
  without a start time, after the temp file was last written (by more than
  :data:`CLOCK_SLACK_S`; a writer's temp file is never older than the writer);
* another host's temp file, or one with no host or pid in its name (left by
  older versions): only when it has not been touched for :data:`STALE_AFTER_S`
  (an hour); no save takes that long.

:func:`process_alive` is the one liveness test (autosave's recovery files use it
too): a process is alive only if it is on this host, in this boot
(``/proc/sys/kernel/random/boot_id``), its pid runs and its start time (field 22
of ``/proc/PID/stat``) is the one recorded, so a pid reused after a reboot or a
crash does not count. What cannot be read (no ``/proc``) is not compared.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

from .errors import FabricError

#: This process's temp files being written right now (never removed as stale).
_writing: set[str] = set()
#: Held while a temp file is created and registered, and while a folder is listed for stale
#: ones, so a thread never removes the temp file another thread has just created.
_lock = threading.RLock()
#: Temp files that cannot be tied to a dead process here are removed only after this long.
STALE_AFTER_S = 3600.0
#: The one shape of a temp file name: ``.TARGET.PID-START.HOST.RANDOM.tmp``; START, HOST and PID
#: may be missing (older versions wrote ``.TARGET.PID.HOST.RANDOM.tmp``, ``.TARGET.PID.RANDOM.tmp``
#: and ``.TARGET.RANDOM.tmp``).
_TEMP = (r"\.(?P<target>{target})\.(?:(?P<pid>\d{{1,10}})(?:-(?P<started>\d{{1,20}}))?\."
         r"(?:(?P<host>[A-Za-z0-9-]{{1,63}})\.)?)?[A-Za-z0-9_]+\.tmp")
MAX_PID = 2 ** 31


def _temp_re(target: str | None = None) -> re.Pattern[str]:
    return re.compile(_TEMP.format(target=".+?" if target is None else re.escape(target)))


def host_name() -> str:
    """This host's tag as it goes into temp file names (:func:`host_tag` of the full host name)."""
    return host_tag(socket.gethostname())


def host_tag(host: str) -> str:
    """``SHORT-HASH``: the first label of ``host`` (odd characters as ``-``, at most 40) for the
    reader, and 8 hex digits of the SHA-256 of the whole name, so hosts whose names share a
    first label (``10.0.0.5`` and ``10.0.0.6``, ``login01.clusterA`` and ``login01.clusterB``)
    or differ only in odd characters still get different tags."""
    short = re.sub(r"[^A-Za-z0-9-]", "-", host.split(".", 1)[0])[:40] or "host"
    digest = hashlib.sha256(host.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{short}-{digest}"


def boot_id() -> str | None:
    """This boot's id (Linux), None where it cannot be read."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as fh:
            return fh.read().strip() or None
    except (OSError, ValueError):
        return None


def _stat(pid: int) -> list[str] | None:
    """Fields 3 on of /proc/PID/stat (field 3 is at index 0); None if unreadable."""
    if not isinstance(pid, int) or not 0 < pid < MAX_PID:
        return None
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            stat = fh.read()
        # the command name (field 2) is in parentheses and may hold spaces or ')'
        return stat[stat.rindex(")") + 2:].split()
    except (OSError, ValueError):
        return None


def start_time(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot, /proc/PID/stat field 22); None if unknown."""
    fields = _stat(pid)
    try:
        return int(fields[19]) if fields is not None else None
    except (ValueError, IndexError):
        return None


def _boot_time() -> float | None:
    """When this host booted (seconds since the epoch, ``btime`` of /proc/stat); None if unknown."""
    try:
        with open("/proc/stat", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("btime "):
                    return float(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def started_at(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch, to about a second); None if unknown."""
    ticks, boot = start_time(pid), _boot_time()
    try:
        hz = os.sysconf("SC_CLK_TCK")
    except (AttributeError, ValueError, OSError):
        return None
    if ticks is None or boot is None or hz <= 0:
        return None
    return boot + ticks / hz


#: ``btime`` is whole seconds and the clock may be stepped a little: a temp file counts as older
#: than a process only when it is older by more than this.
CLOCK_SLACK_S = 5.0


def _pid_runs(pid: int) -> bool:
    if not hasattr(os, "kill") or sys.platform.startswith("win"):
        return True            # cannot tell: keep it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OverflowError, ValueError):
        return False
    except OSError:            # PermissionError: someone else's live process
        pass
    fields = _stat(pid)        # a zombie (Z) or a dying process (X) answers kill() but runs no more
    return not (fields is not None and fields and fields[0] in ("Z", "X"))


def same_host(host: str | None) -> bool:
    """Is ``host`` this host: its full name (as recovery files store it) or its tag (temp names)?"""
    return host is not None and host in (socket.gethostname(), host_name())


def process_alive(pid: object, host: str | None, boot: str | None = None, started: int | None = None) -> bool:
    """Is process ``pid`` of ``host`` (full or short name) running, the very one recorded?

    False for another host (the caller decides what an unknown process means there), for a
    pid that is not a process id, for another boot, and when the pid runs but started at
    another time than ``started`` (it was reused)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or not 0 < pid < MAX_PID or not same_host(host):
        return False
    here = boot_id()
    if boot is not None and here is not None and boot != here:
        return False
    if not _pid_runs(pid):
        return False
    if started is not None:
        now = start_time(pid)
        if now is not None and now != started:
            return False
    return True


def _mtime(p: Path) -> float | None:
    try:
        return p.stat().st_mtime
    except OSError:
        return None


def _old(p: Path, now: float) -> bool:
    mtime = _mtime(p)
    return mtime is not None and now - mtime > STALE_AFTER_S


def _older_than_its_pid(p: Path, pid: int) -> bool:
    """Was ``p`` written before the process now holding ``pid`` started (so not by it)?"""
    mtime, began = _mtime(p), started_at(pid)
    return mtime is not None and began is not None and mtime < began - CLOCK_SLACK_S


def _stale(folder: Path, names: list[str], pat: re.Pattern[str]) -> list[Path]:
    """Of ``names`` in ``folder``, the temp files no running save owns (call with _lock held)."""
    out: list[Path] = []
    now = time.time()
    for name in names:
        m = pat.fullmatch(name)
        if m is None:
            continue
        p = folder / name
        if str(p) in _writing:
            continue
        pid, host, began = m.group("pid"), m.group("host"), m.group("started")
        if pid is not None and host is not None and same_host(host):
            pid = int(pid)
            if pid == os.getpid() or not process_alive(pid, host, started=None if began is None else int(began)) \
                    or (began is None and _older_than_its_pid(p, pid)):
                out.append(p)
        elif _old(p, now):     # another host's, or a name that does not say whose
            out.append(p)
    return out


def _names(folder: Path) -> list[str]:
    try:
        return os.listdir(folder if str(folder) else ".")
    except OSError:
        return []


def stale_temp_files(path: str | os.PathLike[str]) -> list[Path]:
    """Temp files beside ``path`` that no running save owns (see the module docstring)."""
    target = Path(path)
    with _lock:
        return _stale(target.parent, _names(target.parent), _temp_re(target.name))


def _unlink_all(paths: list[Path]) -> int:
    n = 0
    for p in paths:
        try:
            p.unlink()
            n += 1
        except OSError:        # gone already, or not ours to remove after all: the save goes on
            pass
    return n


def remove_stale(path: str | os.PathLike[str]) -> int:
    """Remove :func:`stale_temp_files` of ``path``; returns how many went."""
    return _unlink_all(stale_temp_files(path))


def remove_stale_in(folder: str | os.PathLike[str]) -> int:
    """Remove the stale temp files of every file in ``folder`` (for a folder of our own, such
    as the recovery folder, where a killed save's target may never be written again)."""
    folder = Path(folder)
    with _lock:
        stale = _stale(folder, _names(folder), _temp_re())
    return _unlink_all(stale)


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
    with Replacement(path, where, named=False) as new:
        new.write(data)


class Replacement:
    """One atomic save: a temp file beside ``path`` (named and cleaned up as the module docstring
    says, with the target's permissions and group) that :meth:`commit` fsyncs and renames over
    the target; :meth:`discard` (or leaving the ``with`` block by an exception) removes it.

    :func:`write_atomic` writes bytes into it with :meth:`write` (``named=False``: an anonymous
    file where the system has them, which has no :attr:`tmp` name until :meth:`commit`); a writer
    that opens files by name (a video encoder) fills :attr:`tmp` itself.
    Errors: FabricError ``WHERE: cannot save: why``.
    """

    def __init__(self, path: str | os.PathLike[str], where: str | None = None, named: bool = True) -> None:
        self.where = str(path) if where is None else where
        self.target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
        self.folder = self.target.parent if str(self.target.parent) else Path(".")
        self.done = self.synced = False
        remove_stale(self.target)
        anon = None if named else _anonymous(self.folder)
        tmp: str | None = None
        if anon is not None:
            fd = anon
        else:
            with _lock:        # created and registered together: never seen as stale meanwhile
                try:
                    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(self.target), suffix=".tmp", dir=self.folder)
                except OSError as e:
                    raise FabricError(f"{self.where}: cannot save: {e.strerror or e}") from None
                _writing.add(tmp)
        self.fd, self._tmp = fd, tmp
        try:
            try:
                st = self.target.stat()
                mode = st.st_mode & 0o7777
            except FileNotFoundError:
                st, mode = None, 0o666 & ~_umask()
            if st is not None and hasattr(os, "fchown"):
                try:           # keep the group of a shared file (best effort: we may not be a member)
                    os.fchown(fd, -1, st.st_gid)
                except OSError:
                    pass
            if hasattr(os, "fchmod"):
                os.fchmod(fd, mode)
            elif tmp is not None:
                os.chmod(tmp, mode)
        except OSError as e:
            self.discard()
            raise FabricError(f"{self.where}: cannot save: {e.strerror or e}") from None
        except BaseException:
            self.discard()
            raise

    @property
    def tmp(self) -> str:
        """The temp file's path: a named one's from the start, an anonymous one's once committed."""
        if self._tmp is None:
            raise FabricError(f"{self.where}: the temp file has no name (an anonymous one, before its commit)")
        return self._tmp

    def write(self, data: bytes) -> None:
        """Write all of ``data`` to the temp file (once; a named one is then closed)."""
        try:
            if self._tmp is None:            # anonymous: the descriptor is its only handle
                view = memoryview(data)
                while view:
                    view = view[os.write(self.fd, view):]
                os.fsync(self.fd)
            else:
                with os.fdopen(self._take_fd(), "wb") as fh:
                    fh.write(data)
                    fh.flush()
                    os.fsync(fh.fileno())
            self.synced = True
        except OSError as e:
            self.discard()
            raise FabricError(f"{self.where}: cannot save: {e.strerror or e}") from None

    def _take_fd(self) -> int:
        fd, self.fd = self.fd, -1
        if fd < 0:
            assert self._tmp is not None, "an anonymous temp file is only reached through its descriptor"
            fd = os.open(self._tmp, os.O_WRONLY)
        return fd

    def _name_anonymous(self) -> None:
        """Give the written anonymous file its temp name (linked from its descriptor)."""
        dfd = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            with _lock:
                for _ in range(100):
                    name = f"{_temp_prefix(self.target)}{secrets.token_hex(4)}.tmp"
                    try:    # linkat(AT_SYMLINK_FOLLOW) of /proc/self/fd/N: the way to name an O_TMPFILE
                        os.link(f"/proc/self/fd/{self.fd}", name, dst_dir_fd=dfd)
                    except FileExistsError:
                        continue
                    self._tmp = str(self.folder / name)
                    _writing.add(self._tmp)
                    break
                else:
                    raise FileExistsError(f"no free temp name beside {self.target.name}")
        finally:
            os.close(dfd)
        fd, self.fd = self.fd, -1
        os.close(fd)

    def commit(self) -> Path:
        """Make the temp file durable and rename it over the target; returns the target."""
        try:
            if self._tmp is None:       # anonymous: written and synced, it gets its name now
                if not self.synced:
                    raise OSError("nothing was written")
                self._name_anonymous()
            if not self.synced:        # filled by name: make its data durable before the rename
                fd = self._take_fd()
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            assert self._tmp is not None
            os.replace(self._tmp, self.target)
            self.done = True
            _fsync_dir(self.folder)
        except OSError as e:
            raise FabricError(f"{self.where}: cannot save: {e.strerror or e}") from None
        finally:
            self.discard()
        return self.target

    def discard(self) -> None:
        """Remove the temp file (unless committed) and forget it; harmless when repeated."""
        if self.fd >= 0:
            try:
                os.close(self.fd)
            except OSError:
                pass
            self.fd = -1
        if self._tmp is None:           # anonymous and never named: closing it was all
            return
        if not self.done:
            try:
                os.unlink(self._tmp)
            except OSError:
                pass
        with _lock:
            _writing.discard(self._tmp)

    def __enter__(self) -> Replacement:
        return self

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()


def _temp_prefix(target: Path) -> str:
    """``.TARGET.PID-START.HOST.``: the start of this process's temp names for ``target``."""
    return f".{target.name}.{_writer()}.{host_name()}."


def _anonymous(folder: Path) -> int | None:
    """A descriptor of a new anonymous file in ``folder`` (Linux ``O_TMPFILE``), or None where
    there are none (then a named temp file is used; a real error shows up creating that)."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(folder, flag | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError:            # EOPNOTSUPP/EISDIR (no O_TMPFILE there), or EACCES, EROFS …: the
        return None            # named temp file is used, and a real error is reported creating it


def _anonymous_supported(folder: str | os.PathLike[str]) -> bool:
    """Can :func:`write_atomic` use an anonymous temp file in ``folder``? (Tests and bench.)"""
    fd = _anonymous(Path(folder))
    if fd is None:
        return False
    os.close(fd)
    return True


def _writer() -> str:
    """``PID-START`` of this process for temp names (``PID`` where the start time is unknown)."""
    pid = os.getpid()
    began = start_time(pid)
    return str(pid) if began is None else f"{pid}-{began}"


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


__all__ = ["CLOCK_SLACK_S", "STALE_AFTER_S", "Replacement", "boot_id", "host_name", "host_tag", "process_alive",
           "remove_stale", "remove_stale_in", "same_host", "stale_temp_files", "start_time", "started_at",
           "write_atomic"]
