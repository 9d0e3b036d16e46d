"""The dock widgets. Each gets the document (and the canvas where it draws an overlay)."""
