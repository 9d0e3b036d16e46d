"""Errors raised by the model for refused edits and bad input.

Every refusal is a :class:`FabricError` whose message is one line naming the
place (``device:port``, ``file: path.to.field``) and the reason, so the CLI and
the GUI can show it as is. The model is unchanged whenever one is raised.
"""


class FabricError(ValueError):
    """A user-facing refusal: one line, names the place, model unchanged."""


class CatalogError(FabricError):
    """A part definition is invalid or a part id is unknown."""
