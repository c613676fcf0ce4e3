"""The offline planner: a deterministic chat model with a fixed policy per agent."""

from graphs.offline.model import LABEL, OfflinePlanner, PolicyName, offline_label

__all__ = ["LABEL", "OfflinePlanner", "PolicyName", "offline_label"]
