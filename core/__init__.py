"""Small pieces every service shares: base settings, logging, the Host/Origin guard, serving."""
