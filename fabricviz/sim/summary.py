"""A run's summary as plain text: what ``fabricviz simulate`` prints and lessons narrate."""

from __future__ import annotations

from .fct import fct_lines


def format_summary(s: dict) -> str:
    """A run's :meth:`~fabricviz.sim.engine.SimResult.summary` as the lines the CLI and lessons print."""
    r = s["rate_share"]
    lines = [f"{s['flows']} flows, {s['routing']} routing, {s['model']} model on {s['fabric']}"
             + (f", {s['duration_s'] * 1e3:g} ms" if "duration_s" in s else ""),
             f"flow rate / line rate: mean {r['mean']:.3f}  min {r['min']:.3f}  max {r['max']:.3f}"
             f"  (total {s['rate_gbps']['total']:.1f} Gb/s)"]
    if s["hottest_links"]:
        lines.append("hottest links:")
        lines += [f"  {h['from']} -> {h['to']}: {h['utilization']:.1%}" for h in s["hottest_links"]]
    if "max_queue" in s:
        mq = s["max_queue"]
        lines.insert(1, f"rates and utilisation: mean over the steady part, from {s['steady_from_s'] * 1e3:g} ms")
        lines.append(f"max queue: {mq['bytes'] / 1e3:.1f} KB at {mq['link']} (peak at {mq['at_s'] * 1e3:.3f} ms;"
                     f" {mq['steady_bytes'] / 1e3:.1f} KB mean over the steady part)")
        n, shown = s["paused_link_count"], len(s["paused_links"])
        lines.append("paused links: none" if n == 0 else
                     f"paused links: {n}" + (f" ({shown} most paused shown)" if n > shown else "") + ":"
                     + "".join(f"\n  {p['from']} -> {p['to']}: paused {p['paused_fraction']:.1%}"
                               for p in s["paused_links"]))
        lines.append(f"flows: {s['active_flows']} sent, {s['finished_flows']} finished"
                     + (f", all done at {s['completion_s'] * 1e3:.3f} ms" if "completion_s" in s else ""))
        lost = s["lost_bytes"]
        why = (" (dropped by the PFC watchdog)" if s.get("pfc_watchdog", {}).get("dropped_bytes") else
               " (dropped at full queues, no PFC)" if s.get("dropped_bytes") else "")
        lines.append((f"bytes lost: {lost:,.0f}{why}" if lost >= 1 else f"bytes lost: {lost:g}")
                     + (" (lossless)" if lost == 0 else "")
                     + (f"; headroom exceeded on {s['headroom_exceeded_links']} links (a real switch would drop)"
                        if s.get("headroom_exceeded_links") else ""))
    lines += fct_lines(s)
    return "\n".join(lines)


__all__ = ["format_summary"]
