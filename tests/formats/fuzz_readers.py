"""Readers the fuzzer (tests/formats/fuzzing.py, bench/fuzz.py) reaches through a table (issue 28):
each entry gives the reader's seed files and how a command reads one. A new reader is one entry in
:data:`READERS`; ``fuzzing.FORMATS`` picks it up.

Every reader in ``fabricviz/formats`` and the side files, and where it is fuzzed:

==================  =========================================  ==============================
reader              module                                     fuzzed as
==================  =========================================  ==============================
native JSON         formats/native.py, native_bulk.py          native
NetJSON             formats/netjson.py                         netjson
GraphML             formats/graphml.py                         graphml
GML                 formats/gml.py                             gml
DOT                 formats/dot.py                             dot
containerlab        formats/clab.py (+ _yaml.py)               clab
ibnetdiscover       formats/ibnetdiscover.py (+ grammar)       ibnetdiscover
ibsim net file      formats/ibsim.py                           ibsim
LFT dump            formats/opensm_dump.py, opensm_replay.py   opensm_dump
flow CSV            sim/flows_csv.py                           flows_csv
prices              check/bom.py                               prices
parts               model/catalog.py                           parts
htsim matrix        formats/htsim.py                           htsim_cm
partitions.conf     formats/partitions_conf.py                 partitions_conf (here)
opensm.conf (QoS)   formats/opensm_conf.py                     opensm_conf (here)
ibnetdiscover -p    formats/ibnetdiscover_ports.py             ibnetdiscover_ports (DISCOVERY)
iblinkinfo          formats/iblinkinfo.py                      iblinkinfo (DISCOVERY)
opensm-subnet.lst   formats/opensm_subnet_lst.py               opensm_subnet_lst (DISCOVERY)
ibdm topology       formats/ibdm_topo.py, ibdm_ibnl.py         ibdm_topo (DISCOVERY)
perfquery           formats/perfquery.py                       perfquery (fuzz_counters.py)
ibqueryerrors       formats/ibqueryerrors.py                   ibqueryerrors (fuzz_counters.py)
ibdiagnet .pm       formats/ibdiagnet_pm.py                    ibdiagnet_pm (fuzz_counters.py)
ibdiagnet db_csv    formats/ibdiagnet_csv.py                   ibdiagnet_csv (fuzz_counters.py)
==================  =========================================  ==============================
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.formats.fuzz_pool import _stage

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Reader:
    """``seeds()``: (file name, bytes) of each seed; ``read(path)``: what the command does with the
    file (raise as it would: a FabricError of one line naming the file is a clean refusal)."""

    seeds: Callable[[], list[tuple[str, bytes]]]
    read: Callable[[str], object]
    #: mutations after which a valid file must still be accepted (fuzzing.BENIGN: a BOM, CRLF)
    benign: tuple[str, ...] = ("bom", "crlf")


def _partitions_seeds() -> list[tuple[str, bytes]]:
    from fabricviz.formats.partitions_conf import dumps, loads
    real = ROOT / "tests" / "ib" / "pkeys_k4_partitions.conf"
    manpage = ("Default=0x7fff : ALL, SELF=full ;\n"
               "NewPartition , ipoib : 0x123456=full, 0x3456789034=limi, 0x2134af2306 ;\n"
               "YetAnotherOne = 0x300 : SELF=full ; YetAnotherOne = 0x300 : ALL=limited ;\n"
               "ShareIO = 0x80 , defmember=full : 0x123451, 0x123452;\n"
               "# 0x123453, 0x123454 will be limited\nShareIO = 0x80 : 0x123453, 0x123454, 0x123455=full;\n"
               "NoneAtAll=0x10 : NONE ;\nIPoIB=0x90, ipoib, mtu=4, rate=7 : mgid=ff12:401b::1, sl=1 ;\n")
    return [("pkeys-k4.partitions.conf", real.read_bytes()),
            ("written.partitions.conf", dumps(loads(real.read_text())).encode()),
            ("manpage.partitions.conf", manpage.encode())]


def _read_partitions(path: str) -> object:
    from fabricviz.formats.partitions_conf import dumps, load, loads
    conf = load(path)
    _stage("reload")                  # what we write of an accepted file reads back the same
    again = loads(dumps(conf), path + " (written)")
    if [(p.name, p.pkey, p.members) for p in again.merged()] != [(p.name, p.pkey, p.members) for p in conf.merged()]:
        raise AssertionError("the written partitions.conf reads back different")
    return conf


def _opensm_conf_seeds() -> list[tuple[str, bytes]]:
    vl = ",".join(f"{i % 8}:{(i * 37) % 256}" for i in range(16))
    full = ("# OpenSM options (QoS)\nqos TRUE\nqos_max_vls 8\nqos_high_limit 4\n"
            f"qos_vlarb_high {vl}\nqos_vlarb_low 0:64,1:64,2:64,3:64\n"
            "qos_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7\nqos_ca_max_vls 4\nqos_swe_sl2vl (null)\n"
            "qos_policy_file /etc/opensm/qos-policy.conf\nroute_engine ftree\n")
    return [("qos.opensm.conf", full.encode()),
            ("short.opensm.conf", b"qos TRUE\nqos_sl2vl 0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1\n")]


def _read_opensm_conf(path: str) -> object:
    from fabricviz.formats.opensm_conf import load
    return load(path)


#: name -> Reader: route / partitions ``--partitions`` / ``--conf``; route / check-loops ``--qos-config``.
READERS: dict[str, Reader] = {
    # OpenSM rejects a CRLF partitions.conf (\r is no white space to it), so the reader refuses it too
    "partitions_conf": Reader(_partitions_seeds, _read_partitions, benign=("bom",)),
    "opensm_conf": Reader(_opensm_conf_seeds, _read_opensm_conf),
}
