"""The main window's File menu: open (a job with progress and Cancel), save (atomic), the
unsaved-changes prompt, recent files. A mixin of :class:`~fabricviz.ui.main_window.MainWindow`
(it uses the window's document, settings, status bar and dialogs' parent)."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import Fabric, FabricError
from fabricviz.ui import layout
from fabricviz.ui.jobs import Cancelled

FILE_FILTER = ("fabricviz designs (*.json);;ibnetdiscover (*.ibnd *.txt *.out);;All files (*)")
MAX_RECENT = 8


class FileActions:
    """Open, save, recent files; see the module doc."""

    @staticmethod
    def _internal_error(path: Path, verb: str, exc: BaseException) -> str:
        """A bug while trying to ``verb`` (open, save) ``path``: the traceback is logged (stderr),
        the one-line message for the dialog is returned."""
        import logging
        logging.getLogger(__name__).error("%s %s", {"open": "opening", "save": "saving"}.get(verb, verb), path,
                                          exc_info=exc)
        return f"{path}: cannot {verb}: internal error ({type(exc).__name__}: {' '.join(str(exc).split())})"

    def _load(self, path: Path, demo: bool = False) -> bool:
        """Open ``path``; on a refusal ``load_error`` is the CLI's one-line message and nothing
        changes (a window whose first load failed stays an empty untitled design)."""
        try:
            from fabricviz.loaders import load_any
            f = self.document.jobs.run_modal(self, f"Opening {path.name}…", lambda _progress: load_any(str(path)))
        except Cancelled:
            msg = f"{path}: opening cancelled"
        except (FabricError, OSError) as exc:
            msg = str(exc) if isinstance(exc, FabricError) else f"{path}: cannot read ({exc.strerror or exc})"
        except Exception as exc:     # a reader bug: say so in the dialog, the traceback goes to stderr
            msg = self._internal_error(path, "open", exc)
        else:
            msg = None
        if msg is not None:
            self.load_error = msg
            self.statusBar().showMessage(msg)
            self._update_title()     # unchanged, or "untitled" when this was the window's first load
            return False
        self.load_error = None
        self.document.open(f, None if demo else path, path.name)
        if not demo:
            self._add_recent(path)
        self._update_title()
        self.statusBar().showMessage(f"opened {path.name}", 5000)
        return True

    def open_path(self, path: str | os.PathLike[str]) -> bool:
        if not self.maybe_save():
            return False
        if self._load(Path(path)):
            return True
        QtWidgets.QMessageBox.critical(self, "Open failed", self.load_error or f"{path}: cannot open")
        return False

    def open_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Open design", self._last_dir(), FILE_FILTER)
        if path:
            self.open_path(path)

    def new_design(self) -> None:
        if not self.maybe_save():
            return
        self.document.open(Fabric(name="untitled"), None, "untitled")
        self.view.resetTransform()
        self.view.setSceneRect(QtCore.QRectF(-600, -400, 1200, 800))
        self.view.centerOn(0, 0)
        self._update_title()

    def save(self) -> bool:
        if self.path is None or self.path.suffix.lower() != ".json":
            return self.save_as()
        return self.save_to(self.path)

    def save_as(self) -> bool:
        start = str(Path(self._last_dir()) / (Path(self.display_name).stem + ".json"))
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Save design", start,
                                                        "fabricviz designs (*.json)")
        if not path:
            return False
        if not path.lower().endswith(".json"):
            path += ".json"
        return self.save_to(Path(path))

    def save_to(self, path: Path) -> bool:
        """Write the native file (atomically: temp file + rename, done by the saver)."""
        from fabricviz.formats.native import save_fabric
        try:
            save_fabric(self.editor.fabric, path)
        except FabricError as exc:     # one line naming the file; the edits stay unsaved
            msg = str(exc)
        except OSError as exc:
            msg = f"{path}: cannot save: {exc.strerror or exc}"
        except Exception as exc:       # a writer bug: the traceback goes to stderr, never out of the slot
            msg = self._internal_error(path, "save", exc)
        else:
            msg = None
        if msg is not None:
            QtWidgets.QMessageBox.critical(self, "Save failed", msg)
            return False
        self.path = Path(path)
        self.display_name = self.path.name
        self.editor.stack.setClean()
        self._add_recent(self.path)
        self._update_title()
        self.statusBar().showMessage(f"saved {self.path}", 5000)
        return True

    # ------------------------------------------------------------------ partitions.conf
    def import_partitions(self, path: str | None = None) -> bool:
        """File ▸ Import Partitions: an OpenSM partitions.conf becomes the design's partitions, one
        undo step; a refused file (one line naming file:line) changes nothing."""
        from fabricviz.formats.partitions_conf import load
        from fabricviz.ib.partitions import META_KEY, to_meta
        if path is None:
            path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Import partitions.conf", self._last_dir(),
                                                            "OpenSM partitions (*.conf);;all files (*)")
            if not path:
                return False
        try:
            conf = load(path)
        except FabricError as exc:
            QtWidgets.QMessageBox.critical(self, "Import failed", str(exc))
            return False
        except OSError as exc:
            QtWidgets.QMessageBox.critical(self, "Import failed", f"{path}: cannot read: {exc.strerror or exc}")
            return False
        n = len(conf.merged())
        done = self.editor.set_meta(f"Import partitions from {Path(path).name} ({n} partitions)", META_KEY,
                                    to_meta(conf))
        self.statusBar().showMessage(f"{n} partitions from {path}" if done else f"{path}: the design has these "
                                     "partitions already", 5000)
        return done

    def export_partitions(self, path: str | None = None) -> bool:
        """File ▸ Export Partitions: the design's partitions as an OpenSM partitions.conf."""
        from fabricviz.formats.partitions_conf import dump
        from fabricviz.ib.partitions import design_partitions
        conf = design_partitions(self.editor.fabric)
        if conf is None:
            QtWidgets.QMessageBox.information(self, "Export partitions", "The design has no partitions "
                                              "(OpenSM would run it all in the Default partition 0x7fff).")
            return False
        if path is None:
            start = str(Path(self._last_dir()) / "partitions.conf")
            path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Export partitions.conf", start,
                                                            "OpenSM partitions (*.conf)")
            if not path:
                return False
        try:
            dump(conf, path)
        except (FabricError, OSError) as exc:
            msg = str(exc) if isinstance(exc, FabricError) else f"{path}: cannot write: {exc.strerror or exc}"
            QtWidgets.QMessageBox.critical(self, "Export failed", msg)
            return False
        self.statusBar().showMessage(f"wrote {path}", 5000)
        return True

    def maybe_save(self) -> bool:
        """Ask Save / Discard / Cancel when there are unsaved changes; False means cancel."""
        if self.editor.stack.isClean():
            return True
        B = QtWidgets.QMessageBox.StandardButton
        answer = QtWidgets.QMessageBox.warning(
            self, "Unsaved changes", f"{self.display_name} has unsaved changes. Save them?",
            B.Save | B.Discard | B.Cancel, B.Save)
        if answer == B.Save:
            return self.save()
        return answer == B.Discard

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:  # noqa: N802
        if self.maybe_save():
            layout.save(self)
            self.autosave.close()      # saved or discarded: the recovery file goes
            if self.record_dialog is not None and self.record_dialog.busy:
                self.record_dialog.cancel()        # a recording stops; its partial file goes
            self.document.close()      # running jobs are cancelled, never waited for
            if self.compare_window is not None:
                self.compare_window.close()
            event.accept()
        else:
            event.ignore()

    def _last_dir(self) -> str:
        return str(self.path.parent) if self.path else str(self.settings.value("last_dir", str(Path.home())))

    def recent_files(self) -> list[str]:
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def _add_recent(self, path: Path) -> None:
        p = str(Path(path).resolve())
        items = [p] + [r for r in self.recent_files() if r != p]
        self.settings.setValue("recent", items[:MAX_RECENT])
        self.settings.setValue("last_dir", str(Path(p).parent))
        self._update_recent()

    def _update_recent(self) -> None:
        self.recent_menu.clear()
        for r in self.recent_files():
            a = self.recent_menu.addAction(Path(r).name, lambda r=r: self.open_path(r))
            a.setToolTip(r)
        self.recent_menu.setEnabled(bool(self.recent_files()))


__all__ = ["FILE_FILTER", "FileActions", "MAX_RECENT"]
