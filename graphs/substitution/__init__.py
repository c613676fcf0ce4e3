"""Part substitution across a bill of materials (issue 19): the pure logic the tools, the
approval middleware and the offline planner share.

- :mod:`.bom`: a BOM read from whatever form it arrives in (a client tool's JSON, a CSV or
  Markdown table, "line part qty" lines, a text file attached to the message);
- :mod:`.plan`: which lines a request affects and, from the ERP's cross-reference
  (``part_equivalents``), the equivalent each one gets;
- :mod:`.table`: the replacement table in the buyer's language (the approval card);
- :mod:`.client`: the BOM and apply tools a JSON-RPC client lends, and the batch-replace
  request returned when there is no apply tool.
"""
