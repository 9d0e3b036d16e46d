"""File ▸ Export Switch Config: the design's lossless RoCE settings as configuration for real
switch operating systems (SONiC ``config_db.json`` fragments, NVIDIA Cumulus NVUE YAML).

The dialog takes the OS, the lossless priorities (default: the design's ``meta.roce``, as the
CLI), the DSCP of RoCE traffic on the first of them and the output folder,
then runs :func:`fabricviz.formats.switch_config.write_switch_configs` on a snapshot of the
design in the document's job runner (progress, Cancel, the UI never waits). The status line
says what was written; a refusal (an InfiniBand design, a priority that is not lossless, a
folder that cannot be written) is shown in one line and the design is not touched.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtWidgets

from fabricviz.model import FabricError

OSES = ("sonic", "cumulus")
OS_TEXT = {"sonic": "SONiC (config_db.json per switch)", "cumulus": "NVIDIA Cumulus Linux (NVUE YAML per switch)"}
JOB = "export-switch-config"


class PriorityEdit(QtWidgets.QLineEdit):
    """Lossless priorities as ``3`` or ``3,4``; ``value``/``setValue`` as a QSpinBox for one."""

    def priorities(self) -> tuple[int, ...]:
        """The priorities typed (ValueError, one line, when they are not numbers)."""
        from fabricviz.ethernet.roce_meta import parse_priorities
        return parse_priorities(self.text().replace(" ", ""), "priorities") or ()

    def value(self) -> int:
        return self.priorities()[0]

    def setValue(self, priority: int) -> None:  # noqa: N802 (QSpinBox's name)
        self.setText(str(priority))


def export_job(fabric: Any, os_name: str, out_dir: str, priority: Any, dscp: int) -> list[Path]:
    """The job: write the files (a ValueError from the writer becomes its one-line refusal)."""
    from fabricviz.formats.switch_config import write_switch_configs
    try:
        return list(write_switch_configs(fabric, os_name, out_dir, priority=priority, dscp=dscp))
    except ValueError as e:
        raise FabricError(str(e)) from None


class ExportSwitchConfigDialog(QtWidgets.QDialog):
    """OS, priority, DSCP, folder; Export runs the job and reports in ``status``."""

    finished_export = QtCore.Signal(str, bool)     # what was said, whether files were written

    def __init__(self, document: Any, start_dir: str = "", parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("export_switch_config_dialog")
        self.setWindowTitle("Export switch configuration")
        self.setMinimumWidth(560)
        self.document = document
        self.written: list[Path] = []
        lay = QtWidgets.QVBoxLayout(self)
        form = QtWidgets.QFormLayout()
        self.os_box = QtWidgets.QComboBox(self)
        self.os_box.setObjectName("switch_config_os")
        for o in OSES:
            self.os_box.addItem(OS_TEXT[o], o)
        form.addRow("Switch OS", self.os_box)
        self.priority = PriorityEdit(self._lossless_priorities(), self)
        self.priority.setObjectName("switch_config_priority")
        self.priority.setToolTip("the 802.1p priorities (traffic classes) with PFC on for RoCE, e.g. 3 or 3,4")
        form.addRow("Lossless priorities (PFC)", self.priority)
        self.dscp = QtWidgets.QSpinBox(self)
        self.dscp.setObjectName("switch_config_dscp")
        self.dscp.setRange(0, 63)
        self.dscp.setValue(26)
        self.dscp.setToolTip("the DSCP RoCE traffic is marked with (26: the NVIDIA default), mapped to the first "
                             "lossless priority; each other lossless priority p gets AF p1 = 8p+2")
        form.addRow("RoCE DSCP", self.dscp)
        row = QtWidgets.QHBoxLayout()
        self.folder = QtWidgets.QLineEdit(start_dir, self)
        self.folder.setObjectName("switch_config_folder")
        row.addWidget(self.folder, 1)
        browse = QtWidgets.QPushButton("Browse…", self)
        browse.clicked.connect(self._browse)
        row.addWidget(browse)
        form.addRow("Output folder", row)
        lay.addLayout(form)
        self.status = QtWidgets.QLabel("", self)
        self.status.setObjectName("switch_config_status")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        self.progress = QtWidgets.QProgressBar(self)
        self.progress.setRange(0, 0)
        self.progress.setVisible(False)
        lay.addWidget(self.progress)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close, self)
        self.export_button = buttons.addButton("Export", QtWidgets.QDialogButtonBox.ButtonRole.ActionRole)
        self.export_button.setObjectName("switch_config_export")
        self.export_button.clicked.connect(lambda: self.export())
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)

    def _lossless_priorities(self) -> str:
        from fabricviz.ethernet.roce_meta import DEFAULT_PRIORITIES
        try:
            prios = self.document.fabric.settings.roce.priorities
        except ValueError:
            prios = DEFAULT_PRIORITIES
        return ",".join(map(str, prios))

    def _browse(self) -> None:
        path = QtWidgets.QFileDialog.getExistingDirectory(self, "Output folder", self.folder.text())
        if path:
            self.folder.setText(path)

    @property
    def running(self) -> bool:
        return self.document.jobs.running(JOB)

    def export(self) -> bool:
        """Start the export job (False, with the reason, when the folder is not given)."""
        out = self.folder.text().strip()
        if not out:
            self._say("choose an output folder first", False)
            return False
        try:
            prios = self.priority.priorities()
        except ValueError as e:
            self._say(f"refused: {e}", False)
            return False
        os_name = str(self.os_box.currentData())
        design = self.document.snapshot()
        args = (os_name, out, prios, self.dscp.value())
        self.export_button.setEnabled(False)
        self.progress.setVisible(True)
        self.status.setText(f"writing {os_name} configuration to {out}…")
        self.document.jobs.submit(JOB, lambda _progress: export_job(design, *args),
                                  on_done=lambda paths: self._done(paths, os_name, out),
                                  on_error=lambda msg: self._say(f"refused: {msg}", False), keep_stale=True)
        return True

    def _done(self, paths: list[Path], os_name: str, out: str) -> None:
        self.written = list(paths)
        nics = sum(p.name.endswith(".nic.sh") for p in self.written)
        self._say(f"wrote {len(self.written)} files to {out}: {len(self.written) - nics} {os_name} switch "
                  f"file(s), {nics} NIC script(s)", True)

    def _say(self, text: str, ok: bool) -> None:
        self.export_button.setEnabled(True)
        self.progress.setVisible(False)
        self.status.setText(text)
        self.status.setStyleSheet("" if ok else "color: #b3261e;")
        self.finished_export.emit(text, ok)

    def reject(self) -> None:
        self.document.jobs.cancel(JOB)
        super().reject()


def open_export_switch_config(window: Any) -> ExportSwitchConfigDialog:
    """File ▸ Export Switch Config… (non-modal; the window's status bar repeats the outcome)."""
    start = str(Path(window.files.last_dir()) / "switch-config")
    dlg = ExportSwitchConfigDialog(window.document, start, window)
    dlg.finished_export.connect(lambda text, _ok: window.statusBar().showMessage(text, 10000))
    dlg.open()
    return dlg


__all__ = ["ExportSwitchConfigDialog", "export_job", "open_export_switch_config"]
