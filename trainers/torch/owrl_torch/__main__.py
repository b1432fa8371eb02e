"""`python3 -m owrl_torch <command> ...`: serve (the trainer), tiny (build the test model), engine-double."""

from __future__ import annotations

import runpy
import sys

COMMANDS = {"serve": "owrl_torch.serve", "tiny": "owrl_torch.tiny", "engine-double": "owrl_torch.engine_double"}


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(f"usage: python3 -m owrl_torch {{{','.join(COMMANDS)}}} ...  (each takes --help)", file=sys.stderr)
        return 2
    module = COMMANDS[sys.argv[1]]
    sys.argv = [f"python3 -m {module}"] + sys.argv[2:]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
