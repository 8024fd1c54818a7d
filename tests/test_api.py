"""The package as a library: one module of errors under one base, one version, the PEP 561 marker."""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import pkgutil
import subprocess
import sys
import warnings
from pathlib import Path

import sweeplab
from sweeplab import errors

# run as programs (they answer on stdin, or are the CLI), never imported for their classes; the trainer
# also needs torch, which only the rl-train extra installs
PROGRAMS = {"sweeplab.__main__", "sweeplab.play._replay_child", "sweeplab.replays._toollib_worker",
            "sweeplab.rl.train"}


def every_module() -> list:
    names = [m.name for m in pkgutil.walk_packages(sweeplab.__path__, "sweeplab.") if m.name not in PROGRAMS]
    return [importlib.import_module(n) for n in names]


def test_every_exception_is_a_sweeplab_error_written_in_errors_py():
    found = {}
    for module in every_module():
        for value in vars(module).values():
            if (inspect.isclass(value) and issubclass(value, BaseException) and not issubclass(value, Warning)
                    and value.__module__.startswith("sweeplab")):
                found[value] = module.__name__
    assert len(found) > 20  # the walk reached the subpackages (play, replays, solver, rl)
    assert {c.__module__ for c in found} == {"sweeplab.errors"}
    assert all(issubclass(c, sweeplab.SweeplabError) and issubclass(c, ValueError) for c in found)
    assert set(errors.__all__) == {c.__name__ for c in found}
    assert all(getattr(errors, n).__doc__ for n in errors.__all__)


def test_an_old_import_path_names_the_same_class():
    from sweeplab.play.store import StoreError
    from sweeplab.replays import ReplayError
    from sweeplab.solver import TooComplexError
    assert (StoreError, ReplayError, TooComplexError) == (errors.StoreError, errors.ReplayError,
                                                          errors.TooComplexError)


def test_the_version_is_written_once_and_the_cli_says_it():
    assert sweeplab.__version__ == importlib.metadata.version("sweeplab")
    out = subprocess.run([sys.executable, "-m", "sweeplab", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.split()[-1] == sweeplab.__version__
    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert sweeplab.__version__ not in pyproject and 'dynamic = ["version"]' in pyproject


def test_the_package_ships_its_type_marker():
    root = Path(sweeplab.__file__).parent
    assert (root / "py.typed").is_file()
    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert '"py.typed"' in pyproject  # in package-data, so a wheel carries it


def test_public_names_are_exported_and_documented():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in sweeplab.__all__:
            obj = getattr(sweeplab, name)
            if callable(obj):
                assert obj.__doc__, name


def test_each_first_click_rule_is_built_by_the_one_generator_that_defines_it():
    import pytest

    from sweeplab import generators
    from sweeplab.generators import make_rule, rule_names
    names = rule_names()
    owners = {r: generators.rule_generator(r) for r in names}
    assert all(r in info.rules and r in info.first_clicks for r, info in owners.items())
    assert sorted(r for info in generators.GENERATORS.values() for r in info.rules) == names  # each once
    for r, info in owners.items():
        seed = 2**31 + 7  # fits every rule's seed width
        built, direct = make_rule(r, 9, 9, 10, seed), info.factory(9, 9, 10, seed, first_click=r)
        assert type(built) is type(direct) and built.spec() == direct.spec()
    uniform = generators.lookup("uniform")
    with pytest.raises(ValueError, match="defined by no other generator"):
        generators.register(generators.GeneratorInfo("copy", "", ("safe",), uniform.factory, rules=("safe",)))
    assert "copy" not in generators.GENERATORS
