"""Placing an NVLink rack (an NVL72) from the Parts dock: its compute trays and its
``meta["nvlink_domains"]`` entry as one undo step (:class:`AddRackCommand`)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fabricviz.model import Fabric
from fabricviz.model.nvlink import DOMAINS_KEY, placed_rack, rack_meta
from fabricviz.ui.document.commands import AddCommand

if TYPE_CHECKING:  # pragma: no cover
    from fabricviz.ui.document.editor import Editor


class AddRackCommand(AddCommand):
    """Adds the trays (``create``) and sets the domains setting to ``value``; undo drops both,
    the setting back to what it was (absent stays absent: the design comes back to the byte)."""

    def __init__(self, editor: Editor, text: str, create: Callable[[Fabric], tuple[list[int], list[int]]],
                 value: Any) -> None:
        super().__init__(editor, text, create)
        self._value = value
        self._old: Any = None

    def apply(self) -> None:
        self._old = copy.deepcopy(self.fabric.meta.get(DOMAINS_KEY))
        super().apply()
        self.fabric.set_meta(DOMAINS_KEY, self._value)

    def revert(self) -> None:
        self.fabric.set_meta(DOMAINS_KEY, self._old)
        super().revert()


def add_rack_command(editor: Editor, spec_id: str, x: float, y: float) -> AddRackCommand:
    """The command placing a rack of NVLink domain part ``spec_id`` centred on (x, y) (refused with a
    FabricError when the part has no compute tray in the catalog)."""
    f = editor.fabric
    name, names, add = placed_rack(f, spec_id, x, y)
    value = list(copy.deepcopy(f.meta.get(DOMAINS_KEY) or [])) + [rack_meta(name, spec_id, names)]
    return AddRackCommand(editor, f"Add {spec_id} {name}", lambda g: (add(g), []), value)
