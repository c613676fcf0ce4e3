"""The offline planner: a deterministic chat model with a fixed policy per agent."""

from graphs.offline.model import LABEL, MARKS, OfflinePlanner, PolicyName, offline_label

__all__ = ["LABEL", "MARKS", "OfflinePlanner", "PolicyName", "offline_label"]
