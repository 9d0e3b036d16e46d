"""`fabricviz export-switch-config`: SONiC config_db fragments, Cumulus NVUE YAML + nv commands,
ConnectX scripts; numbers equal `fabricviz headroom --json`'s.

Expected names and where they are documented:

* SONiC tables/fields: sonic-yang-models (sonic-buffer-pool/-profile/-pg/-queue.yang,
  sonic-port-qos-map.yang, sonic-dscp-tc-map.yang, sonic-tc-priority-group-map.yang,
  sonic-tc-queue-map.yang, sonic-wred-profile.yang, sonic-queue.yang, sonic-scheduler.yang,
  sonic-cable-length.yang, sonic-port.yang); keys ``Ethernet<n>|<pg/queue>``, lossless profile
  names ``pg_lossless_<speed Mb/s>_<cable>_profile`` and cable lengths 5m/40m/300m as the
  Mellanox buffer templates and pg_profile_lookup.ini of sonic-buildimage use them; port names
  from port_config.ini (SN4700: Ethernet0, Ethernet8, … 8 lanes; SN3700: 4 lanes).
* NVUE: Cumulus Linux "Quality of Service" (nv set qos pfc <profile> switch-priority /
  cable-length / port-buffer / xoff-threshold / xon-threshold / tx / rx; nv set qos
  congestion-control <profile> traffic-class <tc> ecn / red / min-threshold / max-threshold /
  probability; nv set interface <if> qos pfc profile / qos congestion-control profile;
  nv set qos mapping default-global trust l3 / dscp <d> switch-priority <p>) and "RDMA over
  Converged Ethernet" (nv set qos roce mode lossless).
* NIC: MLNX_OFED mlnx_qos (--trust dscp, --pfc, --dscp2prio set,D,P, --cable_len),
  cma_roce_tos -d DEV -t TOS, sysfs ecn/roce_np/cnp_dscp.

Numbers (from tests/ethernet/test_lossless.py, worked by hand there): SN4700 leaf, 400G;
3 m DAC headroom 139,346 B, 100 m single-mode 186,870 B; XOFF 4,000,000 B, XON 3,981,568 B
(XOFF − XON = 2 × 9216 = 18,432 B); ECN at 400G Kmin 800,000 B, Kmax 3,200,000 B, Pmax 0.2 (20 %).
"""

import json

import pytest
import yaml

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.formats.switch_config import BufferBudgetExceeded, render, sonic_cable_length, write_switch_configs
from fabricviz.model import FabricError
from fabricviz.model.catalog import Catalog, Part
from fabricviz.model.fabric import Fabric

DAC3 = {"id": "T-400G-DAC3", "kind": "cable", "name": "test 400GbE passive copper, 3 m",
        "cable_type": "dac", "tech": "eth", "max_rate": "400GbE", "reach_m": 3, "lengths_m": [3]}
LR4 = {"id": "T-400G-LR4", "kind": "cable", "name": "test 400GbE LR4 + single-mode fibre",
       "cable_type": "transceiver", "tech": "eth", "max_rate": "400GbE", "reach_m": 10000,
       "lengths_m": [10000]}
SN3700 = {"id": "SN3700", "kind": "eth_switch", "name": "test Spectrum-2 SN3700 (32 x 200GbE)",
          "ports": 32, "port": "200GbE", "buffer_bytes": 44040192, "buffer_estimated": True}

SONIC_TABLES = {"BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE", "CABLE_LENGTH",
                "DSCP_TO_TC_MAP", "TC_TO_PRIORITY_GROUP_MAP", "TC_TO_QUEUE_MAP", "PORT_QOS_MAP",
                "WRED_PROFILE", "SCHEDULER", "QUEUE", "PORT"}


def catalog():
    return Catalog.default().with_parts([Part.from_dict(d, "t") for d in (DAC3, LR4, SN3700)])


def design():
    """SN4700 leaf: hosts h1, h2 on ports 1-2 (3 m DAC), a 100 m DR4 uplink on port 3 to the spine."""
    f = Fabric(catalog(), name="rd")
    f.add_device("eth_switch", "SN4700", name="leaf")
    f.add_device("eth_switch", "SN4700", name="spine")
    for i in (1, 2):
        f.add_device("server", "NODE-1G-NDR", name=f"h{i}", mode="400GbE")
        f.add_cable(f"h{i}/mlx5_0:1", f"leaf:{i}", 3.0, part="T-400G-DAC3")
    f.add_cable("leaf:3", "spine:1", 100.0, part="400G-DR4")
    return f


def run(args, capsys):
    rc = main(args)
    out, err = capsys.readouterr()
    return rc, out, err


def test_sonic_tables_field_by_field():
    files = render(design(), "sonic")
    assert sorted(files) == ["h1.nic.sh", "h2.nic.sh", "leaf.config_db.json", "spine.config_db.json"]
    db = json.loads(files["leaf.config_db.json"])
    assert set(db) == SONIC_TABLES
    assert db["BUFFER_POOL"] == {
        "ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "66544998"},
        "ingress_lossy_pool": {"type": "ingress", "mode": "dynamic", "size": "66544998"},
        "egress_lossless_pool": {"type": "egress", "mode": "dynamic", "size": "67108864"},
        "egress_lossy_pool": {"type": "egress", "mode": "dynamic", "size": "66544998"}}
    # shared pool = 64 MiB − (2 × 139,346 + 186,870) − 3 × 32,768 = 66,544,998
    prof = db["BUFFER_PROFILE"]
    assert prof["pg_lossless_400000_5m_profile"] == {"pool": "ingress_lossless_pool", "xoff": "139346",
                                                     "xon": "18432", "size": "157778", "dynamic_th": "0"}
    assert prof["pg_lossless_400000_300m_profile"] == {"pool": "ingress_lossless_pool", "xoff": "186870",
                                                       "xon": "18432", "size": "205302", "dynamic_th": "0"}
    assert sorted(k for k in prof if k.startswith("pg_lossless")) == [
        "pg_lossless_400000_300m_profile", "pg_lossless_400000_5m_profile"]     # two cable lengths
    assert db["BUFFER_PG"]["Ethernet0|3"] == {"profile": "pg_lossless_400000_5m_profile"}
    assert db["BUFFER_PG"]["Ethernet16|3"] == {"profile": "pg_lossless_400000_300m_profile"}
    assert db["BUFFER_PG"]["Ethernet16|0"] == {"profile": "ingress_lossy_profile"}
    assert sorted(k for k in db["BUFFER_QUEUE"] if k.startswith("Ethernet8|")) == [
        "Ethernet8|0-2", "Ethernet8|3", "Ethernet8|4-7"]
    assert db["BUFFER_QUEUE"]["Ethernet8|3"] == {"profile": "egress_lossless_profile"}
    assert db["CABLE_LENGTH"] == {"AZURE": {"Ethernet0": "5m", "Ethernet8": "5m", "Ethernet16": "300m"}}
    assert db["PORT_QOS_MAP"]["Ethernet16"] == {"dscp_to_tc_map": "ROCE", "tc_to_pg_map": "ROCE",
                                                "tc_to_queue_map": "ROCE", "pfc_enable": "3"}
    dscp = db["DSCP_TO_TC_MAP"]["ROCE"]
    assert len(dscp) == 64 and (dscp["26"], dscp["48"], dscp["0"], dscp["24"]) == ("3", "6", "0", "0")
    assert db["TC_TO_PRIORITY_GROUP_MAP"]["ROCE"]["3"] == "3" == db["TC_TO_QUEUE_MAP"]["ROCE"]["3"]
    assert db["WRED_PROFILE"] == {"ROCE_LOSSLESS_400G": {
        "ecn": "ecn_all", "wred_green_enable": "true", "wred_yellow_enable": "true", "wred_red_enable": "true",
        "green_min_threshold": "800000", "green_max_threshold": "3200000", "green_drop_probability": "20",
        "yellow_min_threshold": "800000", "yellow_max_threshold": "3200000", "yellow_drop_probability": "20",
        "red_min_threshold": "800000", "red_max_threshold": "3200000", "red_drop_probability": "20"}}
    assert db["QUEUE"]["Ethernet0|3"] == {"scheduler": "scheduler.1", "wred_profile": "ROCE_LOSSLESS_400G"}
    assert db["QUEUE"]["Ethernet0|6"] == {"scheduler": "scheduler.2"}
    assert db["QUEUE"]["Ethernet0|0"] == {"scheduler": "scheduler.0"}
    assert db["SCHEDULER"]["scheduler.2"] == {"type": "STRICT"}
    assert db["PORT"] == {f"Ethernet{8 * i}": {"lanes": ",".join(str(8 * i + j) for j in range(8)),
                                               "speed": "400000", "mtu": "9216"} for i in range(3)}


def test_numbers_equal_headroom_json(tmp_path, capsys):
    path = tmp_path / "rd.json"
    save_fabric(design(), path)
    rc, out, _ = run(["headroom", str(path), "--json"], capsys)
    assert rc == 0
    doc = json.loads(out)
    rc, out, err = run(["export-switch-config", str(path), "--os", "sonic", "-o", str(tmp_path / "o")], capsys)
    assert (rc, err) == (0, "")
    assert out.splitlines() == [str(tmp_path / "o" / n) for n in
                                ("leaf.config_db.json", "spine.config_db.json", "h1.nic.sh", "h2.nic.sh")]
    lanes = {"leaf": 8, "spine": 8}
    for sw in ("leaf", "spine"):
        db = json.loads((tmp_path / "o" / f"{sw}.config_db.json").read_text())
        shared = next(s["shared_pool"] for s in doc["switches"] if s["switch"] == sw)
        assert db["BUFFER_POOL"]["ingress_lossless_pool"]["size"] == str(int(shared))
        for row in (r for r in doc["ports"] if r["switch"] == sw):
            e = f"Ethernet{(int(row['port'].split(':')[1]) - 1) * lanes[sw]}"
            prof = db["BUFFER_PROFILE"][db["BUFFER_PG"][f"{e}|3"]["profile"]]
            assert int(prof["xoff"]) == row["headroom_bytes"]
            assert int(prof["xon"]) == row["xoff_bytes"] - row["xon_bytes"]


def test_port_naming_on_two_parts():
    f = Fabric(catalog())
    f.add_device("eth_switch", "SN4700", name="s47")
    f.add_device("eth_switch", "SN3700", name="s37")
    for n in (1, 3, 32):
        f.add_cable(f"s47:{n}", f"s37:{n}", 3.0, part="T-400G-DAC3")
    s47 = json.loads(render(f, "sonic")["s47.config_db.json"])
    s37 = json.loads(render(f, "sonic")["s37.config_db.json"])
    assert list(s47["CABLE_LENGTH"]["AZURE"]) == ["Ethernet0", "Ethernet16", "Ethernet248"]
    assert list(s37["CABLE_LENGTH"]["AZURE"]) == ["Ethernet0", "Ethernet8", "Ethernet124"]
    assert s37["PORT"]["Ethernet8"] == {"lanes": "8,9,10,11", "speed": "200000", "mtu": "9216"}   # 200G link
    y = yaml.safe_load(render(f, "cumulus")["s37.nvue.yaml"])
    assert sorted(y[0]["set"]["interface"]) == ["swp1", "swp3", "swp32"]


def test_cable_length_rounding():
    assert [sonic_cable_length(m) for m in (0.5, 5, 5.1, 40, 100, 300, 300.2, 2000)] == [
        "5m", "5m", "40m", "40m", "300m", "300m", "301m", "2000m"]


def test_nvue_yaml_and_commands():
    files = render(design(), "cumulus", priority=4, dscp=34)
    assert sorted(files) == ["h1.nic.sh", "h2.nic.sh", "leaf.nv.sh", "leaf.nvue.yaml",
                             "spine.nv.sh", "spine.nvue.yaml"]
    (doc,) = yaml.safe_load(files["leaf.nvue.yaml"])
    qos = doc["set"]["qos"]
    assert qos["roce"] == {"enable": "on", "mode": "lossless"}
    assert qos["mapping"]["default-global"] == {"trust": "l3", "dscp": {"34": {"switch-priority": 4},
                                                                        "48": {"switch-priority": 6}}}
    assert qos["pfc"] == {
        "roce-pfc-400g-100m": {"switch-priority": {"4": {}}, "cable-length": 100, "port-buffer": 205302,
                               "xoff-threshold": 18432, "xon-threshold": 9216, "tx": "enable", "rx": "enable"},
        "roce-pfc-400g-3m": {"switch-priority": {"4": {}}, "cable-length": 3, "port-buffer": 157778,
                             "xoff-threshold": 18432, "xon-threshold": 9216, "tx": "enable", "rx": "enable"}}
    assert qos["congestion-control"] == {"roce-ecn-400g": {"traffic-class": {"4": {
        "ecn": "enable", "red": "disable", "min-threshold": 800000, "max-threshold": 3200000, "probability": 20}}}}
    assert doc["set"]["interface"]["swp3"] == {"qos": {"pfc": {"profile": "roce-pfc-400g-100m"},
                                                       "congestion-control": {"profile": "roce-ecn-400g"}}}
    cmds = [c for c in files["spine.nv.sh"].splitlines() if c.startswith("nv ")]
    assert cmds == [
        "nv set qos roce mode lossless",
        "nv set qos mapping default-global trust l3",
        "nv set qos mapping default-global dscp 34 switch-priority 4",
        "nv set qos mapping default-global dscp 48 switch-priority 6",
        "nv set qos egress-queue-mapping default-global switch-priority 4 traffic-class 4",
        "nv set qos egress-queue-mapping default-global switch-priority 6 traffic-class 6",
        "nv set qos pfc roce-pfc-400g-100m switch-priority 4",
        "nv set qos pfc roce-pfc-400g-100m cable-length 100",
        "nv set qos pfc roce-pfc-400g-100m port-buffer 205302",          # 186,870 headroom + 18,432
        "nv set qos pfc roce-pfc-400g-100m xoff-threshold 18432",
        "nv set qos pfc roce-pfc-400g-100m xon-threshold 9216",
        "nv set qos pfc roce-pfc-400g-100m tx enable",
        "nv set qos pfc roce-pfc-400g-100m rx enable",
        "nv set qos congestion-control roce-ecn-400g traffic-class 4 ecn enable",
        "nv set qos congestion-control roce-ecn-400g traffic-class 4 red disable",
        "nv set qos congestion-control roce-ecn-400g traffic-class 4 min-threshold 800000",
        "nv set qos congestion-control roce-ecn-400g traffic-class 4 max-threshold 3200000",
        "nv set qos congestion-control roce-ecn-400g traffic-class 4 probability 20",
        "nv set interface swp1 qos pfc profile roce-pfc-400g-100m",
        "nv set interface swp1 qos congestion-control profile roce-ecn-400g",
        "nv config apply"]


def test_nic_script_commands():
    text = render(design(), "sonic", priority=3, dscp=26)["h2.nic.sh"]
    assert text.splitlines()[3:] == [
        "# mlx5_0 -> leaf:2",
        "IF=$(ls /sys/class/infiniband/mlx5_0/device/net | head -n 1)",
        'mlnx_qos -i "$IF" --trust dscp',
        'mlnx_qos -i "$IF" --pfc 0,0,0,1,0,0,0,0',
        'mlnx_qos -i "$IF" --dscp2prio set,26,3',
        'mlnx_qos -i "$IF" --dscp2prio set,48,6',
        'mlnx_qos -i "$IF" --cable_len 3',
        "cma_roce_tos -d mlx5_0 -t 106",                     # 26 << 2 | ECT(0)
        "echo 106 > /sys/class/infiniband/mlx5_0/tc/1/traffic_class",
        'echo 48 > "/sys/class/net/$IF/ecn/roce_np/cnp_dscp"',
        'echo 6 > "/sys/class/net/$IF/ecn/roce_np/cnp_802p_prio"',
        'echo 1 > "/sys/class/net/$IF/ecn/roce_np/enable/3"',
        'echo 1 > "/sys/class/net/$IF/ecn/roce_rp/enable/3"']
    assert text.startswith("#!/bin/sh\n")


def test_write_is_all_or_nothing(tmp_path):
    out = tmp_path / "cfg"
    f = Fabric(catalog(), name="dci")
    f.add_device("eth_switch", "SN4700", name="siteA")
    f.add_device("eth_switch", "SN4700", name="siteB")
    for i in range(1, 15):                                    # 14 × 10 km: over the 64 MiB buffer
        f.add_cable(f"siteA:{i}", f"siteB:{i}", 10000.0, part="T-400G-LR4")
    with pytest.raises(BufferBudgetExceeded) as e:
        write_switch_configs(f, "sonic", out)
    assert e.value.switches == ("siteA", "siteB") and "over by up to 3,816,130 B" in str(e.value)
    assert not out.exists()
    paths = write_switch_configs(design(), "cumulus", out)
    assert [p.name for p in paths] == ["leaf.nvue.yaml", "leaf.nv.sh", "spine.nvue.yaml", "spine.nv.sh",
                                       "h1.nic.sh", "h2.nic.sh"]
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in paths)   # no temp files left
    assert (out / "leaf.nv.sh").stat().st_mode & 0o111


@pytest.mark.parametrize("kw, fragment", [
    ({"priority": 6}, "priority 6: taken (CNPs)"),
    ({"priority": 8}, "priority 8: an 802.1p priority 0-7"),
    ({"dscp": 48}, "dscp 48: taken by CNPs"),
    ({"dscp": 64}, "dscp 64: a DSCP value 0-63"),
    ({"mtu": 100}, "mtu 100: a whole number of bytes"),
])
def test_bad_settings_refused(kw, fragment):
    with pytest.raises(FabricError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        render(design(), "sonic", **kw)


def test_cli_exit_codes(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    save_fabric(design(), "rd.json")
    ib = Fabric(name="ib")
    ib.add_device("ib_switch", "QM9700", name="sw")
    save_fabric(ib, "ib.json")
    dci = Fabric(catalog(), name="dci")
    dci.add_device("eth_switch", "SN4700", name="siteA")
    dci.add_device("eth_switch", "SN4700", name="siteB")
    for i in range(1, 15):
        dci.add_cable(f"siteA:{i}", f"siteB:{i}", 10000.0, part="T-400G-LR4")
    save_fabric(dci, "dci.json")
    rc, out, err = run(["export-switch-config", "ib.json", "--os", "sonic", "-o", "o"], capsys)
    assert (rc, out, err) == (2, "", "fabricviz: error: ib.json: not a RoCE design "
                                     "(no cabled Ethernet switch port)\n")
    rc, out, err = run(["export-switch-config", "rd.json", "--os", "eos", "-o", "o"], capsys)
    assert (rc, out) == (2, "") and err.count("\n") == 1 and "invalid choice: 'eos'" in err
    rc, out, err = run(["export-switch-config", "rd.json", "--os", "sonic", "-o", "o", "--priority", "0"], capsys)
    assert (rc, out, err) == (2, "", "fabricviz: error: --priority 0: priority 0: taken (best effort); "
                                     "use 1-5 or 7 (RoCE's usual: 3)\n")
    rc, out, err = run(["export-switch-config", "dci.json", "--os", "cumulus", "-o", "o"], capsys)
    assert (rc, out) == (1, "") and err.count("\n") == 1
    assert err.startswith("fabricviz: dci.json: headroom does not fit the buffer of siteA, siteB")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dci.json", "ib.json", "rd.json"]  # nothing written
    rc, out, err = run(["export-switch-config", "rd.json", "--os", "sonic", "-o", "o", "--method", "nvidia",
                        "--mtu", "1500"], capsys)
    assert (rc, err) == (0, "")
    db = json.loads((tmp_path / "o" / "leaf.config_db.json").read_text())
    # NVIDIA rule, MTU 1500: 3 m 8,400 B; 100 m 58,840 B (test_headroom.py); XON hysteresis 2 × 1500
    assert db["BUFFER_PROFILE"]["pg_lossless_400000_5m_profile"]["xoff"] == "8400"
    assert db["BUFFER_PROFILE"]["pg_lossless_400000_300m_profile"]["xoff"] == "58840"
    assert db["BUFFER_PROFILE"]["pg_lossless_400000_300m_profile"]["xon"] == "3000"
    assert db["PORT"]["Ethernet16"]["mtu"] == "1500"


@pytest.mark.parametrize("prios, pfc, dscps", [([4], "4", {"26": "4"}), ([3, 4], "3,4", {"26": "3", "34": "4"})])
def test_export_takes_the_designs_lossless_priorities(tmp_path, capsys, prios, pfc, dscps):
    f = design()
    f.meta["roce"] = {"priorities": prios, "mtu": 4200}
    save_fabric(f, tmp_path / "rd.json")
    rc, _out, err = run(["export-switch-config", str(tmp_path / "rd.json"), "--os", "sonic", "-o",
                         str(tmp_path / "o")], capsys)
    assert (rc, err) == (0, "")
    db = json.loads((tmp_path / "o" / "leaf.config_db.json").read_text())
    assert db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == pfc and db["PORT"]["Ethernet0"]["mtu"] == "4200"
    assert sorted(k for k in db["BUFFER_PG"] if k.startswith("Ethernet0|")) == ["Ethernet0|0"] + [
        f"Ethernet0|{p}" for p in prios]
    assert {d: t for d, t in db["DSCP_TO_TC_MAP"]["ROCE"].items() if t not in ("0", "6")} == dscps
    assert [k for k, v in db["QUEUE"].items() if k.startswith("Ethernet0|") and "wred_profile" in v] == [
        f"Ethernet0|{p}" for p in prios]
    nic = (tmp_path / "o" / "h1.nic.sh").read_text().splitlines()
    assert f'mlnx_qos -i "$IF" --pfc {",".join("1" if p in prios else "0" for p in range(8))}' in nic
    assert [c for c in nic if "--dscp2prio" in c] == [f'mlnx_qos -i "$IF" --dscp2prio set,{d},{p}'
                                                      for d, p in dscps.items()] + [
        'mlnx_qos -i "$IF" --dscp2prio set,48,6']
    (y,) = yaml.safe_load(render(f, "cumulus")["leaf.nvue.yaml"])
    assert list(y["set"]["qos"]["pfc"]["roce-pfc-400g-3m"]["switch-priority"]) == [str(p) for p in prios]
    assert list(y["set"]["qos"]["congestion-control"]["roce-ecn-400g"]["traffic-class"]) == [str(p) for p in prios]


def test_budget_is_checked_for_every_lossless_priority():
    """9 × 10 km at 400G: one priority's headroom fits the 64 MiB, two priorities' do not."""
    f = Fabric(catalog(), name="dci")
    f.add_device("eth_switch", "SN4700", name="siteA")
    f.add_device("eth_switch", "SN4700", name="siteB")
    for i in range(1, 10):
        f.add_cable(f"siteA:{i}", f"siteB:{i}", 10000.0, part="T-400G-LR4")
    assert len(render(f, "sonic")) == 2
    f.meta["roce"] = {"priorities": [3, 4]}
    with pytest.raises(BufferBudgetExceeded):
        render(f, "sonic")
    with pytest.raises(BufferBudgetExceeded):
        render(f, "sonic", priority=[3, 4])


def test_bad_design_priorities_name_the_file_and_field(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    f = design()
    f.meta["roce"] = {"priorities": [9]}
    save_fabric(f, "bad.json")
    want = "fabricviz: error: bad.json: meta.roce.priorities: priority 9: an 802.1p priority 0 … 7\n"
    for cmd in (["headroom", "bad.json"], ["export-switch-config", "bad.json", "--os", "sonic", "-o", "o"],
                ["check-pfc-deadlock", "bad.json"]):
        assert run(cmd, capsys) == (2, "", want)
    save_fabric(design(), "ok.json")
    assert run(["export-switch-config", "ok.json", "--os", "sonic", "-o", "o", "--priority", "3,9"], capsys) == (
        2, "", "fabricviz: error: --priority 3,9: priority 9: an 802.1p priority 0 … 7\n")
    assert run(["headroom", "ok.json", "--priorities", "9"], capsys) == (
        2, "", "fabricviz: error: --priorities 9: priority 9: an 802.1p priority 0 … 7\n")
    assert not (tmp_path / "o").exists()
