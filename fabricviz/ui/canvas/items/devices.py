"""Devices on the canvas: one C++ rectangle item per device (no Python paint), the item
data roles, the kind codes, and the zoom levels below which overlay text and server contents
hide (device names never hide by zoom: :mod:`fabricviz.ui.canvas.items.labels`)."""

from __future__ import annotations

from PySide6 import QtWidgets

from fabricviz.ui.canvas import theme as th

DEVICE_ROLE = 0   # item.data(DEVICE_ROLE): device id
PORT_ROLE = 1     # port markers: port id
ROLE_KIND = 2     # "device" | "label" | "port" | "panel"

K_SERVER, K_GPU, K_NIC, K_IBSW, K_ETHSW = range(5)
#: Zoom (view scale) below which overlay text (LID labels), then server contents, are hidden.
LABEL_ZOOM = 0.55
CHILD_ZOOM = 0.2


def device_size(kind: int, nports: int) -> tuple[float, float]:
    if kind in (K_IBSW, K_ETHSW):
        return th.switch_width(nports), th.SWITCH_H
    return th.CHILD_W, th.CHILD_H


class DeviceItem(QtWidgets.QGraphicsRectItem):
    """A device drawn by Qt's C++ rectangle painter; ``data(0)`` is its id."""


__all__ = ["CHILD_ZOOM", "DEVICE_ROLE", "DeviceItem", "K_ETHSW", "K_GPU", "K_IBSW", "K_NIC", "K_SERVER",
           "LABEL_ZOOM", "PORT_ROLE", "ROLE_KIND", "device_size"]
