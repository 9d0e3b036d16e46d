"""Run the real OpenSM on every differential-test fabric and save what it computed.

    .venv/bin/python tests/ib/make_oracle_fixtures.py [CASE ...]

Writes tests/data/opensm/<case>-<engine>/ (topology.net, opensm-lfts.dump, lids.json,
routed_by.json) for engines minhop, updn, ftree, and tests/data/opensm/README.md with
the OpenSM version and what each engine did. Re-run after changing topologies.py;
tests/ib/test_oracle_harness.py fails while the saved fixtures differ from a fresh run.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.ib import oracle, topologies  # noqa: E402

ENGINES = ("minhop", "updn", "ftree")
FIXTURES = ROOT / "tests" / "data" / "opensm"


def ibsim_version() -> str:
    out = subprocess.run(["ibsim", "-V"], capture_output=True, text=True).stderr
    return next((ln.strip() for ln in out.splitlines() if ln.startswith("ibsim ")), "ibsim ?")


def main(argv: list[str]) -> int:
    reason = oracle.opensm_available()
    if reason:
        print(f"make_oracle_fixtures: {reason}", file=sys.stderr)
        return 2
    all_cases = topologies.cases()
    wanted = argv or list(all_cases)
    unknown = [c for c in wanted if c not in all_cases]
    if unknown:
        print(f"make_oracle_fixtures: unknown case(s) {unknown}; known: {list(all_cases)}", file=sys.stderr)
        return 2
    rows = []
    with tempfile.TemporaryDirectory(prefix="fvz-oracle-") as tmp:
        for case in wanted:
            for engine in ENGINES:
                res = oracle.run_opensm(all_cases[case], engine, Path(tmp) / f"{case}-{engine}")
                out = FIXTURES / f"{case}-{engine}"
                if out.exists():
                    shutil.rmtree(out)
                oracle.save_fixture(res, out)
                rows.append((case, engine, res))
                print(f"{case:22s} {engine:7s} routed_by={res.routed_by} {res.wall_seconds:.3f} s")
    if not argv:
        write_readme(rows)
    return 0


def write_readme(rows) -> None:
    version = rows[0][2].version or oracle.opensm_version()
    lines = [
        "# OpenSM reference outputs (generated; do not edit)",
        "",
        f"Produced by `tests/ib/make_oracle_fixtures.py` with **{version}** (Debian package `opensm`)",
        f"on **{ibsim_version()}** (Debian `ibsim-utils`), `opensm -o -D 0x43 -R <engine>`, SM on the",
        "file's first node, empty config file, fresh cache (no guid2lid history).",
        "",
        "Each `<case>-<engine>/` holds `topology.net` (the input), `opensm-lfts.dump` (OpenSM's own",
        "LFT dump), `lids.json` (every linked port: node GUID, port, port GUID, LID -- switches as port 0;",
        "`port_lids` from OpenSM's guid2lid; `links` as OpenSM saw them) and `routed_by.json`",
        "(`routed_by` = engine that produced the tables, `fallback_reason` = what the refusing engine",
        "logged). Load one with `tests.ib.oracle.load_fixture(dir)`.",
        "",
        "| case | engine | routed_by | fallback reason |",
        "|---|---|---|---|",
    ]
    for case, engine, res in rows:
        why = (res.fallback_reason or "").replace("|", "/")
        if len(why) > 110:
            why = why[:107] + "..."
        lines.append(f"| {case} | {engine} | {res.routed_by} | {why} |")
    (FIXTURES / "README.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
