"""One open design: editor (undo stack, model-event bridge, revision), commands, autosave, session."""
