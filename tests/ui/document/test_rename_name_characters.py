"""A rename or a new device with a control or bidi character in its name is refused in the GUI
with one line, and nothing is pushed on the undo stack (issue 28; model/names.py decides)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("odd", ["leaf\x1b[31m", "spine\u202e", "a\u2028b"])
def test_rename_refused_changes_nothing(make_window, odd):
    w = make_window()
    ed, f = w.editor, w.fabric
    got = []
    ed.message.connect(lambda text, refusal: got.append(text) if refusal else None)
    before, depth = f.signature(), ed.stack.count()
    assert ed.rename(f.find("leaf01"), odd) is False
    assert f.signature() == before and ed.stack.count() == depth
    assert len(got) == 1 and got[0].startswith("bad device name '") and got[0].isprintable()
    assert ed.rename(f.find("leaf01"), "leaf-x") is True and f.find("leaf-x") is not None
