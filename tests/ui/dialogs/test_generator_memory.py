"""The generator dialog shows every tab's title whole and remembers the last values generated,
tab by tab (issue 29: tabs cut to "Torus / rin" behind scroll arrows; values forgotten)."""

from __future__ import annotations

import pytest
from PySide6 import QtWidgets

from fabricviz.ui.dialogs.generator import GeneratorDialog
from fabricviz.ui.document.settings import settings

pytestmark = pytest.mark.gui


def shown(qtbot):
    d = GeneratorDialog()
    qtbot.addWidget(d)
    d.show()
    qtbot.waitExposed(d)
    return d


def test_every_tab_title_shows_whole(qtbot):
    d = shown(qtbot)
    bar = d.tabs.tabBar()
    assert [bar.tabText(i) for i in range(bar.count())] == ["Fat tree", "Leaf-spine", "Rail-optimized",
                                                            "Torus / ring", "Dragonfly", "SuperPOD",
                                                            "NVL72 racks"]
    for i in range(bar.count()):                 # each tab is as wide as its title needs, inside the bar
        assert bar.tabRect(i).width() >= bar.tabSizeHint(i).width()
        assert bar.tabRect(i).right() < bar.width()
    assert not [b for b in bar.findChildren(QtWidgets.QToolButton) if b.isVisible()]   # no scroll arrows


def test_the_last_values_generated_come_back_per_tab(qtbot):
    d = shown(qtbot)
    d.tabs.setCurrentIndex(3)                    # Torus / ring: a 3-D torus, 2 hosts, RoCE, 800GbE
    d.to_dims.setText("3x3x3")
    d.to_hosts.setValue(2)
    d.to_fabric.setCurrentText("roce")
    d.to_speed.setText("400GbE")
    d.tabs.setCurrentIndex(0)                    # the fat tree tab, edited but not generated from
    d.ft_radix.setValue(16)
    d.ft_levels.setValue(3)
    d.tabs.setCurrentIndex(3)
    assert d.error.text() == ""
    with qtbot.waitSignal(d.accepted, timeout=30_000):
        d.ok_button.click()
    assert d.result is not None and d.result.name.startswith("torus")
    s = settings()
    assert s.value("generator/tab") == "Torus / ring" and s.value("generator/Torus / ring/to_dims") == "3x3x3"

    again = shown(qtbot)
    assert again.tabs.currentIndex() == 3
    assert (again.to_dims.text(), again.to_hosts.value(), again.to_fabric.currentText(),
            again.to_speed.text()) == ("3x3x3", 2, "roce", "400GbE")
    assert (again.ft_radix.value(), again.ft_levels.value()) == (16, 3)
    assert again.ft_switch.currentText() == d.ft_switch.currentText()
    assert again.preview.text() == d.preview.text()
    # a stored value a field cannot take leaves the default
    s.setValue("generator/Fat tree/ft_radix", "many")
    s.setValue("generator/Leaf-spine/ls_switch", "a part no catalog has")
    third = shown(qtbot)
    assert third.ls_switch.currentText() == "automatic (by port count)"
    assert third.ft_radix.value() == 64 and third.ft_levels.value() == 3        # the default radix
