"""The Agent Server's HTTP side: the ``http.app`` of langgraph.json (JSON-RPC adapter plus the
artifacts route) and the opt-in auth handler. It may use ``graphs`` and ``rpc_adapter``;
neither of them imports it."""
