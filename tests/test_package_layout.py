"""The package's layout holds the promises of its architecture page.

Modules small enough to hold in one's head, imports that run one way (no
cycle, none hidden in a function), and engine functions with few
parameters: an option travels in the frozen options object, not as a
keyword of its own.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sklearn_rank_metrics"
MAX_MODULE_LINES = 600
MAX_ENGINE_PARAMETERS = 8


def _modules():
    return sorted(PACKAGE.rglob("*.py"))


def _name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path, modules):
    """The package modules ``path`` imports, at module level or inside a function.

    ``from package import module`` is an edge to that module alone.
    """
    tree = ast.parse(path.read_text())
    package = _name(path) if path.name == "__init__.py" else _name(path).rpartition(".")[0]
    found = set()
    for statement in ast.walk(tree):
        if isinstance(statement, ast.ImportFrom):
            if statement.level:
                base = package.split(".")[: len(package.split(".")) - statement.level + 1]
                source = ".".join(base + ([statement.module] if statement.module else []))
            else:
                source = statement.module or ""
            submodules = {f"{source}.{alias.name}" for alias in statement.names} & modules
            found |= submodules or {source}
        elif isinstance(statement, ast.Import):
            found |= {alias.name for alias in statement.names}
    return found & modules - {_name(path)}


@pytest.mark.parametrize("path", _modules(), ids=lambda p: _name(p))
def test_module_size(path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_MODULE_LINES, f"{_name(path)} has {lines} lines"


def test_no_import_cycle():
    modules = {_name(path): path for path in _modules()}
    graph = {name: _imports(path, set(modules)) for name, path in modules.items()}
    state, cycles = {}, []

    def visit(name, stack):
        state[name] = "open"
        for other in sorted(graph[name]):
            if state.get(other) == "open":
                cycles.append(" -> ".join(stack[stack.index(other) :] + [other]))
            elif other not in state:
                visit(other, [*stack, other])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def _functions(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


@pytest.mark.parametrize("path", sorted((PACKAGE / "_engine").rglob("*.py")), ids=lambda p: _name(p))
def test_engine_functions_take_few_parameters(path):
    for function in _functions(ast.parse(path.read_text())):
        arguments = function.args
        names = [a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs]
        names = [name for name in names if name not in ("self", "cls")]
        assert len(names) <= MAX_ENGINE_PARAMETERS, (
            f"{_name(path)}.{function.name} takes {len(names)} parameters"
        )


# The engine's stages, in the order data flows through them: a module imports
# only modules of its own stage or of an earlier one (leaves: options and
# their table, threads, warnings). Nothing in the engine imports the public
# layer above it.
STAGES = {"leaf": 0, "prepare": 1, "_judgments": 2, "quantities": 2, "spec": 3, "run": 4}
_LEAVES = ("_params", "_param_docs", "_options", "_threads", "_warnings")


def _stage(module):
    parts = module.split(".")
    if parts[:2] != ["sklearn_rank_metrics", "_engine"]:
        return None  # outside the engine
    if len(parts) == 2:
        return STAGES["leaf"]  # the engine package itself
    return STAGES["leaf"] if parts[2] in _LEAVES else STAGES[parts[2]]


@pytest.mark.parametrize("path", sorted((PACKAGE / "_engine").rglob("*.py")), ids=lambda p: _name(p))
def test_the_engine_flows_one_way(path):
    modules = {_name(p) for p in _modules()}
    name = _name(path)
    for imported in _imports(path, modules):
        assert imported.startswith("sklearn_rank_metrics._engine"), (
            f"{name} imports {imported}, outside the engine"
        )
        assert _stage(imported) <= _stage(name), f"{name} imports {imported}, a later stage"
