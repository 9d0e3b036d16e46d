"""Qt-free animation models: event streams turned into frames the GUI can show in any order."""
