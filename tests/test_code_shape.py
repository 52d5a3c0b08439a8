"""Rules about the shape of the product code that a reader relies on, checked mechanically over both packages.

* No function takes more than 8 parameters (``self``/``cls`` not counted; ``*args`` and ``**kwargs`` count as
  one each): a longer list is a spec object waiting to be named (``LoopSpec``, ``IfSpec``), or two concepts.
"""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("autograph_lite", "runtime")
MAX_PARAMETERS = 8


def product_files():
    return [path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))]


def parameter_count(function: ast.AST) -> int:
    arguments = function.args
    names = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
    names += [a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return len([name for name in names if name not in ("self", "cls")])


def test_no_function_takes_more_than_eight_parameters():
    found = []
    for path in product_files():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                count = parameter_count(node)
                if count > MAX_PARAMETERS:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {getattr(node, 'name', 'lambda')} "
                                 f"takes {count} parameters")
    assert found == [], "\n".join(found)


def test_the_parameter_count_counts_what_a_caller_passes():
    (method,) = ast.parse("class C:\n    def m(self, a, /, b, *rest, c, **options): pass").body[0].body
    assert parameter_count(method) == 5
