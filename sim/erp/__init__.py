"""The simulated company ERP: a REST service over SQLAlchemy (docs/erp_api.md).

It stands in for the company's Java ERP, so nothing outside ``sim/`` imports it:
the agents and ``mcp_erp`` reach it only over HTTP.
"""
