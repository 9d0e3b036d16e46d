"""How the routing cache keeps the design's partitions: one resolution per design state (the
engine is :func:`fabricviz.ib.partition_design.resolve_design`), shared by the Partitions dock
and the canvas's partition marks."""

from __future__ import annotations

#: Routing-cache key of the resolved partitions (one per design state).
CACHE_KEY = "partitions"
#: Above this many devices the resolution runs off the UI thread.
BACKGROUND_DEVICES = 5_000

__all__ = ["BACKGROUND_DEVICES", "CACHE_KEY"]
