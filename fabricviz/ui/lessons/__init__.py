"""Lessons: the dock, the stage (canvas following the steps), presentation mode, screenshots."""
