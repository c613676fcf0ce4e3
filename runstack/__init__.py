"""Run the system on this machine and talk to it: what the launcher, the demo, the
benchmarks and the tests share.

- :mod:`runstack.processes`: a ``python -m`` service on a free loopback port, its log,
  its health check, stopping its process group;
- :mod:`runstack.services`: the stack's services (ports, health paths, how they are wired
  to each other) and starting several of them on free ports;
- :mod:`runstack.agent_server`: ``langgraph dev`` on a port of our choosing, checked to
  be ours and to serve our graphs;
- :mod:`runstack.threads`: reading the agents' threads through the LangGraph SDK
  (background analyses, their task ids, reports and interrupts);
- :mod:`runstack.echo_graph`: a scripted stand-in agent for driving the JSON-RPC adapter
  with no model.

Imports point one way: ``scripts/`` and ``tests/`` use this package, never each other,
and it uses neither.
"""

__all__: list[str] = []
