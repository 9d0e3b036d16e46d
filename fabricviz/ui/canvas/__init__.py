"""The canvas: the scene mirroring the model, the view, theme, picture export; items/ and overlays/."""
