"""The What-if dock's table of trials (or of ranked single failures) and its one-line description of a row.

What failed comes first: it takes the width the numbers leave (the dock is ~340 px wide), elided in
the middle (a cable keeps both ends), the row's tooltip listing it all; the numeric columns have
short headers whose tooltips say them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6 import QtCore

from fabricviz.sim.whatif import TrialResult
from fabricviz.ui.widgets.table_model import ColumnsModel

#: The table's columns: what failed first (it takes the width left), short headers (tooltips say them).
TRIAL_COLUMNS = ("failed", "K", "trial", "rel.", "cut", "degr.")
WORST_COLUMNS = ("failed", "rank", "deliv.", "rel.", "cut", "degr.")
HEADER_TIPS = {"failed": "what failed (the row's tooltip lists it all)", "K": "elements failed at once",
               "trial": "the trial's number within its K", "rank": "costliest single failure first",
               "deliv.": "delivered: the aggregate rate / the intact design's (cut-off hosts deliver nothing)",
               "rel.": "relative: the metric / the intact design's", "cut": "hosts cut off (lost every path)",
               "degr.": "hosts degraded (lost some of their NICs' paths)"}
#: Failed elements named in the one-line description before "… and N more".
NAMED = 3


def describe(result: TrialResult, rank: int | None = None) -> str:
    """``trial 7 (K=1): spine03 down; 0 hosts cut off, 4 degraded (4 NICs)`` (``#3: …`` for a ranked
    failure): hosts that lost every path, hosts that lost some of their NICs, the NICs cut."""
    names = list(result.failed[:NAMED])
    more = len(result.failed) - len(names)
    what = ", ".join(names) + (f" and {more} more" if more else "")
    cut, deg, nics = len(result.disconnected), len(result.degraded), result.nics_cut
    head = f"#{rank}" if rank is not None else f"trial {result.index} (K={result.k})"
    text = f"{head}: {what} down; {cut} host{'s' if cut != 1 else ''} cut off"
    if nics:
        text += f", {deg} degraded ({nics} NIC{'s' if nics != 1 else ''})"
    return text


class TrialsModel(ColumnsModel):
    """The trials (or ranked failures) of the run shown."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(TRIAL_COLUMNS, parent)
        self.rows: list[TrialResult] = []
        self.worst = False

    def items(self) -> Sequence[Any]:
        return self.rows

    def headerData(self, section: int, orientation: QtCore.Qt.Orientation,  # noqa: N802
                   role: int = QtCore.Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == QtCore.Qt.Orientation.Horizontal and role == QtCore.Qt.ItemDataRole.ToolTipRole:
            return HEADER_TIPS.get(self.columns[section])
        return super().headerData(section, orientation, role)

    def set_rows(self, rows: list[TrialResult], worst: bool) -> None:
        self.beginResetModel()
        self.rows, self.worst = rows, worst
        self.columns = WORST_COLUMNS if worst else TRIAL_COLUMNS
        self.endResetModel()

    def data(self, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
             role: int = QtCore.Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        r, c = self.rows[index.row()], index.column()
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            return (f"{', '.join(r.failed)}\nmetric {r.metric_gbps:.4g} (relative {r.relative:.3f}), "
                    f"delivered {r.delivered:.3f}\ncut off: {', '.join(r.disconnected) or 'none'}"
                    f"\ndegraded: {', '.join(r.degraded) or 'none'} ({r.nics_cut} NICs cut)")
        if role == QtCore.Qt.ItemDataRole.TextAlignmentRole and self.columns[c] != "failed":
            return int(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
        if role != QtCore.Qt.ItemDataRole.DisplayRole:
            return None
        if self.worst:
            return (", ".join(r.failed), str(index.row() + 1), f"{r.delivered:.3f}", f"{r.relative:.3f}",
                    str(len(r.disconnected)), str(len(r.degraded)))[c]
        return (", ".join(r.failed), str(r.k), str(r.index), f"{r.relative:.3f}", str(len(r.disconnected)),
                str(len(r.degraded)))[c]


__all__ = ["HEADER_TIPS", "NAMED", "TRIAL_COLUMNS", "TrialsModel", "WORST_COLUMNS", "describe"]
