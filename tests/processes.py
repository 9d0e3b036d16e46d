"""Counting the processes a test started (Dask worker processes must not outlive their cluster)."""

from __future__ import annotations

import psutil


def cluster_children() -> set[int]:
    """This process's descendants, less the interpreter-wide multiprocessing resource tracker
    (spawned on first use, it lives as long as this process and is no part of a cluster)."""
    out = set()
    for p in psutil.Process().children(recursive=True):
        try:
            if not any("resource_tracker" in a for a in p.cmdline()):
                out.add(p.pid)
        except psutil.NoSuchProcess:
            pass
    return out
