"""The SuperPOD tab of the generator dialog: the preview is the generator's own plan, a size the
rule cannot build is refused inline, and OK builds the design in one undo step."""

from __future__ import annotations

from PySide6 import QtCore

from fabricviz.ui.dialogs.generator import GeneratorDialog


def test_superpod_tab_previews_refuses_and_builds(make_window, qtbot, monkeypatch):
    w = make_window()
    demo = w.fabric.signature()

    def run(dlg):
        dlg.tabs.setCurrentIndex(GeneratorDialog.SUPERPOD_TAB)
        assert dlg.tabs.tabText(GeneratorDialog.SUPERPOD_TAB) == "SuperPOD"
        dlg.sp_system.setCurrentText("dgx-b200")
        dlg.sp_units.setValue(16)
        assert dlg.preview.text() == ("512 DGX · 4,096 GPUs · 128 leaves · 128 spines · 64 cores (QM9700) · "
                                      "cables node–leaf 4,096, leaf–spine 4,096, spine–core 4,096")
        dlg.sp_units.setValue(12)
        assert dlg.error.text() == ("Scalable units 12: DGX SuperPOD with DGX B200 on 64-port switches cannot be sized "
                                    "(no even spread of 32 leaf uplinks); it takes 1-8, 16, 32, 64 SUs")
        assert not dlg.ok_button.isEnabled()
        dlg.sp_system.setCurrentText("dgx-b300-xdr")
        dlg.sp_fabric.setCurrentText("roce")
        assert "built on ib only" in dlg.error.text() and not dlg.ok_button.isEnabled()
        dlg.sp_fabric.setCurrentText("ib")
        dlg.sp_system.setCurrentText("dgx-h100")
        dlg.sp_units.setValue(1)
        assert dlg.preview.text().startswith("31 DGX · 248 GPUs · 8 leaves · 4 spines")
        qtbot.mouseClick(dlg.ok_button, QtCore.Qt.MouseButton.LeftButton)
        return 1 if dlg.result is not None else 0

    monkeypatch.setattr(GeneratorDialog, "exec", run)
    w.acts["generate"].trigger()
    f = w.fabric
    assert f.counts() == {"server": 32, "gpu": 248, "nic": 252, "ib_switch": 12, "eth_switch": 0, "cables": 508}
    assert f.meta["generator"] == "superpod" and f.find("su1-ufm") is not None
    w.acts["undo"].trigger()
    assert w.fabric.signature() == demo
