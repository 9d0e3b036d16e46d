"""CLI subcommands: one module each, with ``register(subparsers, parser_class)``.

A module registers its parser and sets ``func=run``; ``run(args) -> int``
returns the exit status and raises FabricError for user errors (the CLI turns
them into one line on stderr and status 2). Add new commands to COMMANDS.

The CLI imports every command module to build its parser, so a command imports the engines it
runs inside ``run`` (deliberately: ``fabricviz --help`` loads no engine library; see
tests/test_startup.py).
"""

COMMANDS: tuple[str, ...] = ("generate", "info", "route", "trace", "check-loops", "check-pfc-deadlock",
                             "simulate", "latency", "collective", "render",
                             "lint", "bom", "convert", "replay", "demo", "compare-tech",
                             "partitions", "record", "headroom", "export-switch-config", "export-htsim", "whatif",
                             "diff", "counters")
