"""Secondary windows and dialogs: the generator, InfiniBand vs RoCE."""
