"""What an agent needs to know about the sandbox, for its system prompt."""

from __future__ import annotations

from graphs.sandbox.settings import SandboxSettings

SANDBOX_PROMPT = """## Running code
`execute` runs a bash command in an isolated sandbox of this conversation. Its
working directory is `/`, which holds the same files as the file tools: `/data/`,
`/analysis/`, `/skills/`, `/AGENTS.md`. `python3` has numpy and pandas. There is
no network: fetch data with the web tools first and save it under `/data/`.
`/tmp` is private to each command. Per command, all its processes together:
{timeout_s} s wall time, {cpu_s} s CPU, {memory_mb} MB memory, {max_processes}
processes, {max_output_kb} KB of output (write large results to files and read
them back). The workspace holds at most {disk_mb} MB of files."""


def sandbox_prompt(settings: SandboxSettings | None = None) -> str:
    """``SANDBOX_PROMPT`` filled in with the configured limits."""
    s = settings or SandboxSettings()
    return SANDBOX_PROMPT.format(
        timeout_s=s.timeout_s,
        cpu_s=s.cpu_s or s.timeout_s,
        memory_mb=s.memory_mb,
        max_processes=s.max_processes,
        max_output_kb=s.max_output_bytes // 1000,
        disk_mb=s.disk_mb,
    )
