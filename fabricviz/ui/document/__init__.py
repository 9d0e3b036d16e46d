"""One open design: editor (undo stack, model-event bridge, revision), commands, files (open,
save, recent, autosave and recovery), session."""
