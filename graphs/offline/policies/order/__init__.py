"""procurement-order policy: understand the operation → ERP tools → verify → confirm.

The operation comes from the orchestrator's delegation (or the buyer's words, read by
:mod:`graphs.offline.intent`): a new order (:mod:`.create`), or a change, cancellation
or look-up of an existing one (:mod:`.existing`). Names are resolved against the ERP's
answers; anything missing or ambiguous is asked with ``request_order_info``; anything
impossible is refused with a sentence; ``order_create`` / ``order_update`` pause for the
human's approval and the result is verified before it is confirmed.
"""

from __future__ import annotations

from graphs.offline.history import View
from graphs.offline.policies.base import Decision
from graphs.offline.policies.order.create import create
from graphs.offline.policies.order.existing import change, lookup
from graphs.offline.policies.order.facts import Facts

__all__ = ["decide"]


def decide(view: View) -> Decision:
    """Next step of the order agent."""
    facts = Facts.of(view)
    stop = facts.failed_read()
    if stop is not None:
        return stop
    match facts.intent:
        case "order_change":
            return change(facts, cancel=False)
        case "order_cancel":
            return change(facts, cancel=True)
        case "order_lookup":
            return lookup(facts)
        case _:
            return create(facts)
