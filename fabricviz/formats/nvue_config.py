"""NVIDIA Cumulus Linux (NVUE) lossless RoCE configuration of one switch: startup YAML and
the equivalent ``nv set`` commands.

Commands as Cumulus Linux's Quality of Service / RoCE pages document them:

* ``nv set qos roce mode lossless`` (PFC + ECN on the RoCE priority, trust, ETS, pools);
* ``nv set qos mapping default-global trust l3`` and ``… dscp <d> switch-priority <p>`` for the
  DSCP of each lossless priority and the CNP DSCP 48 → 6; ``nv set qos egress-queue-mapping default-global
  switch-priority <p> traffic-class <p>``;
* one PFC profile per (link speed, cable length) — ``nv set qos pfc <profile> switch-priority``,
  ``cable-length`` (metres, rounded up), ``port-buffer``, ``xoff-threshold``,
  ``xon-threshold``, ``tx``/``rx enable`` — applied with
  ``nv set interface swp<n> qos pfc profile <profile>``. The three sizes as NVIDIA's QoS page
  (:data:`QOS_PAGE`) defines them: ``port-buffer`` is the buffer reserved for the priority
  group, ``xoff-threshold`` the part of it filled before the switch sends PFC, and the rest,
  ``port-buffer − xoff-threshold``, takes what arrives after PFC: the headroom. So
  ``xoff-threshold`` = the plan's hysteresis (XOFF − XON = 2 × MTU; the same bytes SONiC's
  profile reserves as ``xon``), ``port-buffer`` = that + the plan's headroom (the largest of
  the profile's ports; SONiC's ``size``), and ``xon-threshold`` (an absolute fill: the page's
  ``xon-threshold 1000`` is ``xon_delta = 500`` below ``xoff 1500``) one MTU below
  ``xoff-threshold``, as NVIDIA's mlx5 driver sets its receive buffers (``xon = xoff_threshold
  − MTU``, Linux ``en/port_buffer.c``);
* one ECN profile per link speed — ``nv set qos congestion-control <profile> traffic-class <p>
  ecn enable``, ``min-threshold`` / ``max-threshold`` (bytes, the plan's Kmin/Kmax),
  ``probability`` (percent, Pmax), ``red disable`` (mark, never drop) — applied with
  ``nv set interface swp<n> qos congestion-control profile <profile>``.

The startup YAML is the same tree (``- set: {qos: …, interface: …}``) as NVUE keeps it in
``/etc/nvue.d/startup.yaml``; a set of values (``switch-priority``) is a mapping of each value
to ``{}``.
"""

from __future__ import annotations

import math
from typing import Any

import yaml

from .switch_types import CNP_DSCP, CNP_PRIORITY, ExportSettings, PortConfig, SwitchConfig

#: Where NVIDIA defines port-buffer / xoff-threshold / xon-threshold (PFC and Link Pause tables).
QOS_PAGE = ("https://docs.nvidia.com/networking-ethernet-software/cumulus-linux/"
            "Layer-1-and-Switch-Ports/Quality-of-Service/")


def cable_metres(p: PortConfig) -> int:
    """NVUE's ``cable-length``: whole metres 1-100000, rounded up."""
    return min(max(int(math.ceil(p.cable_m - 1e-9)), 1), 100000)


def pfc_profile(p: PortConfig) -> str:
    return f"roce-pfc-{p.speed_mbps // 1000}g-{cable_metres(p)}m"


def pfc_sizes(p: PortConfig, mtu: int) -> tuple[int, int, int]:
    """``(port-buffer, xoff-threshold, xon-threshold)`` of port ``p`` (see the module docstring):
    port-buffer − xoff-threshold is the plan's headroom."""
    xoff = p.xoff - p.xon
    return p.headroom + xoff, xoff, max(xoff - mtu, 0)


def ecn_profile(p: PortConfig) -> str:
    return f"roce-ecn-{p.speed_mbps // 1000}g"


def tree(sw: SwitchConfig, s: ExportSettings) -> dict[str, Any]:
    """The ``set`` tree of switch ``sw`` (see the module docstring)."""
    prios = s.priorities
    pfc: dict[str, dict[str, Any]] = {}
    ecn: dict[str, dict[str, Any]] = {}
    iface: dict[str, Any] = {}
    for p in sw.ports:
        name = pfc_profile(p)
        old = pfc.get(name)
        port_buffer, xoff, xon = pfc_sizes(p, s.mtu)     # xoff, xon: the same on every port (MTU)
        port_buffer = max(port_buffer, old["port-buffer"] if old else 0)
        pfc[name] = {"switch-priority": {str(q): {} for q in prios}, "cable-length": cable_metres(p),
                     "port-buffer": port_buffer, "xoff-threshold": xoff, "xon-threshold": xon,
                     "tx": "enable", "rx": "enable"}
        ecn[ecn_profile(p)] = {"traffic-class": {str(q): {
            "ecn": "enable", "red": "disable", "min-threshold": p.ecn_kmin, "max-threshold": p.ecn_kmax,
            "probability": int(round(100 * p.ecn_pmax))} for q in prios}}
        iface[p.cumulus_name] = {"qos": {"pfc": {"profile": name},
                                         "congestion-control": {"profile": ecn_profile(p)}}}
    qos = {
        "roce": {"enable": "on", "mode": "lossless"},
        "mapping": {"default-global": {"trust": "l3", "dscp": {
            **{str(d): {"switch-priority": q} for q, d in s.dscp_of.items()},
            str(CNP_DSCP): {"switch-priority": CNP_PRIORITY}}}},
        "egress-queue-mapping": {"default-global": {"switch-priority": {
            **{str(q): {"traffic-class": q} for q in prios},
            str(CNP_PRIORITY): {"traffic-class": CNP_PRIORITY}}}},
        "pfc": dict(sorted(pfc.items())),
        "congestion-control": dict(sorted(ecn.items())),
    }
    return {"qos": qos, "interface": iface}


def startup_yaml(sw: SwitchConfig, s: ExportSettings) -> str:
    head = (f"# NVUE startup configuration of {sw.name} ({sw.part}): lossless RoCE on "
            f"{s.text}, MTU {s.mtu}, headroom by the {s.method} method (fabricviz)\n")
    return head + yaml.safe_dump([{"set": tree(sw, s)}], sort_keys=False, default_flow_style=False)


def commands(sw: SwitchConfig, s: ExportSettings) -> list[str]:
    """The ``nv set`` commands of the same configuration, ending with ``nv config apply``."""
    t = tree(sw, s)
    q = t["qos"]
    out = ["nv set qos roce mode lossless", "nv set qos mapping default-global trust l3"]
    for d, v in q["mapping"]["default-global"]["dscp"].items():
        out.append(f"nv set qos mapping default-global dscp {d} switch-priority {v['switch-priority']}")
    for sp, v in q["egress-queue-mapping"]["default-global"]["switch-priority"].items():
        out.append(f"nv set qos egress-queue-mapping default-global switch-priority {sp} "
                   f"traffic-class {v['traffic-class']}")
    for name, v in q["pfc"].items():
        for sp in v["switch-priority"]:
            out.append(f"nv set qos pfc {name} switch-priority {sp}")
        for key in ("cable-length", "port-buffer", "xoff-threshold", "xon-threshold", "tx", "rx"):
            out.append(f"nv set qos pfc {name} {key} {v[key]}")
    for name, v in q["congestion-control"].items():
        for tc, w in v["traffic-class"].items():
            for key in ("ecn", "red", "min-threshold", "max-threshold", "probability"):
                out.append(f"nv set qos congestion-control {name} traffic-class {tc} {key} {w[key]}")
    for ifname, v in t["interface"].items():
        out.append(f"nv set interface {ifname} qos pfc profile {v['qos']['pfc']['profile']}")
        out.append(f"nv set interface {ifname} qos congestion-control profile "
                   f"{v['qos']['congestion-control']['profile']}")
    out.append("nv config apply")
    return out


def nv_script(sw: SwitchConfig, s: ExportSettings) -> str:
    return ("#!/bin/sh\n"
            f"# NVUE commands for {sw.name} ({sw.part}): lossless RoCE on {s.text} "
            "(fabricviz)\nset -e\n" + "\n".join(commands(sw, s)) + "\n")
