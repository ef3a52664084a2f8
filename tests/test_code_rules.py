"""The project's code rule "no function over 8 parameters outside a settings object", checked on
the source: every public function and method of src/ (self and cls not counted)."""

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LIMIT = 8

#: Public functions over the limit when the check was added (issue 30), to be folded into settings
#: objects by the work that owns them; none may be added. The Warp kernels are exempt for
#: good: Warp's kernels take their arrays positionally (a settings object cannot cross in).
KNOWN: set = set()
COMPILED = ("actuator_sim/warp_kernels.py",)


def long_signatures(path: Path, root: Path) -> list:
    """``"<path from root>: Class.function"`` of each public function of ``path`` over :data:`LIMIT`."""
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef) and not child.name.startswith("_"):
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if child.name.startswith("_") and child.name != "__init__":
                    continue
                a = child.args
                names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs if p.arg not in ("self", "cls")]
                if len(names) > LIMIT:
                    found.append(f"{path.relative_to(root).as_posix()}: {prefix}{child.name}")

    visit(ast.parse(path.read_text()), "")
    return found


def test_no_new_public_function_takes_more_than_eight_parameters():
    sources = [p for p in sorted((REPO / "src").glob("*/*/**/*.py")) if "/test/" not in p.as_posix()]
    assert len(sources) > 100  # the walk found the packages
    found = {name for path in sources if not path.as_posix().endswith(COMPILED)
             for name in long_signatures(path, REPO / "src" / path.relative_to(REPO / "src").parts[0])}
    assert found <= KNOWN, f"over {LIMIT} parameters (use a settings object): {sorted(found - KNOWN)}"


def test_the_check_counts_parameters(tmp_path):
    """A signature of 9 is found, one of 8 (plus self) is not."""
    module = tmp_path / "pkg" / "pkg" / "mod.py"
    module.parent.mkdir(parents=True)
    module.write_text("def wide(a, b, c, d, e, f, g, h, *, i=0):\n    pass\n\n\n"
                      "class K:\n    def fine(self, a, b, c, d, e, f, g, h):\n        pass\n")
    assert long_signatures(module, tmp_path / "pkg") == ["pkg/mod.py: wide"]
