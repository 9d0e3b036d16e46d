"""fabricviz: design, generate and animate InfiniBand and RoCE GPU cluster fabrics."""

__version__ = "0.1.0"
