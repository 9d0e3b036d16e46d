"""`fabricviz route --partitions --qos-config --dump-tables`: one file with every table the SM
programs, the same lines the engine functions give, and a bad options file refused with its line."""

from __future__ import annotations

import json

from fabricviz.cli import main
from fabricviz.formats import opensm_conf
from fabricviz.formats.sm_tables import table_lines
from fabricviz.ib.qos import compute_qos
from fabricviz.ib.routing import route
from fabricviz.loaders import load_any
from fabricviz.resources import asset_path

DEMO = str(asset_path("demo", "demo-fat-tree.json"))
QOS = """# four VLs, SLs folded onto them
qos TRUE
qos_max_vls 4
qos_sl2vl 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3
qos_vlarb_high 0:64,1:32
qos_vlarb_low 0:16,1:16,2:16,3:16
qos_high_limit 4
log_file /var/log/opensm.log
"""


def test_dump_tables_holds_pkey_sl2vl_and_vlarb_lines(tmp_path, capsys):
    conf = tmp_path / "opensm.conf"
    conf.write_text(QOS)
    out = tmp_path / "tables.txt"
    assert main(["route", DEMO, "--qos-config", str(conf), "--dump-tables", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["vls_used"] == 4 and summary["dump_tables"] == str(out)
    f = load_any(DEMO)
    r = route(f)
    qos = compute_qos(r.subnet, opensm_conf.load(str(conf)))
    from fabricviz.ib.pkeys import design_tables
    want = table_lines(r, design_tables(r.subnet), qos)
    got = out.read_text().splitlines()
    assert got == want
    kinds = [ln.split()[0] for ln in got]
    assert kinds.count("pkey") == 40 and kinds.count("sl2vl") > 0 and kinds.count("vlarb") > 0
    assert kinds == sorted(kinds, key=["pkey", "sl2vl", "vlarb"].index)     # P_Keys, then SL2VL, then VLArb
    sl2vl = [ln.split()[4:] for ln in got if ln.startswith("sl2vl")]
    assert all(row == "0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3".split() for row in sl2vl)


def test_an_unknown_qos_key_is_refused_with_its_line_and_nothing_written(tmp_path, capsys):
    conf = tmp_path / "opensm.conf"
    conf.write_text("qos TRUE\nqos_turbo 1\n")
    out = tmp_path / "tables.txt"
    assert main(["route", DEMO, "--qos-config", str(conf), "--dump-tables", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{conf}:2" in err[0] and "qos_turbo" in err[0]
    assert not out.exists()
