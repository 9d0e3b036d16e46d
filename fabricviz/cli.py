"""The ``fabricviz`` command: no arguments (or a FILE) opens the GUI; subcommands run headless.

User errors print one line, ``fabricviz: error: …``, and exit with status 2.
Each subcommand lives in :mod:`fabricviz.commands`.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from .commands import COMMANDS
from .commands.stopping import exit_status, stop_signals
from .model import FabricError
from .model.numbers import ascii_float, ascii_int

SUBCOMMANDS = COMMANDS


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # every type=int / type=float option of every command reads ASCII digits only (issue 28):
        # int("８") is 8; these refuse it (a ValueError: argparse says "invalid int value: '８'")
        self.register("type", int, ascii_int)
        self.register("type", float, ascii_float)

    def error(self, message: str) -> NoReturn:  # one line, no usage dump
        raise _UsageError(message)


class _UsageError(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="fabricviz", description="Design and animate InfiniBand and RoCE GPU fabrics. "
                "With no subcommand, opens the GUI (on FILE, or on the bundled demo fabric).")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"fabricviz.commands.{name.replace('-', '_')}").register(sub, _Parser)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0] not in SUBCOMMANDS and not argv[0].startswith("-")):
        if len(argv) > 1:
            print(f"fabricviz: error: unknown command {argv[0]!r} (use {', '.join(SUBCOMMANDS)}, "
                  "or one FILE to open)", file=sys.stderr)
            return 2
        from .ui.app import run_gui  # deliberately here: Qt is loaded only when the GUI opens
        return run_gui(argv[0] if argv else None)
    args = None
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "func", None) is None:
            build_parser().print_help()
            return 0
        with stop_signals() as stop:     # SIGTERM unwinds like Ctrl-C: workers shut down, temp files go
            try:
                return int(args.func(args))
            except Exception:
                status = stop.status()       # the signal's unwinding, come out of a library as another error
                if status is None:
                    raise
                return status
    except _UsageError as e:
        print(f"fabricviz: error: {e}", file=sys.stderr)
        return 2
    except FabricError as e:
        print(f"fabricviz: error: {_placed(e, args)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:  # 130 after SIGINT, 143 after SIGTERM
        return exit_status(e)
    except BrokenPipeError:   # `fabricviz info FILE | head`
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0


def _placed(e: FabricError, args: argparse.Namespace | None) -> str:
    """The message, prefixed with the design file when the refusal is about the whole file
    (LID space) and so names no place of its own."""
    from .ib.lids import LidSpaceError
    msg = str(e)
    path = getattr(args, "file", None)
    if isinstance(e, LidSpaceError) and isinstance(path, str) and not msg.startswith(path):
        return f"{path}: {msg}"
    return msg


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
