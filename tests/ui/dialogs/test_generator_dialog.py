"""The generator dialog offers the catalog's real switch parts, the radix follows the part, a
custom radix gives a hypothetical part, and refusals are worded with the dialog's field labels."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtWidgets

from fabricviz.ui.dialogs.generator import CUSTOM_RADIX, GeneratorDialog


@pytest.fixture
def dialog(qtbot):
    d = GeneratorDialog()
    qtbot.addWidget(d)
    d.show()
    qtbot.waitExposed(d)
    return d


def items(combo: QtWidgets.QComboBox) -> list[str]:
    return [combo.itemText(i) for i in range(combo.count())]


def pick(qtbot, combo: QtWidgets.QComboBox, text: str) -> None:
    """Choose ``text`` in ``combo`` from the keyboard, as a user would."""
    combo.setFocus()
    combo.setCurrentIndex(0)
    while combo.currentText() != text:
        before = combo.currentIndex()
        qtbot.keyClick(combo, QtCore.Qt.Key.Key_Down)
        assert combo.currentIndex() != before, f"{text!r} not in {items(combo)}"


def test_lists_the_parts_of_the_fabric_technology(qtbot, dialog):
    # InfiniBand: the bundled Quantum/Switch-IB parts, fewest ports first, with the data rate
    assert items(dialog.ft_switch) == ["SB7800 — 36 × 100G", "QM8700 — 40 × 200G", "QM9700 — 64 × 400G",
                                       "Q3400 — 144 × 800G", "Q3450 — 144 × 800G", CUSTOM_RADIX]
    assert dialog.ft_switch.currentText() == "QM9700 — 64 × 400G"
    assert dialog.ft_radix.value() == 64 and dialog.part_note.text() == "Switches: QM9700"
    # RoCE: the Ethernet switches; the 64-port SN5400 keeps the radix of the QM9700 chosen before
    pick(qtbot, dialog.ft_fabric, "roce")
    assert items(dialog.ft_switch) == ["SN2700 — 32 × 100G", "SN3700 — 32 × 200G", "SN4700 — 32 × 400G", "SN5400 — 64 × 400G",
                                       "SN5600 — 64 × 800G", CUSTOM_RADIX]
    assert dialog.ft_switch.currentText() == "SN5400 — 64 × 400G" and dialog.ft_radix.value() == 64


def test_picking_a_part_sets_the_radix_and_the_design_uses_it(qtbot, dialog):
    pick(qtbot, dialog.ft_switch, "QM8700 — 40 × 200G")
    assert dialog.ft_radix.value() == 40
    # 2 levels of radix 40 at 1:1: 40 leaves × 20 hosts, 20 spines
    assert dialog.preview.text() == ("800 hosts · 40 leaves · 20 spines · 60 switches · 1,600 cables · "
                                     "blocking 1:1 (max 800 hosts)")
    assert dialog.part_note.text() == "Switches: QM8700"
    qtbot.mouseClick(dialog.ok_button, QtCore.Qt.MouseButton.LeftButton)
    f = dialog.result
    assert f is not None and dialog.result is f
    parts = {f.part_id_of(int(d)) for d in f.device_ids("ib_switch")}
    assert parts == {"QM8700"} and len(f.device_ids("ib_switch")) == 60
    assert {str(f.port_rate(int(p))) for p in f.device(f.find("leaf01")).port_ids} == {"4xHDR"}


def test_custom_radix_builds_a_hypothetical_part(qtbot, dialog):
    pick(qtbot, dialog.ft_switch, CUSTOM_RADIX)
    dialog.ft_radix.setFocus()
    dialog.ft_radix.selectAll()
    qtbot.keyClicks(dialog.ft_radix, "16")
    assert dialog.ft_radix.value() == 16 and dialog.ft_switch.currentText() == CUSTOM_RADIX
    assert dialog.part_note.text() == ("Switches: QM9700-R16 (hypothetical) — no real part has this radix: "
                                       "unpriced in the BOM until you set a price")
    qtbot.mouseClick(dialog.ok_button, QtCore.Qt.MouseButton.LeftButton)
    f = dialog.result
    part = f.catalog.get("QM9700-R16")
    assert (part.hypothetical, part.ports, part.price_usd) == (True, 16, 0.0)
    assert {f.part_id_of(int(d)) for d in f.device_ids("ib_switch")} == {"QM9700-R16"}


@pytest.mark.parametrize("tab,setup,message", [
    (0, lambda d: d.ft_blocking.setText("two to one"), "Blocking (down:up) 'two to one': use DOWN:UP, e.g. 2:1"),
    (0, lambda d: d.ft_parallel.setValue(3),
     "Parallel links 3: the 32 uplinks of a leaf cannot be split into groups of 3 links per spine"),
    (1, lambda d: d.ls_uplinks.setValue(6),
     "Uplinks per leaf 6: each leaf needs the same number of links to each of the 4 spines, so it must be "
     "a multiple of 4"),
    (1, lambda d: d.ls_pods.setValue(2), "Pods 2: several pods need Super-spines (at least 1) to join them"),
    (2, lambda d: d.rail_units.setValue(3),
     "Scalable units 3: 12 spines cannot share the 32 uplinks of a leaf evenly"),
])
def test_bad_values_are_refused_in_the_dialogs_words(dialog, tab, setup, message):
    dialog.tabs.setCurrentIndex(tab)
    setup(dialog)
    assert dialog.error.text() == message and "--" not in dialog.error.text()
    assert not dialog.ok_button.isEnabled() and dialog.preview.text() == ""


def test_leaf_spine_uses_the_chosen_part(qtbot, dialog):
    dialog.tabs.setCurrentIndex(1)
    pick(qtbot, dialog.ls_switch, "SN5400 — 64 × 400G")
    qtbot.mouseClick(dialog.ok_button, QtCore.Qt.MouseButton.LeftButton)
    f = dialog.result
    assert {f.part_id_of(int(d)) for d in f.device_ids("eth_switch")} == {"SN5400"}
    assert len(f.device_ids("eth_switch")) == 12           # 8 leaves + 4 spines


def test_typing_a_radix_picks_the_part_that_has_it(qtbot, dialog):
    dialog.ft_radix.setValue(36)                              # the SB7800's radix
    assert dialog.ft_switch.currentText() == "SB7800 — 36 × 100G"
    dialog.ft_radix.setValue(8)                               # no part: custom radix, hypothetical
    assert dialog.ft_switch.currentText() == CUSTOM_RADIX
    assert dialog.part_note.text().startswith("Switches: QM9700-R8 (hypothetical)")
    dialog.ft_radix.setValue(64)
    assert dialog.ft_switch.currentText() == "QM9700 — 64 × 400G"
