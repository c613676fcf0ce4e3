"""JSON-RPC 2.0 WebSocket adapter in front of the Agent Server (DESIGN section 8)."""
