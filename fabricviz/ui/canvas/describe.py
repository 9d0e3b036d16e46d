"""Words for what the canvas shows: tooltips and inspector rows (Qt-free helpers)."""

from __future__ import annotations

from fabricviz.model import Fabric, FabricError, Part
from fabricviz.model.guid import format_guid

KIND_NAMES = {"server": "server", "gpu": "GPU", "nic": "NIC", "ib_switch": "InfiniBand switch",
              "eth_switch": "Ethernet switch"}


def part_label(part: Part) -> str:
    """The part id as people should read it: ``QM9700-R16 (hypothetical)`` for a part that is no
    real product (its figures are a model's, its price unknown), else just the id."""
    return f"{part.id} (hypothetical)" if part.hypothetical else part.id


def part_text(part: Part) -> str:
    """``id: name`` for the inspector's Part row, the id marked when the part is hypothetical."""
    return f"{part_label(part)}: {part.name}"


def device_tooltip(f: Fabric | None, d: int) -> str:
    if f is None or not f.devices_t.exists(d):
        return ""
    dev = f.device(d)
    part = dev.part
    lines = [f"<b>{dev.name}</b> — {KIND_NAMES.get(dev.kind, dev.kind)}"]
    if part is not None:
        lines.append(part_text(part) if part.hypothetical else part.name)
    ports = dev.port_ids
    if len(ports):
        used = int((f.ports_t.cable[ports] >= 0).sum())
        lines.append(f"{used}/{len(ports)} ports cabled, {f.port_rate(int(ports[0]))}")
    if dev.guid:
        lines.append(f"GUID {format_guid(dev.guid)}")
    if dev.kind == "server":
        lines.append(f"{len(dev.gpus)} GPUs, {len(dev.nics)} NICs")
    return "<br>".join(lines)


def port_tooltip(f: Fabric | None, p: int) -> str:
    if f is None:
        return ""
    port = f.port(p)
    peer, cab = port.peer, port.cable
    text = f"<b>{port.name}</b> {port.rate} — {port.state}"
    if peer is not None and cab is not None:
        text += f"<br>→ {peer.name}<br>{cab.type} {cab.length_m:g} m, {cab.rate} ({cab.part_id})"
    else:
        text += "<br>free: drag to another port to cable it"
    if port.guid:
        text += f"<br>port GUID {format_guid(port.guid)}"
    qos = qos_line(f, p) if peer is not None else ""
    if qos:
        text += f"<br>{qos}"
    return text


def qos_line(f: Fabric, p: int) -> str:
    """``QoS: 4 data VLs (VL0-3) · SL→VL 0 1 2 3 0 1 2 3 …`` for a cabled InfiniBand switch or CA port
    when the design's QoS options say ``qos TRUE`` ('' otherwise): what OpenSM writes for packets
    leaving this port."""
    from fabricviz.ib.qos import port_sl2vl
    from fabricviz.ib.qos_meta import design_qos
    from fabricviz.model.tech import TECH_IB_CODE
    if int(f.ports_t.tech[p]) != TECH_IB_CODE:
        return ""
    try:
        opts = design_qos(f)
    except FabricError:
        return ""
    kind = f.device(int(f.ports_t.device[p])).kind
    got = port_sl2vl(opts, "swe" if kind == "ib_switch" else "ca") if opts is not None and \
        kind in ("ib_switch", "nic") else None
    if got is None:
        return ""
    oper, table = got
    return f"QoS: {oper} data VLs (VL0-{oper - 1}) · SL→VL {' '.join(str(v) for v in table)}"


def marker_tooltip(f: Fabric | None, p: int) -> str:
    """One plain line for a hovered port marker: full name, rate and peer,
    ``leaf01:5 — 4xNDR — to spine02:3`` (``… — free: drag to another port to cable it``)."""
    if f is None or not f.ports_t.exists(p):
        return ""
    port = f.port(p)
    rate = str(port.rate) if port.rate is not None else "no rate"
    peer = port.peer
    end = f"to {peer.name}" if peer is not None else "free: drag to another port to cable it"
    return f"{port.name} — {rate} — {end}"


def port_rows(f: Fabric, d: int) -> list[tuple[int, str, str, str, str, str]]:
    """(port id, port name, rate, state, peer, cable) for a device's ports; a server lists its NICs'."""
    dev = f.device(d)
    devices = dev.nics if dev.kind == "server" else [dev]
    rows = []
    for x in devices:
        for pid in x.port_ids.tolist():
            port = f.port(pid)
            peer = port.peer
            cab = port.cable
            rows.append((pid, port.name, str(port.rate), port.state,
                         peer.name if peer is not None else "—",
                         f"{cab.type} {cab.length_m:g} m {cab.rate}" if cab is not None else ""))
    return rows


def rate_choices(f: Fabric, p: int) -> list[str]:
    """Rates a port's part supports, fastest first: every mode at full and half width
    (a 4x InfiniBand port also runs 2x, as with splitter cables) and every slower speed."""
    from fabricviz.model.tech import ETH_SPEEDS, IB_SPEEDS, LinkRate
    part = f.part_of(int(f.ports_t.device[p]))
    modes = part.modes if part is not None else ()
    out: list[LinkRate] = []
    for m in modes:
        if m.tech == "eth":
            out += [LinkRate("eth", str(s), 1) for s in ETH_SPEEDS[:m.speed_rank + 1]]
            continue
        widths = [m.width] + ([m.width // 2] if m.width >= 2 else [])
        out += [LinkRate("ib", s, w) for s in IB_SPEEDS[:m.speed_rank + 1] for w in widths]
    seen: dict[str, float] = {}
    for r in out:
        seen.setdefault(str(r), r.gbps)
    return sorted(seen, key=lambda k: (-seen[k], k))


def noun(n: int, word: str) -> str:
    """``word`` for a count: ``server``/``servers``, ``switch``/``switches``."""
    if n == 1:
        return word
    return word + ("es" if word.endswith(("s", "sh", "ch", "x")) else "s")


def plural(n: int, word: str) -> str:
    """``1 server``, ``2 servers``, ``3 switches``, ``1,024 GPUs``."""
    return f"{n:,} {noun(n, word)}"
