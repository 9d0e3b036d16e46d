"""The NVL72 racks tab of the generator dialog (fabricviz/ui/dialogs/generator_nvl72.py): its preview is
the generator's plan, a size or partition the generator refuses is refused inline, OK builds the
design in one undo step; a file written by ``fabricviz generate nvl72`` opens with its racks."""

from __future__ import annotations

import pytest
from PySide6 import QtCore

from fabricviz.cli import main
from fabricviz.ui.dialogs.generator import GeneratorDialog

pytestmark = pytest.mark.gui


def test_nvl72_tab_previews_refuses_and_builds(make_window, qtbot, monkeypatch):
    w = make_window()
    demo = w.fabric.signature()

    def run(dlg):
        dlg.tabs.setCurrentIndex(GeneratorDialog.NVL72_TAB)
        assert dlg.tabs.tabText(GeneratorDialog.NVL72_TAB) == "NVL72 racks"
        tab = dlg.nvl72
        tab.racks.setValue(8)
        assert dlg.preview.text() == ("8 racks · 144 compute trays · 576 GPUs · 32 leaves · 9 spines (QM9700) · "
                                      "cables tray–leaf 576, leaf–spine 576")
        tab.racks.setValue(65)
        assert "at most 64 racks" in dlg.error.text() and not dlg.ok_button.isEnabled()
        tab.system.setCurrentText("gb300")
        assert dlg.preview.text().startswith("65 racks · 1,170 compute trays · 4,680 GPUs · 68 leaves · 36 spines")
        tab.racks.setValue(2)
        tab.partition.setValue(20)
        assert "a multiple of 4 (whole compute trays) that divides 72" in dlg.error.text()
        tab.partition.setValue(36)
        assert dlg.preview.text() == ("2 racks · 36 compute trays · 144 GPUs · 4 leaves · 2 spines (Q3400) · "
                                      "2 NVLink partitions per rack · cables tray–leaf 144, leaf–spine 288")
        qtbot.mouseClick(dlg.ok_button, QtCore.Qt.MouseButton.LeftButton)
        return 1 if dlg.result is not None else 0

    monkeypatch.setattr(GeneratorDialog, "exec", run)
    w.acts["generate"].trigger()
    f = w.fabric
    assert f.counts() == {"server": 36, "gpu": 144, "nic": 144, "ib_switch": 6, "eth_switch": 0, "cables": 432}
    assert f.meta["generator"] == "nvl72" and len(f.meta["nvlink_partitions"]) == 4
    w.acts["undo"].trigger()
    assert w.fabric.signature() == demo


def test_a_generated_file_opens_with_its_racks_collapsed(make_window, tmp_path, capsys):
    path = tmp_path / "nvl72.json"
    assert main(["generate", "nvl72", "--racks", "3", "-o", str(path)]) == 0
    w = make_window(str(path))
    scene = w.scene
    assert w.fabric.counts()["server"] == 54
    layer = scene.nvlink
    assert [d.name for d in layer.domains] == ["rack01", "rack02", "rack03"]
    assert not any(layer.is_open(d.name) for d in layer.domains)
