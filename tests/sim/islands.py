"""Designs with a part nobody can reach, shared by the reachability and CLI tests."""

#: The bundled demo's generator arguments (tests/test_cli.py checks the file matches).
DEMO = dict(levels=2, radix=8, hosts=16, name="demo: 2-level NDR fat tree")


def with_island(f, switch_part, server_part, mode=None):
    """``f`` plus switch island01 (``kind:part``) with srv98 cabled to it, and srv99 cabled to nothing."""
    kind, part = switch_part.split(":")
    f.add_device(kind, part, name="island01")
    f.add_device("server", server_part, name="srv98", mode=mode)
    f.add_device("server", server_part, name="srv99", mode=mode)
    nic = f.device(f.find("srv98")).nics[0].name
    f.add_cable(f"{nic}:1", "island01:1", 2.0)
    return f
