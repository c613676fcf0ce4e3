"""Agent evaluation in the manner of tau-bench (``scripts/eval``): task files of user turns,
answers to the agent's questions and approval decisions, with the expected ERP end state
and the statements the reply must make, computed from the ERP when each attempt is
checked; k attempts per task through the real graphs, pass^1 ... pass^k per family."""
