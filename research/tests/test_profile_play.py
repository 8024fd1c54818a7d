"""profile_play.py names numba's compiled kernels by their sweeplab module and function."""

from __future__ import annotations

from numba.core import itanium_mangler, types
from one_engine import profile_play


def test_kernel_name_reads_numbas_mangled_symbols():
    args = [types.int64, types.Array(types.int8, 1, "C")]
    for name in ("sweeplab.solver.playthrough.run", "sweeplab.generators.certify._single_rule", "sweeplab.kernels.x9"):
        symbol = itanium_mangler.mangle(name, args, abi_tags=("v35",))
        assert profile_play.kernel_name(symbol) == name.removeprefix("sweeplab.")


def test_kernel_name_leaves_other_code_unnamed():
    symbol = itanium_mangler.mangle("numpy.core.thing", [types.int64], abi_tags=("v1",))
    assert profile_play.kernel_name(symbol) is None
    assert profile_play.kernel_name("_PyEval_EvalFrameDefault") is None
