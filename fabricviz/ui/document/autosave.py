"""Autosave and crash recovery, as desktop design tools do it.

While a window's design has unsaved changes, :class:`Autosave` writes it every
``interval_ms`` (the ``autosave/interval_ms`` setting, one minute by default, at
most an hour; 0 turns it off, and deletes the recovery file) to a recovery file
in the ``recovery`` folder beside the user's settings file
(``~/.config/fabricviz/recovery`` on Linux). The file is written
atomically (:func:`fabricviz.model.atomic.write_atomic`) and records which
design it was (its path, or untitled), its name, when, and the process that
wrote it. Big designs are serialised off the UI thread from a snapshot
(``Fabric.copy()``); a result that went stale meanwhile (the design was saved
or closed) is dropped, never written. Each window has its own file, so two
windows never clobber each other.

A kill while the file is being written leaves nothing (the writer fills an anonymous file and
names it only when whole, see :mod:`fabricviz.model.atomic`); where the folder cannot hold
anonymous files (NFS), the temp file it leaves is removed by the next autosave of any window and
at start-up, and is never offered.

The recovery file is deleted when the design becomes clean (saved, or undone
to the saved state), when another design is opened, and when the window closes
normally. After a crash or a kill it stays; on the next start
:func:`offer_recovery` asks, for each one whose process is gone, "Recover
unsaved changes to NAME from HH:MM?": Recover opens it as a modified document
(undo goes back to the file on disk; Save writes to the original path; an
untitled design, or one whose file is gone, has no saved state, so no undo
makes it "clean" and closing asks to save), Discard deletes it.

Whose process is gone: the file records the host, the boot id, the pid and the
process start time, and :func:`fabricviz.model.atomic.process_alive` decides
(same host, same boot, pid running, same start time), so a pid reused after a
reboot never hides a recovery. The settings folder may be shared by several
hosts (an NFS home), and another host's process cannot be seen from here: its
recovery file (one whose full host name is not this host's) is offered (the
question names the host) only once it has not been touched for
:data:`OTHER_HOST_AFTER_S` (a day). A running window touches its recovery file
at every autosave tick, even with nothing new to write, and the interval is at
most :data:`MAX_INTERVAL_MS` (an hour), so a file that old belongs to no running
window; a window whose autosave is turned off deletes its file. Until then it is
neither offered nor removed.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import socket
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6 import QtCore, QtWidgets

from fabricviz.model import Fabric, FabricError
from fabricviz.model.atomic import MAX_PID, boot_id, process_alive, remove_stale_in, start_time, write_atomic
from fabricviz.ui.document.document import Document
from fabricviz.ui.document.settings import settings as user_settings

if TYPE_CHECKING:       # the file controller holds an Autosave: only its type is needed here
    from fabricviz.ui.document.files import FileController

FORMAT = "fabricviz-recovery"
VERSION = 1
#: Default autosave interval (ms) and the settings key that overrides it.
INTERVAL_MS = 60_000
INTERVAL_KEY = "autosave/interval_ms"
#: The longest interval: far below OTHER_HOST_AFTER_S, so a live window's file is never that old.
MAX_INTERVAL_MS = 3600 * 1000
#: Designs with at least this many devices are serialised in a worker thread.
THREAD_DEVICES = 5_000
#: Recovery files larger than this are not read at start-up (they are left alone).
MAX_RECOVERY_BYTES = 1 << 31
#: Another host's recovery file is offered once it has not been touched for this long (s).
OTHER_HOST_AFTER_S = 24 * 3600.0


def recovery_dir() -> Path:
    """The ``recovery`` folder beside the settings file (honours HOME / XDG_CONFIG_HOME)."""
    return Path(user_settings().fileName()).parent / "recovery"


@dataclass
class Recovery:
    """One recovery file found at start-up."""

    file: Path
    document: str | None      # the design's path, None when untitled
    name: str                 # what the title bar called it
    saved_at: _dt.datetime
    pid: int
    host: str
    design: str               # the native file text
    boot_id: str | None = None  # the writer's boot and start time (None: not recorded)
    started: int | None = None

    def stamp(self) -> str:
        """``09:41`` today, ``2026-11-30 09:41`` before (local time)."""
        when = self.saved_at.astimezone()
        today = _dt.datetime.now().astimezone().date()
        return when.strftime("%H:%M") if when.date() == today else when.strftime("%Y-%m-%d %H:%M")

    def load(self) -> Fabric:
        """The autosaved design; FileFormatError naming the recovery file if it cannot be read."""
        from fabricviz.formats.native import loads
        return loads(self.design, str(self.file))

    def here(self) -> bool:
        """Written on this host (the full host name it stores is this host's)?"""
        return self.host == socket.gethostname()

    def question(self) -> str:
        where = "" if self.here() else f" on {self.host}"
        return f"Recover unsaved changes to {self.name} from {self.stamp()}{where}?"


class Autosave(QtCore.QObject):
    """Autosave of one document's design; see the module docstring. A failure is also said on
    the document's ``message`` (the status bar)."""

    saved = QtCore.Signal(str)          # the recovery file just written
    failed = QtCore.Signal(str)         # one-line reason

    def __init__(self, document: Document, settings: QtCore.QSettings | None = None,
                 interval_ms: int | None = None, folder: Path | None = None) -> None:
        super().__init__(document)
        self.document = document
        self.folder = Path(folder) if folder is not None else recovery_dir()
        self.thread_devices = THREAD_DEVICES
        self.path = self.folder / f"{uuid.uuid4().hex}.json"
        self.last_error: str | None = None
        self._lock = threading.Lock()   # a worker writes only while its generation is current
        self._generation = 0
        self._changes = 0               # bumped by every step on the undo stack
        self._written = -1              # _changes when the file was last written
        self._busy = False
        stack = document.stack
        stack.indexChanged.connect(self._changed)
        stack.cleanChanged.connect(self._clean_changed)
        self.timer = QtCore.QTimer(self)
        self.timer.setObjectName("autosave_timer")
        self.timer.timeout.connect(self.tick)
        if interval_ms is None:
            interval_ms = _setting_interval(settings)
        self.set_interval(interval_ms)

    # ------------------------------------------------------------------ settings
    @property
    def interval_ms(self) -> int:
        return self.timer.interval() if self.timer.isActive() else 0

    def set_interval(self, ms: int) -> None:
        """Autosave every ``ms`` milliseconds (at most :data:`MAX_INTERVAL_MS`); 0 turns it off and
        deletes the recovery file (no longer touched, it would look abandoned to other hosts)."""
        self.timer.stop()
        if ms > 0:
            self.timer.start(min(int(ms), MAX_INTERVAL_MS))
        else:
            self.discard()

    # ------------------------------------------------------------------ state
    def _changed(self, _index: int) -> None:
        self._changes += 1

    def _clean_changed(self, clean: bool) -> None:
        if clean:
            self.discard()

    def discard(self) -> None:
        """Delete the recovery file; a worker still running for it will not write."""
        with self._lock:
            self._generation += 1
            self._written = -1
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass
            except OSError as e:
                self.last_error = f"{self.path}: cannot remove the recovery file: {e.strerror or e}"

    def close(self) -> None:
        """The window closes normally: stop, and delete the recovery file."""
        self.timer.stop()
        self.discard()

    def wait(self, timeout: float = 30.0) -> None:
        """Wait for a running worker (tests, and closing)."""
        self.document.jobs.wait("autosave", timeout)

    # ------------------------------------------------------------------ writing
    def tick(self) -> bool:
        """Write the recovery file now if the design has changes not yet autosaved.

        Returns True if a write was done or started."""
        stack = self.document.stack
        if stack.isClean() or self._busy:
            return False
        if self._changes == self._written:
            self._touch()             # still running: see the module docstring
            return False
        fabric: Fabric = self.document.fabric
        snapshot = fabric.copy()
        path = self.document.path
        header = {"format": FORMAT, "version": VERSION,
                  "document": str(Path(path).resolve()) if path is not None else None,
                  "name": str(self.document.display_name),
                  "saved_at": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
                  "pid": os.getpid(), "host": socket.gethostname(), "boot_id": boot_id(),
                  "started": start_time(os.getpid())}
        gen, changes = self._generation, self._changes
        if len(snapshot) < self.thread_devices:
            self._finish(self._write(gen, changes, snapshot, header))
            return True
        self._busy = True
        self.document.jobs.submit(
            "autosave", lambda _progress: self._write(gen, changes, snapshot, header), keep_stale=True,
            on_done=self._finish, on_error=lambda error: self._finish((None, None, error, False)))
        return True

    def _touch(self) -> None:
        with self._lock:
            if self._written >= 0:
                try:
                    os.utime(self.path)
                except OSError:
                    pass

    def _write(self, gen: int, changes: int, snapshot: Fabric, header: dict) -> tuple:
        """(generation, changes, error or None, written?); runs in the worker for big designs."""
        from fabricviz.formats.native import check_writable, dumps
        try:
            check_writable(snapshot, self.path)
            text = dumps(snapshot)
            payload = json.dumps({**header, "design": text}, ensure_ascii=False)
            with self._lock:
                if gen != self._generation:
                    return gen, changes, None, False        # saved or closed meanwhile: drop it
                self.folder.mkdir(parents=True, exist_ok=True)
                remove_stale_in(self.folder)    # what autosaves killed mid-write left (named temps)
                write_atomic(self.path, payload)
        except FabricError as e:
            return gen, changes, str(e), False
        except OSError as e:
            return gen, changes, f"{self.folder}: cannot autosave: {e.strerror or e}", False
        return gen, changes, None, True

    def _finish(self, result: Any) -> None:
        self._busy = False
        gen, changes, error, written = result
        if error is not None:
            self.last_error = error
            self.document.message.emit(f"autosave failed: {error}", False)
            self.failed.emit(error)
            return
        if written and gen == self._generation:
            self._written = changes
            self.last_error = None
            self.saved.emit(str(self.path))


def _setting_interval(settings: QtCore.QSettings | None) -> int:
    if settings is None:
        return INTERVAL_MS
    value = settings.value(INTERVAL_KEY, INTERVAL_MS)
    try:
        return max(0, int(value)) if isinstance(value, (int, float, str)) else INTERVAL_MS
    except (TypeError, ValueError):
        return INTERVAL_MS


# ---------------------------------------------------------------------- recovery at start-up
def _field(data: dict, key: str, types: tuple, file: Path, optional: bool = False) -> Any:
    if key not in data and optional:
        return None
    value = data.get(key)
    if not isinstance(value, types) or isinstance(value, bool):
        raise FabricError(f"{file}: a recovery file with missing or wrong fields ({key})")
    return value


def read_recovery(file: Path) -> Recovery:
    """Parse and check one recovery file; FabricError ``file: why`` if it is not a good one."""
    try:
        if file.stat().st_size > MAX_RECOVERY_BYTES:
            raise FabricError(f"{file}: too large to be a recovery file")
        text = file.read_text(encoding="utf-8")
    except OSError as e:
        raise FabricError(f"{file}: cannot read ({e.strerror or e})") from None
    except UnicodeDecodeError:
        raise FabricError(f"{file}: not a fabricviz recovery file (not UTF-8)") from None
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        raise FabricError(f"{file}: not a fabricviz recovery file ({e.__class__.__name__})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
        raise FabricError(f"{file}: not a fabricviz recovery file")
    if not all(k in data for k in ("document", "name", "saved_at", "pid", "host", "design")):
        raise FabricError(f"{file}: a recovery file with missing or wrong fields")
    doc = _field(data, "document", (str, type(None)), file)
    name, when, design = (_field(data, k, (str,), file) for k in ("name", "saved_at", "design"))
    pid, host = _field(data, "pid", (int,), file), _field(data, "host", (str,), file)
    boot = _field(data, "boot_id", (str, type(None)), file, optional=True)
    started = _field(data, "started", (int, type(None)), file, optional=True)
    if not 0 < pid < MAX_PID:
        raise FabricError(f"{file}: pid {pid} is not a process id")
    if started is not None and started < 0:
        raise FabricError(f"{file}: started {started} is not a start time")
    for key, value in (("document", doc), ("name", name), ("host", host)):
        if value is not None and "\0" in value:
            raise FabricError(f"{file}: {key}: a NUL character")
    try:
        saved_at = _dt.datetime.fromisoformat(when)
        saved_at = saved_at.astimezone()          # a naive time is local time; shown in local time
    except (ValueError, OverflowError, OSError):
        raise FabricError(f"{file}: saved_at: not a time: {when!r}") from None
    return Recovery(file, doc, name, saved_at, pid, host, design, boot, started)


def _untouched_for(file: Path) -> float:
    try:
        return _dt.datetime.now().timestamp() - file.stat().st_mtime
    except OSError:
        return 0.0


def pending_recoveries(folder: Path | None = None) -> list[Recovery]:
    """Recovery files left by processes that are gone, oldest first. Bad files are skipped
    (and kept); so are those of a process alive on this host, and another host's recovery
    file touched within :data:`OTHER_HOST_AFTER_S` (see the module docstring)."""
    folder = recovery_dir() if folder is None else Path(folder)
    remove_stale_in(folder)          # temp files of autosaves killed mid-write
    try:
        files = sorted(p for p in folder.iterdir() if p.suffix == ".json" and not p.name.startswith("."))
    except OSError:
        return []
    out = []
    for f in files:
        try:
            rec = read_recovery(f)
        except FabricError:
            continue
        if not rec.here():         # by the full name: short names are shared by hosts
            if _untouched_for(f) > OTHER_HOST_AFTER_S:
                out.append(rec)
        elif not process_alive(rec.pid, rec.host, rec.boot_id, rec.started):
            out.append(rec)
    return sorted(out, key=lambda r: r.saved_at)


def ask_recover(parent: QtWidgets.QWidget | None, rec: Recovery) -> bool | None:
    """True: Recover, False: Discard, None: decide later (the file stays)."""
    box = QtWidgets.QMessageBox(parent)
    box.setObjectName("recover_box")
    box.setIcon(QtWidgets.QMessageBox.Icon.Question)
    box.setWindowTitle("Recover unsaved changes")
    box.setText(rec.question())
    where = "" if rec.here() else f" on {rec.host}"
    box.setInformativeText(f"fabricviz{where} was closed without saving {rec.document or 'an untitled design'}. "
                           "Recover opens the autosaved design; Discard deletes it.")
    recover = box.addButton("Recover", QtWidgets.QMessageBox.ButtonRole.AcceptRole)
    discard = box.addButton("Discard", QtWidgets.QMessageBox.ButtonRole.DestructiveRole)
    box.addButton("Later", QtWidgets.QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(recover)
    box.exec()
    clicked = box.clickedButton()
    return True if clicked is recover else False if clicked is discard else None


class RecoveryWindow(Protocol):
    """What :func:`offer_recovery` needs of a window: its file controller, to be shown, and its
    class (``type(window)()`` opens another)."""

    @property
    def files(self) -> FileController: ...

    def show(self) -> None: ...


def offer_recovery(window: Any, folder: Path | None = None) -> list[Any]:
    """At start-up: offer every pending recovery. The first one recovered goes into ``window``
    (a :class:`RecoveryWindow`) when it shows the demo or the same file; others open in new
    windows (returned)."""
    opened: list[Any] = []
    used = False
    for rec in pending_recoveries(folder):
        answer = ask_recover(window, rec)
        if answer is None:
            continue
        if answer is False:
            try:
                rec.file.unlink()
            except OSError:
                pass
            continue
        try:
            recovered = rec.load()
        except FabricError as e:     # the file stays: nothing is lost by refusing it
            QtWidgets.QMessageBox.critical(window, "Recovery failed", str(e))
            continue
        target: RecoveryWindow = window
        doc = window.files.document
        same = rec.document is not None and doc.path is not None \
            and str(Path(doc.path).resolve()) == rec.document
        if used or not (doc.path is None or same) or not doc.stack.isClean():
            target = type(window)()
            target.show()
            opened.append(target)
        target.files.recover(rec, recovered)
        used = used or target is window
    return opened


__all__ = ["Autosave", "Recovery", "RecoveryWindow", "ask_recover", "offer_recovery", "pending_recoveries",
           "read_recovery", "recovery_dir"]
