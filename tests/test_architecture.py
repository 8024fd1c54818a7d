"""The rooms of docs/architecture.md: no import runs back up the floors, solver/ reads only the
ground floor and itself, and nothing outside the certifier reaches into its play logs."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "sweeplab"

# Bottom first, as drawn in docs/architecture.md; a room may import its own floor or lower.
FLOORS = [
    {"errors", "rng", "grid", "msvc", "_numba_cache", "presets", "svg", "kernels", "view"},
    {"board", "stats", "solver"},
    {"generators", "firstclick", "figures", "automaton"},
    {"game", "cycles"},
    {"lab", "replays", "rl"},
    {"play", "cli", "__main__", "__init__"},
]
FLOOR = {room: k for k, rooms in enumerate(FLOORS) for room in rooms}

# What the certifier offers other modules: a Position and its verdicts (see generators/certify.py),
# set_mine (lay or lift a mine keeping the numbers right: the chain proposes a fresh board in place
# of a position's), and settle (a fresh play with no leaf budget, so a verdict is the board's own).
CERTIFY_INTERFACE = {"DEFAULT_LEAF_BUDGET", "SOLVED", "STUCK", "BUDGET", "Position", "position", "start", "try_move",
                     "keep", "undo", "hidden", "revealed", "tried_uses_total", "workspace", "certify", "set_mine",
                     "settle", "NO_BUDGET"}


def imports():
    """(importing module, imported module, names) for every sweeplab import in the package."""
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        package = parts if path.name == "__init__.py" else parts[:-1]
        if path.name == "__init__.py":
            parts = parts[:-1]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package[:len(package) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                if target.startswith("sweeplab"):
                    names = [a.name for a in node.names]
                    if node.module or not node.level:
                        yield ".".join(parts), target, names
                    else:
                        for name in names:  # `from . import x`: x is a module or a name of the package
                            yield ".".join(parts), f"{target}.{name}", []


def room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


@pytest.mark.slow
def test_every_room_has_a_floor():
    rooms = {room(m) for m, _, _ in imports()} | {room(t) for _, t, _ in imports() if t != "sweeplab"}
    assert rooms <= set(FLOOR), f"rooms without a floor in docs/architecture.md: {rooms - set(FLOOR)}"


@pytest.mark.slow
def test_no_import_runs_back_up_the_floors():
    back = [f"{m} -> {t}" for m, t, _ in imports()
            if t != "sweeplab" and FLOOR.get(room(t), 0) > FLOOR.get(room(m), 0)]
    assert back == []


@pytest.mark.slow
def test_the_solver_reads_only_the_ground_floor_and_itself():
    outside = {t for m, t, _ in imports() if room(m) == "solver" and room(t) != "solver"}
    assert {room(t) for t in outside} <= FLOORS[0], outside


@pytest.mark.slow
def test_nothing_reaches_into_the_certifier():
    reaching = [(m, sorted(set(names) - CERTIFY_INTERFACE)) for m, t, names in imports()
                if t == "sweeplab.generators.certify" and m != t and set(names) - CERTIFY_INTERFACE]
    assert reaching == []


def test_one_vocabulary_of_cell_codes():
    """What a player sees of a cell has one code everywhere: a View's cells are the drawing codes,
    and the play JSON and the View's text write each as the same character. The game's own states
    (kernels) have names of their own, so no name means two things."""
    import numpy as np

    from sweeplab import View, kernels, svg, view
    from sweeplab.play.games import cells_text

    assert (view.HIDDEN, view.FLAG) == (svg.HIDDEN_CELL, svg.FLAG_CELL)
    v = View.from_text("mines: 2\n#F1\n012\n")
    assert np.array_equal(v.cell_codes(), v.cells)
    assert cells_text(v.cell_codes()) == "".join(v.to_text().splitlines()[-2:])
    assert not {"HIDDEN", "FLAG", "OPEN", "QUESTION"} & set(vars(kernels))
    names = [n for n in vars(svg) if n.endswith("_CELL")]
    assert len({getattr(svg, n) for n in names}) == len(names) and all(getattr(svg, n) < 0 for n in names)


def _backtracking_functions():
    """(module, function) for every function that takes a cell's value back with the engine's
    count check (`place(..., -1)`): the walks over layouts."""
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                for call in ast.walk(node):
                    if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "place" and call.args \
                            and isinstance(call.args[-1], ast.UnaryOp) and isinstance(call.args[-1].op, ast.USub):
                        yield module, node.name
                        break


@pytest.mark.slow
def test_the_layout_walk_is_written_once():
    """One walk over a component's layouts (deduction.next_layout) decides, counts and lists; the
    certifier's witness search (one layout with a cell held, values in a preferred order) is the
    only other backtracking on the count check."""
    assert sorted(set(_backtracking_functions())) == [("sweeplab.generators.certify", "_search"),
                                                      ("sweeplab.solver.deduction", "next_layout")]
