"""The document's files: open (a job with progress and Cancel), save (atomic), the
unsaved-changes prompt, recent files, partitions.conf import/export, the discovered fabric to
compare the design with, autosave and recovery.

:class:`FileController` is a part of one window's document: the window builds it, wires its
menu entries to it and shows its :attr:`~FileController.status` messages; dialogs it asks
(file names, Save/Discard/Cancel, failures) are parented to the widget it is given.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from PySide6 import QtCore, QtWidgets

from fabricviz import loaders
from fabricviz.formats import native, partitions_conf
from fabricviz.ib.partitions import META_KEY, design_partitions, to_meta
from fabricviz.model import Fabric, FabricError
from fabricviz.ui.document.autosave import Autosave, Recovery
from fabricviz.ui.document.document import Document
from fabricviz.ui.jobs import Cancelled

FILE_FILTER = ("fabricviz designs (*.json);;ibnetdiscover (*.ibnd *.ibnetdiscover *.txt *.out);;"
               "InfiniBand discovery (*.lst *.topo *.out *.txt *.log);;All files (*)")
MAX_RECENT = 8

log = logging.getLogger(__name__)


def internal_error(path: Path, verb: str, exc: BaseException) -> str:
    """A bug while trying to ``verb`` (open, save) ``path``: the traceback is logged (stderr),
    the one-line message for the dialog is returned."""
    log.error("%s %s", {"open": "opening", "save": "saving"}.get(verb, verb), path, exc_info=exc)
    return f"{path}: cannot {verb}: internal error ({type(exc).__name__}: {' '.join(str(exc).split())})"


class FileController(QtCore.QObject):
    """Open, save, recent files, autosave of one document; see the module doc."""

    status = QtCore.Signal(str, int)      # a status-bar message and its timeout (ms, 0: until replaced)
    title_changed = QtCore.Signal()       # the document's name or path may have changed
    recent_changed = QtCore.Signal()      # :meth:`recent_files` changed
    created = QtCore.Signal()             # File ▸ New made an empty design

    def __init__(self, document: Document, settings: QtCore.QSettings, widget: QtWidgets.QWidget) -> None:
        super().__init__(document)
        self.document = document
        self.settings = settings
        self.widget = widget                # the parent of the dialogs asked
        self.load_error: str | None = None
        self.autosave: Autosave | None = None

    def start(self, path: Path, demo: bool = False) -> bool:
        """The window's first design (``demo``: an untitled copy), then autosave of its edits."""
        ok = self.load(path, demo=demo)
        self.autosave = Autosave(self.document, self.settings)
        return ok

    # ------------------------------------------------------------------ opening
    def load(self, path: Path, demo: bool = False) -> bool:
        """Open ``path``; on a refusal ``load_error`` is the CLI's one-line message and nothing
        changes (a window whose first load failed stays an empty untitled design)."""
        msg: str | None
        try:
            f = self.document.jobs.run_modal(self.widget, f"Opening {path.name}…",
                                             lambda _progress: loaders.load_any(str(path)))
        except Cancelled:
            msg = f"{path}: opening cancelled"
        except (FabricError, OSError) as exc:
            msg = str(exc) if isinstance(exc, FabricError) else f"{path}: cannot read ({exc.strerror or exc})"
        except Exception as exc:     # a reader bug: say so in the dialog, the traceback goes to stderr
            msg = internal_error(path, "open", exc)
        else:
            msg = None
        if msg is not None:
            self.load_error = msg
            self.status.emit(msg, 0)
            self.title_changed.emit()     # unchanged, or "untitled" when this was the window's first load
            return False
        self.load_error = None
        self.document.open(f, None if demo else path, path.name)
        if not demo:
            self._add_recent(path)
        self.title_changed.emit()
        self.status.emit(f"opened {path.name}", 5000)
        return True

    def open_path(self, path: str | os.PathLike[str]) -> bool:
        if not self.maybe_save():
            return False
        if self.load(Path(path)):
            return True
        QtWidgets.QMessageBox.critical(self.widget, "Open failed", self.load_error or f"{path}: cannot open")
        return False

    def open_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self.widget, "Open design", self.last_dir(), FILE_FILTER)
        if path:
            self.open_path(path)

    def new_design(self) -> None:
        if not self.maybe_save():
            return
        self.document.open(Fabric(name="untitled"), None, "untitled")
        self.created.emit()
        self.title_changed.emit()

    # ------------------------------------------------------------------ saving
    def save(self) -> bool:
        path = self.document.path
        if path is None or path.suffix.lower() != ".json":
            return self.save_as()
        return self.save_to(path)

    def save_as(self) -> bool:
        start = str(Path(self.last_dir()) / (Path(self.document.display_name).stem + ".json"))
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self.widget, "Save design", start,
                                                        "fabricviz designs (*.json)")
        if not path:
            return False
        if not path.lower().endswith(".json"):
            path += ".json"
        return self.save_to(Path(path))

    def save_to(self, path: Path) -> bool:
        """Write the native file (atomically: temp file + rename, done by the saver)."""
        msg: str | None
        try:
            native.save_fabric(self.document.fabric, path)
        except FabricError as exc:     # one line naming the file; the edits stay unsaved
            msg = str(exc)
        except OSError as exc:
            msg = f"{path}: cannot save: {exc.strerror or exc}"
        except Exception as exc:       # a writer bug: the traceback goes to stderr, never out of the slot
            msg = internal_error(path, "save", exc)
        else:
            msg = None
        if msg is not None:
            QtWidgets.QMessageBox.critical(self.widget, "Save failed", msg)
            return False
        doc = self.document
        doc.path = Path(path)
        doc.display_name = doc.path.name
        doc.stack.setClean()
        self._add_recent(doc.path)
        self.title_changed.emit()
        self.status.emit(f"saved {doc.path}", 5000)
        return True

    def maybe_save(self) -> bool:
        """Ask Save / Discard / Cancel when there are unsaved changes; False means cancel."""
        if self.document.stack.isClean():
            return True
        B = QtWidgets.QMessageBox.StandardButton
        answer = QtWidgets.QMessageBox.warning(
            self.widget, "Unsaved changes", f"{self.document.display_name} has unsaved changes. Save them?",
            B.Save | B.Discard | B.Cancel, B.Save)
        if answer == B.Save:
            return self.save()
        return answer == B.Discard

    # ------------------------------------------------------------------ partitions.conf
    def import_partitions(self, path: str | None = None) -> bool:
        """File ▸ Import Partitions: an OpenSM partitions.conf becomes the design's partitions, one
        undo step; a refused file (one line naming file:line) changes nothing."""
        if path is None:
            path, _ = QtWidgets.QFileDialog.getOpenFileName(self.widget, "Import partitions.conf", self.last_dir(),
                                                            "OpenSM partitions (*.conf);;all files (*)")
            if not path:
                return False
        try:
            conf = partitions_conf.load(path)
        except FabricError as exc:
            QtWidgets.QMessageBox.critical(self.widget, "Import failed", str(exc))
            return False
        except OSError as exc:
            QtWidgets.QMessageBox.critical(self.widget, "Import failed",
                                           f"{path}: cannot read: {exc.strerror or exc}")
            return False
        n = len(conf.merged())
        done = self.document.editor.set_meta(f"Import partitions from {Path(path).name} ({n} partitions)",
                                             META_KEY, to_meta(conf))
        self.status.emit(f"{n} partitions from {path}" if done else f"{path}: the design has these "
                         "partitions already", 5000)
        return done

    # ------------------------------------------------------------------ a discovered fabric
    def compare_discovered(self, path: str | None = None) -> bool:
        """File ▸ Compare with Discovered: read what a fabric reports (ibnetdiscover output, an ibsim
        net file, another design) and diff the design against it (the engine ``fabricviz diff``
        runs, as a job with progress and Cancel); the report goes to ``session.diff``. The design
        is not changed; a file refused is said in one line and changes nothing."""
        if path is None:
            path, _ = QtWidgets.QFileDialog.getOpenFileName(self.widget, "Compare with discovered fabric",
                                                            self.last_dir(), FILE_FILTER)
            if not path:
                return False
        from fabricviz.check.diff import diff_fabrics
        design, revision = self.document.snapshot(), self.document.revision
        where = Path(path)
        try:
            report = self.document.jobs.run_modal(self.widget, f"Comparing with {where.name}…",
                                                  lambda _p: diff_fabrics(design, loaders.load_any(str(where))))
        except Cancelled:
            self.status.emit("comparison cancelled", 5000)
            return False
        except (FabricError, OSError) as exc:
            msg = str(exc) if isinstance(exc, FabricError) else f"{where}: cannot read ({exc.strerror or exc})"
            QtWidgets.QMessageBox.critical(self.widget, "Compare failed", msg)
            return False
        except Exception as exc:     # a reader or engine bug: said, the traceback goes to stderr
            QtWidgets.QMessageBox.critical(self.widget, "Compare failed", internal_error(where, "compare", exc))
            return False
        self.document.session.diff.show(report, where.name, revision)
        self.status.emit(f"{where.name}: {report.summary()}", 10000)
        return True

    def export_partitions(self, path: str | None = None) -> bool:
        """File ▸ Export Partitions: the design's partitions as an OpenSM partitions.conf."""
        conf = design_partitions(self.document.fabric)
        if conf is None:
            QtWidgets.QMessageBox.information(self.widget, "Export partitions", "The design has no partitions "
                                              "(OpenSM would run it all in the Default partition 0x7fff).")
            return False
        if path is None:
            start = str(Path(self.last_dir()) / "partitions.conf")
            path, _ = QtWidgets.QFileDialog.getSaveFileName(self.widget, "Export partitions.conf", start,
                                                            "OpenSM partitions (*.conf)")
            if not path:
                return False
        try:
            partitions_conf.dump(conf, path)
        except (FabricError, OSError) as exc:
            msg = str(exc) if isinstance(exc, FabricError) else f"{path}: cannot write: {exc.strerror or exc}"
            QtWidgets.QMessageBox.critical(self.widget, "Export failed", msg)
            return False
        self.status.emit(f"wrote {path}", 5000)
        return True

    # ------------------------------------------------------------------ recovery
    def recover(self, rec: Recovery, recovered: Fabric | None = None) -> bool:
        """Open ``rec`` as a modified document: the file on disk (if any) is the clean state, the
        recovered design one undo step on top of it; with no file on disk no state is clean (the
        window stays modified). The recovery file is then this document's own (deleted once
        saved). FabricError if the autosaved design cannot be read."""
        if recovered is None:
            recovered = rec.load()
        doc, editor = self.document, self.document.editor
        on_disk_path = Path(rec.document) if rec.document is not None else None
        on_disk = on_disk_path is not None and on_disk_path.is_file() and self.load(on_disk_path)
        if not on_disk:
            editor.stack.clear()
            editor.set_fabric(Fabric(name=recovered.name))
            doc.path = on_disk_path
            doc.display_name = rec.name
            self.load_error = None
        editor.replace(recovered, f"Recover autosaved changes ({rec.stamp()})")
        if not on_disk:
            editor.stack.resetClean()   # no saved state: no undo makes it "clean" (and lost)
        self.title_changed.emit()
        auto = self.autosave
        if auto is not None:       # the file is the only copy: it becomes this document's, rewritten now
            auto.discard()
            auto.path = rec.file
            auto.tick()
        self.status.emit(f"recovered {rec.name} (autosaved {rec.stamp()})", 10000)
        return True

    def close(self) -> None:
        """The window closes normally (saved or discarded): the recovery file goes."""
        if self.autosave is not None:
            self.autosave.close()

    # ------------------------------------------------------------------ recent files
    def last_dir(self) -> str:
        path = self.document.path
        return str(path.parent) if path else str(self.settings.value("last_dir", str(Path.home())))

    def recent_files(self) -> list[str]:
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in value] if isinstance(value, (list, tuple)) else []

    def _add_recent(self, path: Path) -> None:
        p = str(Path(path).resolve())
        items = [p] + [r for r in self.recent_files() if r != p]
        self.settings.setValue("recent", items[:MAX_RECENT])
        self.settings.setValue("last_dir", str(Path(p).parent))
        self.recent_changed.emit()


__all__ = ["FILE_FILTER", "FileController", "MAX_RECENT", "internal_error"]
