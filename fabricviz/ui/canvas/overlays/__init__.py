"""Layers drawn over the design: the SM sweep, traffic heatmap, per-port loads."""
