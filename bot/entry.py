"""The `kitebase` command's entry point. Importing the CLI takes about a second; a Ctrl-C or a closed pipe in that
second ends the command quietly, like one later on (bot/cli.py handles those once it has started)."""

from __future__ import annotations

import os
import sys


def main() -> int:
    try:
        from bot.cli import main as run

        return run()
    except KeyboardInterrupt:
        print("\nkitebase: interrupted before it started; nothing was done.", file=sys.stderr)
        return 3
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
