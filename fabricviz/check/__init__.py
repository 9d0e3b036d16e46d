"""Design checks: summary metrics (info), lint rules and the bill of materials (no Qt)."""
