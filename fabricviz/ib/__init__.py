"""InfiniBand subnet manager: discovery, LIDs, routing engines, traces, credit loops (no Qt)."""
