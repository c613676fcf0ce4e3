"""``python -m graphs.sandbox check``: verify the configured sandbox can run here.

For the set-up script and the launcher: exit status 0 when it can, 1 with the
reason (and what to install) when it cannot.
"""

from __future__ import annotations

import argparse
import sys

from graphs.sandbox.bubblewrap import check_bubblewrap
from graphs.sandbox.errors import SandboxConfigError, SandboxUnavailableError
from graphs.sandbox.limits import limits_summary, require_cgroups
from graphs.sandbox.settings import SandboxSettings


def main(argv: list[str] | None = None) -> int:
    """Check the sandbox provider named by the settings; print the outcome."""
    parser = argparse.ArgumentParser(prog="python -m graphs.sandbox")
    parser.add_argument("command", choices=["check"], help="check: can agent code run here?")
    parser.parse_args(argv)
    settings = SandboxSettings()
    try:
        if settings.provider == "opensandbox":
            from graphs.sandbox.opensandbox import OpenSandboxBackend

            OpenSandboxBackend("check", settings=settings)
            print(f"sandbox: opensandbox at {settings.opensandbox_domain} (SDK installed)")
        else:
            info = check_bubblewrap(settings.bwrap_path)
            require_cgroups(settings)
            print(f"sandbox: {info}, workspaces in {settings.sandboxes_dir}")
            print(f"sandbox limits: {limits_summary(settings)}")
    except (SandboxUnavailableError, SandboxConfigError) as exc:
        print(f"sandbox: NOT available: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
