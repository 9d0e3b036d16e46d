"""Errors raised by the model for refused edits and bad input.

Every refusal is a :class:`FabricError` whose message is one line naming the
place (``device:port``, ``file: path.to.field``) and the reason, so the CLI and
the GUI can show it as is. The model is unchanged whenever one is raised.
"""


class FabricError(ValueError):
    """A user-facing refusal: one line, names the place, model unchanged."""


class CatalogError(FabricError):
    """A part definition is invalid or a part id is unknown."""


#: How a message names a parameter in words where that is not its key (the simulator's).
PARAM_WORDS = {"duration": "the duration", "over": "ranks over"}


class ParamError(FabricError):
    """A parameter value an engine refuses: ``param`` (its key: routing, duration, blocking,
    radix, …), the ``value`` given and the ``problem`` in words.

    The engines are called from the GUI and the CLI alike, so the message names the parameter
    in words (``label``, default :data:`PARAM_WORDS` or the key) — ``words`` replaces the
    whole sentence where the engine has its own; :meth:`with_flag` gives the same refusal
    naming the command-line flag the user typed (``--blocking '100:1': …``), which the CLI
    layer maps from ``param``."""

    def __init__(self, param: str, value: object, problem: str, label: str | None = None,
                 words: str | None = None) -> None:
        self.param, self.value, self.problem = param, value, problem
        self._name = label or PARAM_WORDS.get(param, param)      # the words naming the parameter
        super().__init__(words if words is not None else self._say(self._name))

    def _say(self, name: str) -> str:
        # "routing 'x' is not one of …" reads as a sentence; other problems follow a colon
        sep = " " if self.problem.startswith("is ") else ": "
        return f"{name} {self.value!r}{sep}{self.problem}"

    def naming(self, name: str) -> str:
        """The message with the parameter named ``name`` where it names it first (a GUI's field label:
        ``Planes 2: …``, ``Dimensions 4x1: …``); else as it is."""
        text = str(self)
        return name + text[len(self._name):] if text.startswith(self._name + " ") else text

    def with_flag(self, flag: str) -> str:
        """The same refusal naming a command-line flag (``--duration 'soon': …``)."""
        return self._say(flag)
