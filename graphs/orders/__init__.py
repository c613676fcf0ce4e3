"""Orders a purchasing team can trust (issue 14), below any model: what the order agent
knows about each proposed order (``review``), the buyer's language (``language``), words
for the ERP's codes (``words``, ``issues``), the approval card (``card``), the approval
policy (``policy``), the verdicts of past decisions (``ledger``) and the flag that lets
approvers find a pending approval (``thread_flag``). The middleware that uses them:
:mod:`graphs.middleware.order_guard` and :mod:`graphs.middleware.order_approval`.
"""
