"""Agent middleware, one per module (DESIGN section 4)."""
