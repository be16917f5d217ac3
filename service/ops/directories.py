"""Directories the server works in: an operator's, kept, or its own, removed when it stops."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class WorkingDirectory:
    """A directory the server uses, and whether this process made it."""

    path: Path
    #: Made here under the temporary directory, so removed when the server stops; an
    #: operator's own directory is kept.
    temporary: bool

    @classmethod
    def make_temporary(cls, purpose: str) -> WorkingDirectory:
        """Make a fresh directory under the temporary directory (writable in a read-only image)."""
        return cls(Path(tempfile.mkdtemp(prefix=f"bestmove-{purpose}-")), temporary=True)

    def remove_if_temporary(self) -> None:
        """Remove the directory if this process made it; keep an operator's."""
        if self.temporary:
            shutil.rmtree(self.path, ignore_errors=True)
