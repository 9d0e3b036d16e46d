"""What the canvas draws per device, port and cable at each level of detail."""
