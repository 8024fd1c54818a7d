"""The rooms of docs/architecture.md: no import runs back up the floors and none goes round in a
circle, solver/ reads only the ground floor and itself, nothing outside the certifier reaches into
its play logs, each rule of the engine is defined in exactly one place (found by reading every
function's definition), and no module or engine function grows past what one reader can hold."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "sweeplab"

# Bottom first, as drawn in docs/architecture.md; a room may import its own floor or lower.
FLOORS = [
    {"errors", "rng", "grid", "msvc", "_numba_cache", "_tiers", "presets", "svg", "kernels", "view", "userfile", "extras"},
    {"board", "stats", "solver"},
    {"generators", "firstclick", "figures", "automaton"},
    {"game", "cycles"},
    {"lab", "replays", "rl"},
    {"play", "cli", "__main__", "__init__"},
]
FLOOR = {room: k for k, rooms in enumerate(FLOORS) for room in rooms}

# What the certifier offers other modules: a Candidate and its verdicts (see generators/certify.py),
# set_mine (lay or lift a mine keeping the numbers right: the chain proposes a fresh board in place
# of a position's), and settle (a fresh play with no leaf budget, so a verdict is the board's own).
CERTIFY_INTERFACE = {"DEFAULT_LEAF_BUDGET", "SOLVED", "STUCK", "BUDGET", "Candidate", "position", "start", "try_move",
                     "try_pair", "keep", "undo", "hidden", "revealed", "tried_uses_total", "workspace", "certify", "set_mine",
                     "settle", "NO_BUDGET"}


@functools.cache
def _parsed(path: Path, stamp: tuple[int, int]) -> ast.Module:
    """A source file's syntax tree, parsed once per version of the file (`stamp`: its change time and size)."""
    return ast.parse(path.read_text())


def parse(path: Path) -> ast.Module:
    stat = path.stat()
    return _parsed(path, (stat.st_mtime_ns, stat.st_size))


def imports(root=PACKAGE):
    """(importing module, imported module, names) for every sweeplab import in the package, those
    inside functions too."""
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        package = parts[:-1]  # the package a relative import starts from: an __init__.py's own, a module's
        if path.name == "__init__.py":
            parts = parts[:-1]  # an __init__.py is its package
        for node in ast.walk(parse(path)):
            if isinstance(node, ast.Import):
                yield from ((".".join(parts), a.name, []) for a in node.names if a.name.startswith("sweeplab"))
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
    assert imports_back_up() == []


def imports_back_up() -> list[str]:
    return [f"{m} -> {t}" for m, t, _ in imports() if t != "sweeplab" and FLOOR.get(room(t), 0) > FLOOR.get(room(m), 0)]


@pytest.mark.slow
def test_the_solver_reads_only_the_ground_floor_and_itself():
    outside = {t for m, t, _ in imports() if room(m) == "solver" and room(t) != "solver"}
    assert {room(t) for t in outside} <= FLOORS[0], outside


@pytest.mark.slow
def test_nothing_reaches_into_the_certifier():
    assert reaching_into_the_certifier() == []


def reaching_into_the_certifier() -> list:
    return [(m, sorted(set(names) - CERTIFY_INTERFACE)) for m, t, names in imports()
            if t == "sweeplab.generators.certify" and m != t and set(names) - CERTIFY_INTERFACE]


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
    for module, node in definitions():
        for call in ast.walk(node):
            if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "place" and call.args \
                    and isinstance(call.args[-1], ast.UnaryOp) and isinstance(call.args[-1].op, ast.USub):
                yield module, node.name
                break


def test_the_layout_walk_is_written_once():
    """One walk over layouts one at a time (deduction.next_layout), which lists the end game's
    layouts; deciding and counting are the sweep's."""
    assert sorted(set(_backtracking_functions())) == [("sweeplab.solver.deduction", "next_layout")]


# --- each rule of the engine defined once, found by what its definition does ------------------

def definitions(source=None):
    """(module, function node) for every function defined in the package (or in `source`)."""
    if source is not None:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef):
                yield "planted", node
        return
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        for node in ast.walk(parse(path)):
            if isinstance(node, ast.FunctionDef):
                yield module, node


def _called(node) -> set:
    return {getattr(c.func, "id", getattr(c.func, "attr", None)) for c in ast.walk(node) if isinstance(c, ast.Call)}


def _called_in_loops(fn) -> set:
    return set().union(*(_called(s) for loop in ast.walk(fn) if isinstance(loop, (ast.For, ast.While))
                         for s in loop.body))


def _is_index_sum(node) -> bool:
    """An index i + k of two names (the last one of a tuple index): a convolution's."""
    last = node.elts[-1] if isinstance(node, ast.Tuple) else node
    return isinstance(last, ast.BinOp) and isinstance(last.op, ast.Add) and isinstance(last.left, ast.Name) \
        and isinstance(last.right, ast.Name)


def constraint_builders(fns):
    """Functions that build constraints: each number's hidden neighbours collected as its
    constraint (stored under a counter stepped in a loop over the 8 neighbour slots) and its mines
    still needed (the number less the mines around it known)."""
    out = []
    for module, fn in fns:
        collects = False
        for loop in ast.walk(fn):
            if isinstance(loop, ast.For) and isinstance(loop.iter, ast.Call) and getattr(loop.iter.func, "id", "") == \
                    "range" and loop.iter.args and getattr(loop.iter.args[0], "value", None) == 8:
                counters = {n.target.id for n in ast.walk(loop) if isinstance(n, ast.AugAssign)
                            and isinstance(n.op, ast.Add) and isinstance(n.target, ast.Name)}
                collects |= any(isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Subscript)
                                and {x.id for x in ast.walk(n.targets[0].slice) if isinstance(x, ast.Name)} & counters
                                for n in ast.walk(loop))
        needs = any((isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Subscript) and isinstance(n.value, ast.BinOp)
                     and isinstance(n.value.op, ast.Sub))
                    or (isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Sub) and isinstance(n.target, ast.Name))
                    for n in ast.walk(fn))
        if collects and needs:
            out.append((module, fn.name))
    return out


def component_splits(fns):
    """Functions that split the frontier into components: a union-find merge (a root made the
    child of another, parent[x] = y)."""
    return [(module, fn.name) for module, fn in fns
            if any(isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Subscript)
                   and getattr(n.targets[0].value, "id", "") == "parent" and isinstance(n.value, ast.Name)
                   for n in ast.walk(fn))]


def component_sweeps(fns):
    """Functions that sweep a component: a number's partial sum read out of a packed state key
    ((key >> shift) & mask) plus the cell's value, checked against what the number needs."""
    def read_out(n):
        return isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitAnd) and isinstance(n.left, ast.BinOp) \
            and isinstance(n.left.op, ast.RShift)
    out = []
    for module, fn in fns:
        summed = any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add) and (read_out(n.left) or read_out(n.right))
                     for n in ast.walk(fn))
        checked = any(isinstance(n, ast.BoolOp) and all(isinstance(v, ast.Compare) for v in n.values)
                      for n in ast.walk(fn))
        if summed and checked:
            out.append((module, fn.name))
    return out


def total_combinations(fns):
    """Functions that combine components under the mine total: a convolution of mine-count
    polynomials or their supports (out[i + k] gets a[i] * b[k], or a bitset shifted by a count)."""
    out = []
    for module, fn in fns:
        for n in ast.walk(fn):
            target, value = None, None
            if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Subscript):
                target, value = n.target, n.value
                product = (isinstance(n.op, ast.Add) and isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult)) \
                    or (isinstance(n.op, ast.BitOr) and isinstance(value, ast.BinOp) and isinstance(value.op, ast.LShift))
            elif isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Subscript):
                target, value = n.targets[0], n.value
                product = any(isinstance(m, ast.BinOp) and isinstance(m.op, ast.Mult) for m in ast.walk(value)) or \
                    any(isinstance(c, ast.Call) and getattr(c.func, "id", "").endswith("times") for c in ast.walk(value))
            if target is not None and product and _is_index_sum(target.slice):
                out.append((module, fn.name))
                break
    return out


def pair_searches(fns):
    """Functions that search for pairs of numbers: the subset rule (deduction.subset_rule, or a
    function that applies it once) asked in a loop."""
    fns = list(fns)
    once = {"subset_rule"}
    grown = True
    while grown:
        grown = False
        for _, fn in fns:
            if fn.name not in once and _called(fn) & once and not _called_in_loops(fn) & once:
                once.add(fn.name)
                grown = True
    return [(module, fn.name) for module, fn in fns if _called_in_loops(fn) & once]


def perfect_play_searches(fns):
    """Functions that search perfect play: the value of a state, the best over its guesses of the
    sum of its parts' values (a sum S[d] += ... compared S[d] > best[d], which then takes it)."""
    out = []
    for module, fn in fns:
        sums = {n.target.value.id for n in ast.walk(fn) if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add)
                and isinstance(n.target, ast.Subscript) and isinstance(n.target.value, ast.Name)}
        for n in ast.walk(fn):
            tests = [n.test] if isinstance(n, ast.If) and isinstance(n.test, ast.Compare) else \
                [v for v in n.test.values if isinstance(v, ast.Compare)] if isinstance(n, ast.If) and \
                isinstance(n.test, ast.BoolOp) else []
            for t in tests:
                if isinstance(t.ops[0], ast.Gt) and isinstance(t.left, ast.Subscript) and \
                        getattr(t.left.value, "id", "") in sums and isinstance(t.comparators[0], ast.Subscript):
                    best = getattr(t.comparators[0].value, "id", "")
                    if any(isinstance(b, ast.Assign) and isinstance(b.targets[0], ast.Subscript)
                           and getattr(b.targets[0].value, "id", "") == best for b in n.body):
                        out.append((module, fn.name))
    return sorted(set(out))


ONCE = [(constraint_builders, ("sweeplab.solver.frontier", "build")),
        (component_splits, ("sweeplab.solver.frontier", "build")),
        (component_sweeps, ("sweeplab.solver.sweep", "_next_key")),
        (total_combinations, ("sweeplab.solver.total", "_convolve")),
        (pair_searches, ("sweeplab.solver.rules", "next_pair")),
        (perfect_play_searches, ("sweeplab.solver.perfect", "search"))]


@pytest.mark.parametrize("find,where", ONCE, ids=[f.__name__ for f, _ in ONCE])
def test_each_rule_of_the_engine_is_defined_once(find, where):
    assert find(definitions()) == [where]


# A second copy of each rule, written as they were written before the engine was one: each finder
# must see it, so the test above can fail.
PLANTED = {
    constraint_builders: """
def build_again(cells, nbr, unknown, var_of):
    m = 0
    for i in range(cells.shape[0]):
        t = cells[i]
        s = 0
        for k in range(8):
            j = nbr[i, k]
            if j >= 0 and unknown[j]:
                con_vars[m, s] = var_of[j]
                s += 1
            elif j >= 0 and cells[j] == -2:
                t -= 1
        m += 1
""",
    component_splits: """
def split_again(parent, a, b):
    ra = find_root(parent, a)
    rb = find_root(parent, b)
    if ra != rb:
        parent[rb] = ra
""",
    component_sweeps: """
def sweep_step_again(key, q, v, cell_cons, cell_ncons, need, shift, rest, last):
    for t in range(cell_ncons[q]):
        c = cell_cons[q, t]
        s = ((key >> shift[q, t]) & 15) + v
        if s > need[c] or need[c] - s > rest[q, t]:
            return -1
    return key
""",
    total_combinations: """
def others_again(pre, kslab, ncomp, maxm):
    for c in range(ncomp):
        for i in range(maxm):
            for k in range(maxm):
                pre[c + 1, i + k] += pre[c, i] * kslab[c, k]
""",
    pair_searches: """
def pairs_again(con_target, con_vars, touch, deg, m):
    for c in range(m):
        for e in range(deg[c]):
            d = touch[c, e]
            if subset_rule(con_target[c], con_target[d], own_cells(con_vars, c, d)):
                mark(c, d)
""",
    perfect_play_searches: """
def search_again(n, groups, ret):
    total = np.zeros(n)
    best = np.zeros(n)
    d = 0
    total[d] += ret
    if total[d] > best[d]:
        best[d] = total[d]
""",
}


@pytest.mark.parametrize("find", list(PLANTED), ids=[f.__name__ for f in PLANTED])
def test_each_finder_sees_a_second_copy(find):
    assert find(definitions(PLANTED[find])) != []


# --- no circle, and sizes a reader can hold ----------------------------------------------------

def circles(root=PACKAGE) -> list[str]:
    """The modules of the package under `root` that an import path leads from back to themselves."""
    modules = set()
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        modules.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    edges: dict[str, set] = {m: set() for m in modules}
    for m, t, _ in imports(root):
        if t in modules and t != m:
            edges[m].add(t)
    found = []
    for start in sorted(modules):  # a circle through `start`: a path from it back to it
        seen, todo = set(), list(edges[start])
        while todo:
            m = todo.pop()
            if m == start:
                found.append(start)
                break
            if m not in seen:
                seen.add(m)
                todo.extend(edges[m])
    return found


def test_no_import_goes_round_in_a_circle():
    assert circles() == []


def test_a_circle_through_a_package_init_is_found(tmp_path):
    """A package's __init__.py imports relative to that package (`from ..x` is its parent's x), inside
    functions too: a planted circle rules.py -> makers/__init__.py -> rules.py is found."""
    root = tmp_path / "sweeplab"
    (root / "makers").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "rules.py").write_text("def make():\n    from .makers import registry\n    return registry\n")
    (root / "makers" / "__init__.py").write_text("from ..rules import make\nregistry = {}\n")
    (root / "makers" / "plain.py").write_text("from . import registry\n")
    assert circles(root) == ["sweeplab.makers", "sweeplab.rules"]
    (root / "rules.py").write_text("def make():\n    return {}\n")
    assert circles(root) == []


def test_no_module_over_900_lines_and_no_engine_function_over_120():
    long_modules = [(str(p.relative_to(PACKAGE)), n) for p in PACKAGE.rglob("*.py")
                    if (n := len(p.read_text().splitlines())) > 900]
    assert long_modules == []
    long_functions = [(module, fn.name, fn.end_lineno - fn.lineno + 1) for module, fn in definitions()
                      if module.split(".")[1] in ("solver", "generators") and fn.end_lineno - fn.lineno + 1 > 120]
    assert long_functions == []


# --- the Facts table of docs/architecture.md, from the sources ---------------------------------

DOC = PACKAGE.parents[1] / "docs" / "architecture.md"


def _in_engine(path: str) -> bool:
    return path.startswith("solver/") or path == "generators/certify.py"


def facts() -> dict[str, str]:
    """The rows of the Facts table as the sources make them today (lines: every line of a .py file)."""
    lines = {str(p.relative_to(PACKAGE)): len(p.read_text().splitlines()) for p in PACKAGE.rglob("*.py")}
    top = max(lines, key=lambda p: (lines[p], p))
    engine_top = max((p for p in lines if _in_engine(p)), key=lambda p: (lines[p], p))
    functions = [(module, fn.name, fn.end_lineno - fn.lineno + 1) for module, fn in definitions()
                 if module.split(".")[1] in ("solver", "generators")]
    module, name, length = max(functions, key=lambda f: f[2])
    found = [find(definitions()) for find, _ in ONCE]
    named = []
    for f in found:
        text = ", ".join(f"`{m.split('.')[-1]}.{n}`" for m, n in f)
        if text not in named:
            named.append(text)
    each = "1 each" if all(len(f) == 1 for f in found) else "/".join(str(len(f)) for f in found)
    return {
        "largest module": f"`{top}`, {lines[top]} lines; the largest of the engine, `{engine_top}`, {lines[engine_top]}",
        "largest function of the engine": f"`{'/'.join(module.split('.')[1:])}.py` `{name}`, {length} lines",
        "functions that build constraints / split components / sweep a component / combine under the mine total / "
        "search pairs / search perfect play": f"{each}: {', '.join(named)}",
        "import circles, and imports that run back up the floors": f"{len(circles())}, {len(imports_back_up())}",
        "modules reaching into the certifier's internals": str(len(reaching_into_the_certifier())),
        "lines of `solver/` and `generators/certify.py`": f"{sum(n for p, n in lines.items() if _in_engine(p)):,}",
    }


def documented_facts(text: str) -> dict[str, str]:
    """The rows of the table under the doc's "## Facts" heading: {fact: now}."""
    section = text.split("\n## Facts\n", 1)[1]
    rows = [line for line in section.split("\n\n| fact | now |\n|---|---|\n", 1)[1].splitlines()
            if line.startswith("| ")]
    return {cells[0]: cells[1] for cells in ([c.strip() for c in r.strip("|").split(" | ")] for r in rows)}


def test_the_facts_table_says_what_the_sources_say():
    """docs/architecture.md's Facts are the sources' own counts: any row that drifts fails, and the
    message is the table to paste in its place."""
    want = facts()
    table = "\n".join(f"| {k} | {v} |" for k, v in want.items())
    assert documented_facts(DOC.read_text()) == want, f"docs/architecture.md's Facts should read:\n{table}"


def test_a_drifted_fact_is_seen():
    text = DOC.read_text()
    row = facts()["import circles, and imports that run back up the floors"]
    assert documented_facts(text)["import circles, and imports that run back up the floors"] == row
    drifted = text.replace(f"| import circles, and imports that run back up the floors | {row} |",
                           "| import circles, and imports that run back up the floors | 0, 7 |")
    assert documented_facts(drifted) != facts()
