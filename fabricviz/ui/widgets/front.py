"""A dock brought in front beside a lesson's step, or hidden (presentation mode)."""

from __future__ import annotations

from PySide6 import QtWidgets


def put_in_front(widget: QtWidgets.QWidget, on: bool) -> None:
    """Shown and raised (``on``), or hidden: what a session's ``present_requested`` asks of a dock."""
    if on:
        widget.show()
        widget.raise_()
    else:
        widget.hide()


__all__ = ["put_in_front"]
