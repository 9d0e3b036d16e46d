"""The other-technology twin of a design: the same fabric built with InfiniBand or RoCE parts.

``twin(fabric, "roce")`` keeps every device, name, position, tier, GPU-NIC
binding and cable (port for port, same length) and swaps the technology:

* a switch becomes a catalog switch of the other technology with at least as
  many ports whose ports run at the same speed class (4xNDR ↔ 400GbE,
  4xHDR ↔ 200GbE, 4xXDR ↔ 800GbE), chosen by the generators' own
  :func:`~fabricviz.generate.common.pick_switch`; a textbook radix model
  (``QM9700-R8``) becomes the radix model the generator would build
  (``SN4700-R8``). When no switch of that speed exists the smallest one whose
  ports can run slower is used in that mode (QM8700 40×HDR → SN5400 at 200GbE);
  when none has enough ports the twin is refused, naming the device;
* a NIC keeps its part (ConnectX cards are VPI) and runs its port mode of the
  other technology;
* a cable keeps its length and, when the catalog has one that reaches, its
  type (DAC, AOC, optics), so the two designs differ only in technology (a
  shared cage takes that type's plug of its own: a QM9700 cage's splitter).

The twin records where it came from in ``meta["twin"]`` (the source switch
parts, and device rates a round trip could not recover), so twinning back
gives the original parts. Nothing is built when anything is refused.
"""

from __future__ import annotations

import copy
import functools
import math
import re
from typing import Any

import numpy as np

from ..generate.common import check_lid_space, finish, pick_switch, radix_model
from ..model import Catalog, Fabric, FabricError, LinkRate, Part
from ..model.catalog import CatalogError
from ..model.fabric import ETH_SWITCH, IB_SWITCH, KIND_CODE, NIC, SWITCH_KINDS
from ..model.settings import TwinRecord
from ..model.tech import ETH, ETH_SPEEDS, IB, IB_SPEEDS, tech_name

#: ``twin()``'s technology names → model technology.
TWIN_TECHS = {"ib": IB, "roce": ETH}
_RADIX_ID = re.compile(r"^(.+)-R(\d+)$")


@functools.lru_cache(maxsize=256)
def equivalent_rate(rate: LinkRate, tech: str) -> LinkRate:
    """The ``tech`` rate of the same speed class: the nearest data rate (ratio), ties to the
    faster; InfiniBand prefers 4x links. 4xNDR ↔ 400GbE, 4xHDR ↔ 200GbE, 4xFDR → 50GbE."""
    if rate.tech == tech:
        return rate
    if tech == ETH:
        cands = [LinkRate(ETH, str(g)) for g in ETH_SPEEDS]
    else:
        cands = [LinkRate(IB, s, w) for s in IB_SPEEDS for w in (4, 2, 1)]

    def key(r: LinkRate) -> tuple[float, bool, float]:
        return round(abs(math.log(r.gbps / rate.gbps)), 9), tech != ETH and r.width != 4, -r.gbps
    return min(cands, key=key)


def _known(rate: LinkRate | None) -> LinkRate:
    """A cable's or port's rate, which a live cable always has."""
    if rate is None:
        raise FabricError("twin: a cabled port has no link rate")
    return rate


def _runs(part: Part, rate: LinkRate) -> bool:
    """``part``'s ports can be set to ``rate`` (same test as the model's port modes)."""
    return any(m.tech == rate.tech and rate.speed_rank <= m.speed_rank and rate.width <= m.width
               for m in part.modes)


def _radix_base(cat: Catalog, part: Part) -> Part | None:
    """The catalog switch a radix model (``QM9700-R8``) was made from, else None."""
    m = _RADIX_ID.match(part.id)
    if not part.user or m is None or int(m.group(2)) != part.ports or m.group(1) not in cat:
        return None
    base = cat.get(m.group(1))
    return base if base.kind == part.kind else None


def _gbps_text(rate: LinkRate) -> str:
    return f"{rate.gbps:g}G"


class _Chooser:
    """Part and rate choices for one twin, cached per (part, rate)."""

    def __init__(self, fabric: Fabric, target: str, record: TwinRecord | None) -> None:
        self.cat = fabric.catalog
        self.target = target
        self.kind = IB_SWITCH if target == IB else ETH_SWITCH
        self.new_parts: dict[str, Part] = {}
        back = record is not None and record.source_tech == ("ib" if target == IB else "roce")
        self.prefer_parts: dict[str, str] = dict(record.parts) if back and record else {}
        self.prefer_rates: dict[str, str] = dict(record.rates) if back and record else {}
        self._cache: dict[tuple[str, LinkRate], tuple[Part, LinkRate]] = {}
        self._nic_cache: dict[tuple[str, LinkRate], LinkRate] = {}
        self.mapped: dict[str, str] = {}      # source switch part → twin part (first seen)

    def _preferred(self, name: str, used: int, want: LinkRate) -> Part | None:
        pid = self.prefer_parts.get(name)
        if pid is None or pid not in self.cat:
            return None
        p = self.cat.get(pid)
        return p if p.kind == self.kind and p.ports >= used and _runs(p, want) else None

    def rate_for(self, name: str, rate: LinkRate) -> LinkRate:
        """The rate a device should run at in the twin: the recorded one when twinning back."""
        text = self.prefer_rates.get(name)
        if text is not None:
            try:
                return LinkRate.parse(text)
            except FabricError:
                pass
        return equivalent_rate(rate, self.target)

    def switch(self, name: str, src: Part, rate: LinkRate, used: int) -> tuple[Part, LinkRate]:
        """(part, port rate) of switch ``name`` (part ``src`` at ``rate``, ``used`` highest cabled port)."""
        want = self.rate_for(name, rate)
        pref = self._preferred(name, used, want)
        if pref is not None:
            self.mapped.setdefault(src.id, pref.id)
            return pref, want
        key = (src.id, want)
        if key not in self._cache:
            self._cache[key] = (self._pick(name, src, want), want)
        self.mapped.setdefault(src.id, self._cache[key][0].id)
        return self._cache[key]

    def _pick(self, name: str, src: Part, want: LinkRate) -> Part:
        n = src.ports
        textbook = _radix_base(self.cat, src) is not None
        try:                             # the generators' choice: same speed, exact port count first
            p = pick_switch(self.cat, self.target, n, speed=str(want))
        except FabricError:
            p = None
        if p is not None:
            base = _radix_base(self.cat, p)
            if base is not None and not textbook:
                p = base                 # a real design gets the real switch, spare ports and all
            elif base is None and p.hypothetical and not textbook:
                p = None                 # a radix model of a broken-out part: a real switch run slower instead
        if p is None:                            # no switch of that speed: one whose ports run slower
            cands = [q for q in self.cat.by_kind(self.kind)
                     if q.ports >= n and _runs(q, want) and _radix_base(self.cat, q) is None]
            if not cands:
                raise FabricError(f"device {name}: no {tech_name(self.target)} switch with ≥{n} ports "
                                  f"at {_gbps_text(want)} in the catalog")
            p = min(cands, key=lambda q: (q.ports, _known(q.rate).speed_rank, q.price_usd, q.id))
            if textbook and p.ports != n:
                p = radix_model(p, n)
        if p.id not in self.cat or self.cat.get(p.id) != p:
            self.new_parts[p.id] = p
        return p

    def nic(self, name: str, part: Part, rate: LinkRate) -> LinkRate:
        """The port rate of NIC ``name`` in the twin: its mode of the other technology."""
        want = self.rate_for(name, rate)
        key = (part.id, want)
        if key not in self._nic_cache:
            self._nic_cache[key] = self._nic_rate(name, part, want)
        return self._nic_cache[key]

    def _nic_rate(self, name: str, part: Part, want: LinkRate) -> LinkRate:
        modes = [m for m in part.modes if m.tech == self.target]
        if not modes:
            raise FabricError(f"device {name}: {part.id} has no {tech_name(self.target)} port mode")
        if _runs(part, want):
            return want
        slower = [m for m in modes if m.gbps <= want.gbps]
        return max(slower, key=lambda m: m.gbps) if slower else min(modes, key=lambda m: m.gbps)


def twin(fabric: Fabric, tech: str) -> Fabric:
    """The ``tech`` ("ib" or "roce") version of ``fabric``; see the module doc.

    Devices come in the same order, so a design without removed devices keeps
    its device, port and cable ids (flows and link ids compare one to one).
    """
    from ..formats.native import all_names, fabric_from_dict, fabric_to_dict
    if tech not in TWIN_TECHS:
        raise FabricError(f"twin: technology {tech!r}: use ib or roce")
    target = TWIN_TECHS[tech]
    source_tech = "roce" if target == IB else "ib"
    t, pt = fabric.devices_t, fabric.ports_t
    ids = fabric.device_ids()
    kinds = t.kind[ids]
    switch_codes = [KIND_CODE[k] for k in SWITCH_KINDS]
    if target == IB:                     # one subnet: every CA port and switch needs a LID
        nic_ports = int(t.nports[ids[kinds == KIND_CODE[NIC]]].sum())
        check_lid_space(IB, nic_ports, int(np.isin(kinds, switch_codes).sum()))
    data = fabric_to_dict(fabric)
    names = all_names(fabric)
    choose = _Chooser(fabric, target, fabric.settings.twin)
    # highest cabled port per device (a preferred part must keep those port numbers)
    cabled = np.flatnonzero(pt.cable >= 0)
    used = np.zeros(t.n, np.int64)
    np.maximum.at(used, pt.device[cabled].astype(np.int64), pt.num[cabled].astype(np.int64))
    src_parts: dict[str, str] = {}
    lossy: dict[str, str] = {}
    converted: set[str] = set()
    for d, rec, kc in zip(ids.tolist(), data["devices"], kinds.tolist(), strict=True):
        if kc not in switch_codes and kc != KIND_CODE[NIC]:
            continue
        rate = _known(fabric.port_rate(int(t.first_port[d])))
        if rate.tech == target:
            continue
        name = names[d]
        part = fabric.catalog.get(rec["part"])
        if kc == KIND_CODE[NIC]:
            new_rate = choose.nic(name, part, rate)
            new_part = part
        else:
            new_part, new_rate = choose.switch(name, part, rate, int(used[d]))
            rec["kind"] = choose.kind
            rec["part"] = new_part.id
            src_parts[name] = part.id
        if equivalent_rate(new_rate, rate.tech) != rate:
            lossy[name] = str(rate)
        rec.pop("mode", None)
        if new_rate != new_part.modes[0]:
            rec["mode"] = str(new_rate)
        if target == ETH:
            rec.pop("guid", None)
        converted.add(name)
    for rec in data["ports"]:
        dev = rec["port"].rpartition(":")[0]
        if dev not in converted:
            continue
        rec.pop("guid", None)
        if "rate" in rec:
            rec["rate"] = str(equivalent_rate(LinkRate.parse(rec["rate"]), target))
    data["ports"] = [r for r in data["ports"] if len(r) > 1]
    user = {p["id"]: p for p in data["parts"]}
    user.update({p.id: p.to_dict() for p in choose.new_parts.values()})
    data["parts"] = [user[k] for k in sorted(user)]
    data["cables"] = []
    data["name"] = f"{fabric.name}-{tech}"
    data["meta"] = _twin_meta(fabric, tech, source_tech, src_parts, lossy, choose)
    g = fabric_from_dict(data, f"{tech} twin of {fabric.name}", fabric.catalog)
    st = fabric.devices_t                # exact float32 positions (the file rounds to 3 decimals)
    g.set_positions(np.arange(len(ids)), st.x[ids], st.y[ids])
    _add_cables(fabric, g, ids, choose.cat)
    g.meta["twin"]["changed_rate_cables"] = _changed_rates(fabric, g)
    return finish(g)


def _twin_meta(fabric: Fabric, tech: str, source_tech: str, src_parts: dict[str, str],
               lossy: dict[str, str], choose: _Chooser) -> dict[str, Any]:
    gen = fabric.settings.generator
    meta = copy.deepcopy(fabric.meta)    # the twin keeps the source's settings, as they are written
    meta.pop("twin", None)
    if gen.fabric in TWIN_TECHS:
        meta["fabric"] = tech
    speed, switch = gen.params.get("speed"), gen.params.get("switch")
    if isinstance(speed, str):           # params is an object: write the twin's into the copy
        try:
            meta["params"]["speed"] = str(equivalent_rate(LinkRate.parse(speed), TWIN_TECHS[tech]))
        except FabricError:
            pass
    if isinstance(switch, str) and switch in choose.mapped:
        meta["params"]["switch"] = choose.mapped[switch]
    meta["twin"] = {"of": fabric.name, "from": source_tech, "parts": src_parts, "rates": lossy}
    return meta


def _add_cables(src: Fabric, g: Fabric, ids: np.ndarray, cat: Catalog) -> None:
    """The source's cables between the same ports, in the same order, same length; the same
    cable type when one reaches at the new rate, else the catalog's usual choice."""
    ct, pt = src.cables_t, src.ports_t
    live = src.cable_ids()
    if not len(live):
        return
    to_twin = np.full(src.devices_t.n, -1, np.int64)
    to_twin[ids] = np.arange(len(ids))
    gt = g.devices_t
    ends = []
    for col in (ct.port_a, ct.port_b):
        p = col[live].astype(np.int64)
        ends.append(gt.first_port[to_twin[pt.device[p]]].astype(np.int64) + pt.num[p].astype(np.int64) - 1)
    pa, pb = ends
    gp = g.ports_t
    lengths = ct.length[live].astype(np.float64)
    keys = np.stack([gp.tech[pa].astype(np.int64), np.minimum(gp.speed[pa], gp.speed[pb]).astype(np.int64),
                     np.minimum(gp.width[pa], gp.width[pb]).astype(np.int64),
                     np.round(lengths * 1000).astype(np.int64), ct.ctype[live].astype(np.int64)], axis=1)
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    from ..model import CABLE_TYPES
    typed: dict[str, Catalog] = {}
    chosen = []
    for k, (tc, sp, wd, _mm, ty) in enumerate(uniq.tolist()):
        i = int(np.flatnonzero(inverse == k)[0])
        rate = _known(LinkRate.decode(tc, sp, wd))
        ctype = CABLE_TYPES[ty]
        if ctype not in typed:
            typed[ctype] = Catalog([p for p in cat if p.kind != "cable" or p.cable_type == ctype])
        try:
            c = typed[ctype].cable_for(rate, float(lengths[i]))
        except CatalogError:
            try:
                c = cat.cable_for(rate, float(lengths[i]))
            except CatalogError as e:
                raise FabricError(f"cable {src.port_name(int(ct.port_a[live[i]]))} – "
                                  f"{src.port_name(int(ct.port_b[live[i]]))}: {e}") from None
        chosen.append(c.id)
    # the chosen part's type: the model picks that type's part, a shared cage's own plug where one serves
    # it (a QM9700 cage's splitter or twin-port optics, model.cage_cables), else this same per-link part
    type_of = np.array([cat.get(c).cable_type for c in chosen], dtype=object)[inverse]
    start = 0
    while start < len(live):             # runs of one type, in cable order (ids stay aligned)
        end = start + 1
        while end < len(live) and type_of[end] == type_of[start]:
            end += 1
        g.add_cables(pa[start:end], pb[start:end], lengths[start:end], ctype=type_of[start], emit=False)
        start = end


def _changed_rates(src: Fabric, g: Fabric) -> int:
    """Cables whose data rate differs between the source and the twin (0 when the speed
    classes all matched; a NIC without the other technology's speed shows up here)."""
    def gbps(f: Fabric) -> np.ndarray:
        ct = f.cables_t
        live = f.cable_ids()
        codes = np.stack([ct.tech[live], ct.speed[live], ct.width[live]], axis=1).astype(np.int64)
        u, inv = np.unique(codes, axis=0, return_inverse=True)
        vals = np.array([_known(LinkRate.decode(*map(int, row))).gbps for row in u]) if len(u) else np.zeros(0)
        return vals[inv.ravel()] if len(live) else np.zeros(0)
    a, b = gbps(src), gbps(g)
    return int(np.sum(~np.isclose(a, b))) if len(a) == len(b) else abs(len(a) - len(b))


__all__ = ["TWIN_TECHS", "equivalent_rate", "twin"]
