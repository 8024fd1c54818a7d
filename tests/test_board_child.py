"""The board child's warm-up: the first dense no-guess click after an install must not compile
kernels inside its deadline (a compile of the chain takes tens of seconds, the deadline 20)."""

from __future__ import annotations

import subprocess
import sys

# Run in a fresh interpreter: in the suite's process other tests have compiled the kernels already.
SCRIPT = """
import sys
from numba.core.dispatcher import Dispatcher
from sweeplab.play import board_child

def signatures():
    return {(m, n): len(d.signatures) for m, mod in list(sys.modules.items()) if m.startswith("sweeplab")
            for n, d in vars(mod).items() if isinstance(d, Dispatcher)}

board_child.warm()
before = signatures()
answer = board_child.handle(("noguess", 30, 16, 170, 1, 15, 8))
after = signatures()
print("board" in answer, sorted(f"{m}.{n}" for (m, n), k in after.items() if k != before.get((m, n), 0)))
"""


def test_a_dense_board_after_the_childs_warm_up_compiles_no_kernel():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=900, check=True)
    laid, compiled = out.stdout.strip().split(" ", 1)
    assert laid == "True", out.stdout
    assert compiled == "[]", f"kernels compiled at the dense click, after the warm-up: {compiled}"
