"""Design checks: summary metrics (info), later lint and bill of materials."""
