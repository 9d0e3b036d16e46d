"""Short switch names for the middle level, where a row of switches must read at a glance.

* a leaf of a rail-optimised design (:func:`~fabricviz.generate.recognise.recognise`) whose name
  does not say its rail is named like the generator names its leaves (:mod:`fabricviz.generate.rail`:
  ``su1-rail0``), from its scalable unit and rail, so a unit's row reads rail by rail;
* a switch named by its UFM NodeDescription, ``MF0;<host name>:<model>/U1`` (``"MF0;A10-P1-
  IBSPINE-01:MQM9701/U1"``), by its host name (``A10-P1-IBSPINE-01``).

Near zoom shows every device's own name; these are only what the label layer draws at middle
(:meth:`~fabricviz.ui.canvas.items.labels.LabelLayer.set_aliases`).
"""

from __future__ import annotations

import re

import numpy as np

from fabricviz.generate.groups import Grouping
from fabricviz.generate.recognise import recognise
from fabricviz.ib.tiers import switch_mask
from fabricviz.model import Fabric

#: A UFM-style switch NodeDescription: ``MF0;<host name>:<model>[/U1]``.
UFM_SWITCH = re.compile(r"^MF\d+;([^:;]+):[^:;]*$")

_cache: dict[int, tuple[Grouping, dict[int, str]]] = {}


def middle_names(f: Fabric, g: Grouping) -> dict[int, str]:
    """Per switch id, the name shown at middle when it is shorter than its own (computed once per
    grouping ``g``: the canvas regroups on every structural change and rename)."""
    hit = _cache.get(id(f))
    if hit is not None and hit[0] is g:
        return hit[1]
    out: dict[int, str] = {}
    for d in np.flatnonzero(switch_mask(f)).tolist():
        m = UFM_SWITCH.match(f.name_of(d))
        if m:
            out[d] = m.group(1)
    s = recognise(f)
    if s.rail_optimised:
        for u in s.units:
            for d, r in zip(u.leaves, u.rails, strict=True):
                rail = f"rail{r}"
                if r >= 0 and rail not in f.name_of(d).lower():
                    out[d] = f"{u.name}-{rail}"
    _cache.clear()                           # the shown design only
    _cache[id(f)] = (g, out)
    return out


__all__ = ["UFM_SWITCH", "middle_names"]
