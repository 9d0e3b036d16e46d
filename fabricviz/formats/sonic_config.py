"""SONiC ``config_db.json`` fragment of one switch for lossless RoCE (``config load`` merges it).

Tables and key formats as SONiC's YANG models (sonic-yang-models: sonic-buffer-pool,
-buffer-profile, -buffer-pg, -buffer-queue, -port-qos-map, -dscp-tc-map,
-tc-priority-group-map, -tc-queue-map, -wred-profile, -queue, -scheduler, -cable-length,
-port) and the Mellanox buffer/QoS templates define them; every value is a string, as in
CONFIG_DB:

* ``BUFFER_POOL``: ``ingress_lossless_pool``, ``ingress_lossy_pool``, ``egress_lossy_pool``
  (each the plan's shared pool) and ``egress_lossless_pool`` (the whole buffer), all
  ``dynamic``; with an unknown buffer the sizes are left out (SONiC's dynamic model sizes them);
* ``BUFFER_PROFILE``: one lossless PG profile per (link speed, cable length) named as SONiC's
  buffer manager names them (``pg_lossless_<Mb/s>_<length>_profile``, so the traditional
  model uses ours instead of its lookup table): ``xoff`` = the PFC headroom (the largest of its
  ports), ``xon`` = the plan's XON hysteresis (XOFF − XON = 2 × MTU), ``size`` = xoff + xon,
  ``dynamic_th`` = log2 α; plus the lossy/egress profiles the templates define;
* ``BUFFER_PG`` ``Ethernet<n>|<prio>`` → the lossless profile for each lossless priority, ``|0``
  → lossy; ``BUFFER_QUEUE`` ``Ethernet<n>|<prio>`` → egress lossless, the other queues lossy;
* ``DSCP_TO_TC_MAP`` (each priority's DSCP) / ``TC_TO_PRIORITY_GROUP_MAP`` / ``TC_TO_QUEUE_MAP``
  ``ROCE`` and ``PORT_QOS_MAP`` per port (``pfc_enable`` = the lossless priorities, ``3,4``);
* ``WRED_PROFILE`` per distinct ECN threshold set (``ecn: ecn_all``, green/yellow/red min/max
  = the plan's Kmin/Kmax, drop probability = Pmax in percent), ``QUEUE`` ``Ethernet<n>|<q>``
  → scheduler (+ wred_profile on each lossless queue), ``SCHEDULER`` DWRR 50/50, CNPs strict;
* ``CABLE_LENGTH`` ``AZURE`` (the list name SONiC's templates use) per port; ``PORT`` lanes
  (mandatory; the part's port→lane map, see :mod:`.switch_config`), speed (Mb/s) and mtu.
"""

from __future__ import annotations

import json
from typing import Any

from .switch_types import CNP_DSCP, CNP_PRIORITY, ExportSettings, PortConfig, SwitchConfig, ranges

MAP_NAME = "ROCE"
CABLE_LIST = "AZURE"
SCHED_OTHER, SCHED_ROCE, SCHED_CNP = "scheduler.0", "scheduler.1", "scheduler.2"
QUEUES = range(8)


def lossless_profile_name(port: PortConfig) -> str:
    return f"pg_lossless_{port.speed_mbps}_{port.cable_length}_profile"


def wred_name(port: PortConfig) -> str:
    return f"ROCE_LOSSLESS_{port.speed_mbps // 1000}G"


def _n(v: float) -> str:
    return str(int(round(v)))


def config_db(sw: SwitchConfig, s: ExportSettings) -> dict[str, Any]:
    """The CONFIG_DB tables of switch ``sw`` (see the module docstring)."""
    prios = s.priorities
    known = sw.buffer_bytes == sw.buffer_bytes          # not NaN
    pools: dict[str, dict[str, str]] = {}
    for name, kind in (("ingress_lossless_pool", "ingress"), ("ingress_lossy_pool", "ingress"),
                       ("egress_lossless_pool", "egress"), ("egress_lossy_pool", "egress")):
        pool = {"type": kind, "mode": "dynamic"}
        if known:
            pool["size"] = _n(sw.buffer_bytes if name == "egress_lossless_pool" else max(sw.shared_pool, 0))
        pools[name] = pool
    profiles: dict[str, dict[str, str]] = {
        "ingress_lossy_profile": {"pool": "ingress_lossy_pool", "size": "0", "dynamic_th": "3"},
        "egress_lossless_profile": {"pool": "egress_lossless_pool", "size": "0", "dynamic_th": "7"},
        "egress_lossy_profile": {"pool": "egress_lossy_pool", "size": str(s.mtu), "dynamic_th": "7"},
        "q_lossy_profile": {"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "3"},
    }
    xoff: dict[str, int] = {}
    hyst: dict[str, int] = {}
    for p in sw.ports:
        name = lossless_profile_name(p)
        xoff[name] = max(xoff.get(name, 0), p.headroom)
        hyst[name] = max(hyst.get(name, 0), p.xoff - p.xon)
    for name in sorted(xoff):
        profiles[name] = {"pool": "ingress_lossless_pool", "xoff": str(xoff[name]), "xon": str(hyst[name]),
                          "size": str(xoff[name] + hyst[name]), "dynamic_th": str(sw.dynamic_th)}
    lossy_q = ranges([q for q in QUEUES if q not in prios])
    pg: dict[str, dict[str, str]] = {}
    queue_buf: dict[str, dict[str, str]] = {}
    qos_map: dict[str, dict[str, str]] = {}
    queue: dict[str, dict[str, str]] = {}
    wred: dict[str, dict[str, str]] = {}
    cable: dict[str, str] = {}
    port_t: dict[str, dict[str, str]] = {}
    for p in sw.ports:
        e = p.sonic_name
        pg[f"{e}|0"] = {"profile": "ingress_lossy_profile"}
        for prio in prios:
            pg[f"{e}|{prio}"] = {"profile": lossless_profile_name(p)}
            queue_buf[f"{e}|{prio}"] = {"profile": "egress_lossless_profile"}
        for r in lossy_q:
            queue_buf[f"{e}|{r}"] = {"profile": "q_lossy_profile"}
        qos_map[e] = {"dscp_to_tc_map": MAP_NAME, "tc_to_pg_map": MAP_NAME, "tc_to_queue_map": MAP_NAME,
                      "pfc_enable": ",".join(map(str, prios))}
        w = wred_name(p)
        wred[w] = _wred(p)
        for q in QUEUES:
            if q in prios:
                queue[f"{e}|{q}"] = {"scheduler": SCHED_ROCE, "wred_profile": w}
            else:
                queue[f"{e}|{q}"] = {"scheduler": SCHED_CNP if q == CNP_PRIORITY else SCHED_OTHER}
        cable[e] = p.cable_length
        port_t[e] = {"lanes": ",".join(map(str, p.lanes)), "speed": str(p.speed_mbps), "mtu": str(s.mtu)}
    tc_of = {d: p for p, d in s.dscp_of.items()} | {CNP_DSCP: CNP_PRIORITY}
    dscp_tc = {str(d): str(tc_of.get(d, 0)) for d in range(64)}
    identity = {str(t): str(t) for t in range(8)}
    return {
        "BUFFER_POOL": pools,
        "BUFFER_PROFILE": profiles,
        "BUFFER_PG": pg,
        "BUFFER_QUEUE": queue_buf,
        "CABLE_LENGTH": {CABLE_LIST: cable},
        "DSCP_TO_TC_MAP": {MAP_NAME: dscp_tc},
        "TC_TO_PRIORITY_GROUP_MAP": {MAP_NAME: identity},
        "TC_TO_QUEUE_MAP": {MAP_NAME: dict(identity)},
        "PORT_QOS_MAP": qos_map,
        "WRED_PROFILE": dict(sorted(wred.items())),
        "SCHEDULER": {SCHED_OTHER: {"type": "DWRR", "weight": "50"},
                      SCHED_ROCE: {"type": "DWRR", "weight": "50"},
                      SCHED_CNP: {"type": "STRICT"}},
        "QUEUE": queue,
        "PORT": port_t,
    }


def _wred(p: PortConfig) -> dict[str, str]:
    """ECN marking between Kmin and Kmax up to Pmax (percent) for every colour."""
    out = {"ecn": "ecn_all", "wred_green_enable": "true", "wred_yellow_enable": "true",
           "wred_red_enable": "true"}
    for colour in ("green", "yellow", "red"):
        out[f"{colour}_min_threshold"] = str(p.ecn_kmin)
        out[f"{colour}_max_threshold"] = str(p.ecn_kmax)
        out[f"{colour}_drop_probability"] = _n(100 * p.ecn_pmax)
    return out


def config_db_text(sw: SwitchConfig, s: ExportSettings) -> str:
    return json.dumps(config_db(sw, s), indent=4) + "\n"
