"""Small reusable widgets: playback controls."""
