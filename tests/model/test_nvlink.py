"""NVLink domains as typed device groups (fabricviz.model.nvlink): the parts' facts, the domains a
design has (racks from meta, DGX baseboards from their server part, old nvlink_gbps parts), the
partition setting, refusals naming their key, and the native format keeping both to the byte."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.formats.native import dumps, loads
from fabricviz.generate.nvlink_racks import nvl72_racks
from fabricviz.generate.rail import rail_optimized
from fabricviz.model import Fabric, FabricError, Part
from fabricviz.model.nvlink import nvlink_domains, nvlink_map, nvlink_specs


def test_parts_carry_link_counts_and_rates():
    s = nvlink_specs()
    h100, nvl72 = s["HGX-H100-8"], s["GB200-NVL72"]
    assert (h100.gpus, h100.switch_chips, h100.links_per_gpu, h100.gpu_gbytes, h100.links) == (8, 4, 18, 450.0, 144)
    assert h100.chip_links()[0].tolist() == [5, 4, 4, 5] and h100.nvls
    assert (nvl72.gpus, nvl72.compute_trays, nvl72.gpus_per_tray, nvl72.switch_trays, nvl72.switch_chips) == \
        (72, 18, 4, 9, 18)
    assert (nvl72.gpu_gbytes, nvl72.links, nvl72.chip_links().shape) == (900.0, 1296, (72, 18))
    assert (nvl72.chip_links() == 1).all()
    assert s["HGX-B200-8"].chip_links()[0].tolist() == [9, 9]
    assert not s["HGX-A100-8"].nvls and s["HGX-A100-8"].gpu_gbytes == 300.0
    assert all(x.source for x in s.values())


def test_racks_from_meta_and_dgx_baseboards_from_their_part():
    f = nvl72_racks(2)
    doms = nvlink_domains(f)
    assert [(d.name, d.spec.id, len(d.servers), d.n_gpus, d.explicit) for d in doms] == \
        [("rack1", "GB200-NVL72", 18, 72, True), ("rack2", "GB200-NVL72", 18, 72, True)]
    assert f.name_of(int(doms[1].gpus[5])) == "rack2-ct02/gpu1"          # tray order, then GPU index
    nv = nvlink_map(f)
    assert np.unique(nv.group[nv.group >= 0]).tolist() == [0, 1] and (nv.gbytes[doms[0].gpus] == 900).all()
    g = rail_optimized(1, nodes_per_unit=2)
    doms = nvlink_domains(g)
    assert [(d.name, d.spec.id, d.n_gpus, d.explicit) for d in doms] == \
        [("su1-dgx01", "HGX-H100-8", 8, False), ("su1-dgx02", "HGX-H100-8", 8, False)]


def test_a_gpu_part_with_only_nvlink_gbps_still_gets_its_nvlink():
    """Designs and parts files from before the domains: the server's GPUs share one link at nvlink_gbps."""
    base = Fabric().catalog
    gpu = Part.from_dict({"id": "OLD-GPU", "kind": "gpu", "name": "old", "memory_gb": 80, "pcie_gbps": 440,
                          "nvlink_gbps": 2400}, "t")
    srv = Part.from_dict({"id": "OLD-SRV", "kind": "server", "name": "old box", "gpus": 4, "nics": 4,
                          "nic_part": "CX7-1P", "gpu_part": "OLD-GPU"}, "t")
    f = Fabric(base.with_parts([gpu, srv]))
    f.add_servers("OLD-SRV", ["box"], [0.0], [0.0])
    (d,) = nvlink_domains(f)
    assert (d.spec.id, d.spec.links_per_gpu, d.spec.gpu_gbytes, d.n_gpus) == ("nvlink_gbps:OLD-GPU", 1, 300.0, 4)


def test_partitions_split_a_rack():
    f = nvl72_racks(1)
    f.set_meta("nvlink_partitions", [{"domain": "rack1", "gpus": list(range(36))},
                                     {"domain": "rack1", "gpus": list(range(36, 64))}])
    nv = nvlink_map(f)
    (d,) = nv.domains
    grp = nv.group[d.gpus]
    assert (grp[:36] == 0).all() and (grp[36:64] == 1).all() and (grp[64:] == -1).all()


@pytest.mark.parametrize("key, value, message", [
    ("nvlink_domains", [{"name": "r", "spec": "NVL999", "servers": []}], "meta.nvlink_domains[0].spec: 'NVL999'"),
    ("nvlink_domains", [{"name": "r", "spec": "GB200-NVL72", "servers": ["nope"]}],
     "meta.nvlink_domains[0].servers[0]: 'nope' is not a server"),
    ("nvlink_partitions", [{"domain": "rack1", "gpus": [0, 72]}], "meta.nvlink_partitions[0].gpus: GPU indexes 0..71"),
    ("nvlink_partitions", [{"domain": "rack1", "gpus": [0, 1]}, {"domain": "rack1", "gpus": [1]}],
     "meta.nvlink_partitions[1].gpus: a GPU is in two partitions"),
])
def test_a_bad_setting_is_refused_with_its_key(key, value, message):
    f = nvl72_racks(1)
    f.set_meta(key, value)
    with pytest.raises(FabricError, match=message.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        nvlink_domains(f)


def test_native_round_trip_keeps_domains_and_partitions_to_the_byte():
    f = nvl72_racks(2)
    f.set_meta("nvlink_partitions", [{"domain": "rack2", "gpus": [0, 1, 2, 3]}])
    text = dumps(f)
    g = loads(text)
    assert dumps(g) == text
    assert [(d.name, d.n_gpus, len(d.partitions)) for d in nvlink_domains(g)] == [("rack1", 72, 0), ("rack2", 72, 1)]


def test_domains_are_found_without_a_scan_per_server(monkeypatch):
    """Every server's GPUs come from one sort of the GPU column: a 27,648-server radix-48 tree
    scanned the whole device table once per server, twice per open (2 × 0.63 s)."""
    calls = []
    real = Fabric.children_ids
    monkeypatch.setattr(Fabric, "children_ids", lambda self, d: calls.append(d) or real(self, d))
    g = rail_optimized(2, nodes_per_unit=3)
    doms = nvlink_domains(g)
    assert [(d.name, d.n_gpus) for d in doms] == [(f"su{u}-dgx0{i}", 8) for u in (1, 2) for i in (1, 2, 3)]
    for d in doms:                                       # each the server's own GPUs, in GPU order
        own = real(g, int(d.servers[0]))
        own = own[g.devices_t.kind[own] == g.devices_t.kind[d.gpus[0]]]
        assert d.gpus.tolist() == own[np.argsort(g.devices_t.local[own], kind="stable")].tolist()
    f = nvl72_racks(2)
    assert [d.n_gpus for d in nvlink_domains(f)] == [72, 72]
    assert calls == []
