"""Bounded capture of a command's output, shared by the sandbox backends."""

from __future__ import annotations

TIMEOUT_EXIT_CODE = 124
"""Exit code reported when the wall-time limit killed a command (as coreutils' timeout)."""


class OutputCapture:
    """Keeps the head and the tail of a command's output within a byte budget."""

    def __init__(self, limit: int) -> None:
        """Keep at most ``limit`` bytes: the first half and the last half."""
        self.limit = limit
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        """Take the next chunk of output."""
        self.total += len(chunk)
        room = self.limit // 2 - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > self.limit // 2:
                del self.tail[: len(self.tail) - self.limit // 2]

    @property
    def truncated(self) -> bool:
        """Whether bytes were dropped from the middle."""
        return self.total > len(self.head) + len(self.tail)

    def text(self) -> str:
        """The kept output as text, with a marker where bytes were dropped."""
        if not self.truncated:
            return (bytes(self.head) + bytes(self.tail)).decode("utf-8", errors="replace")
        omitted = self.total - len(self.head) - len(self.tail)
        return (
            bytes(self.head).decode("utf-8", errors="replace")
            + f"\n\n... [{omitted} bytes omitted: output is limited to {self.limit} bytes; "
            "write large results to a file instead] ...\n\n"
            + bytes(self.tail).decode("utf-8", errors="replace")
        )
