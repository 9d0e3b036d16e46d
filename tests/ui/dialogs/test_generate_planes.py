"""The SuperPOD tab's Planes box: a twin-plane DGX B300 previewed from the generator's own plan,
planes the RA does not build refused inline, OK builds both planes in one undo step."""

from __future__ import annotations

from PySide6 import QtCore

from fabricviz.ui.dialogs.generator import GeneratorDialog


def test_superpod_planes_preview_refuse_build(make_window, qtbot, monkeypatch):
    w = make_window()
    demo = w.fabric.signature()

    def run(dlg):
        dlg.tabs.setCurrentIndex(GeneratorDialog.SUPERPOD_TAB)
        dlg.sp_system.setCurrentText("dgx-h100")
        dlg.sp_planes.setValue(2)
        # the dialog's own field, where the CLI names its option (--planes 2: …)
        assert dlg.error.text() == ("Planes 2: the DGX SuperPOD with DGX H100 RA builds one plane "
                                    "(multi-plane: dgx-b300, dgx-b300-xdr)") and not dlg.ok_button.isEnabled()
        dlg.sp_system.setCurrentText("dgx-b300")
        dlg.sp_planes.setValue(4)
        assert dlg.error.text() == "Planes 4: a ConnectX-8 port splits into 2 planes"
        dlg.sp_planes.setValue(2)
        dlg.sp_system.setCurrentText("dgx-b300")
        dlg.sp_units.setValue(8)
        assert dlg.preview.text() == ("512 DGX · 4,096 GPUs · 128 leaves · 64 spines (Q3400) · 2 planes · "
                                      "links node–leaf 8,192, leaf–spine 8,192")
        dlg.sp_fabric.setCurrentText("roce")            # the Spectrum-X RA: SN5600 at 128 × 400GbE
        assert dlg.preview.text() == ("512 DGX · 4,096 GPUs · 128 leaves · 64 spines (SN5600-2x400GbE) · 2 planes · "
                                      "links node–leaf 8,192, leaf–spine 8,192 · cables node–leaf 4,096, "
                                      "leaf–spine 4,096 (one per SN5600 cage)")
        dlg.sp_fabric.setCurrentText("ib")
        dlg.sp_units.setValue(1)
        qtbot.mouseClick(dlg.ok_button, QtCore.Qt.MouseButton.LeftButton)
        return 1 if dlg.result is not None else 0

    monkeypatch.setattr(GeneratorDialog, "exec", run)
    w.acts["generate"].trigger()
    f = w.fabric
    assert f.counts() == {"server": 64, "gpu": 512, "nic": 512, "ib_switch": 24, "eth_switch": 0, "cables": 2048}
    assert [p.name for p in f.settings.planes.planes] == ["plane1", "plane2"]
    w.acts["undo"].trigger()
    assert w.fabric.signature() == demo
