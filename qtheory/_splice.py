"""Specialise a simulation kernel on a policy's decision rule, at the source level.

A simulator's event loop is written once, as a plain Python *template* with one dispatch
point, the statement ``p = decide(<arguments>)``. A policy brings its decision *rule*, a
``numba.njit`` function whose parameters are named like the template's arguments and
whose last statement is its only ``return``. :func:`specialise` writes a module in which
the rule's body replaces the dispatch statement (the rule's local names prefixed, so they
cannot clash with the loop's) and compiles it with ``njit(cache=True)``.

Why not a call, or numba's inlining? Both were measured (``benchmarks/compare_revisions.py``,
issue 15): a call that receives the generator state costs up to 40 % of the events/s of the
U kernel, and numba's IR inlining of a rule with loops 10-20 %, because the loop's values
can no longer stay in registers. Spliced source compiles to the same loop as code written
in place, and the rule stays a function of its own that tests can call directly.

The generated modules live next to the compiled kernels, in the cache folder named by a
hash of every source file of the package (:mod:`qtheory._kernelcache`), so an edit of a
template or a rule produces a new module; a module is written only when its text
changes, atomically, so that concurrent processes and numba's cache (which checks the
file's time stamp) agree.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import inspect
import os
import sys
import tempfile
import textwrap
import types
from pathlib import Path

__all__ = ["specialise"]

_PLACEHOLDER = "decide"
_LOADED: dict[tuple, object] = {}


def _function_def(func) -> ast.FunctionDef:
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise ValueError(f"{func.__qualname__} is not a plain function definition")
    return node


def _import_lines(func, names) -> list[str]:
    """``import``/``from ... import`` lines binding `names` as `func`'s globals bind them."""
    lines = []
    for name in sorted(names):
        if name not in func.__globals__:
            continue  # a builtin (range, min, ...)
        obj = func.__globals__[name]
        if isinstance(obj, types.ModuleType):
            lines.append(f"import {obj.__name__} as {name}")
        else:
            lines.append(f"from {func.__module__} import {name}")
    return lines


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if node.id in self.mapping:
            return ast.copy_location(ast.Name(self.mapping[node.id], node.ctx), node)
        return node


def _rule_statements(rule, call_args: list[str], target: str, *, placeholder: str = _PLACEHOLDER
                     ) -> tuple[list[ast.stmt], set[str]]:
    """The rule's body as statements assigning its result to `target`, and its global names.

    The rule of the dispatch point must name its parameters as the template names its
    arguments; a function spliced at another placeholder may name them as it likes (they are
    renamed to the call's arguments)."""
    py = getattr(rule, "py_func", rule)
    fdef = _function_def(py)
    params = [a.arg for a in fdef.args.args]
    if placeholder == _PLACEHOLDER and params != call_args or len(params) != len(call_args):
        raise ValueError(f"rule {py.__module__}.{py.__qualname__} must take ({', '.join(call_args)}), "
                         f"got ({', '.join(params)})")
    body = list(fdef.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # docstring
    returns = [n for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Return)]
    if not body or not isinstance(body[-1], ast.Return) or len(returns) != 1 or body[-1].value is None:
        raise ValueError(f"rule {py.__module__}.{py.__qualname__} must end with its only `return <value>`")
    stored = {n.id for stmt in body for n in ast.walk(stmt)
              if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    if stored & set(params) and params != call_args:
        raise ValueError(f"{py.__module__}.{py.__qualname__} assigns to a parameter")
    locals_ = stored - set(params)
    tag = py.__module__.rsplit(".", 1)[-1] + ("" if placeholder == _PLACEHOLDER else f"_{placeholder}")
    mapping = {name: f"_{tag}_{name}" for name in locals_}
    mapping.update({p: a for p, a in zip(params, call_args) if p != a})
    rename = _Rename(mapping)
    stmts = [rename.visit(stmt) for stmt in body[:-1]]
    stmts.append(ast.Assign(targets=[ast.Name(target, ast.Store())], value=rename.visit(body[-1].value),
                            lineno=0))
    loaded = {n.id for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Name)}
    # attribute bases such as `np` in `np.zeros` are Names too
    return [ast.fix_missing_locations(s) for s in stmts], loaded - stored - set(params)


def _holder(tdef, template, placeholder):
    """The template's statement ``x = placeholder(<plain names>)`` and the names it passes."""
    holders = [stmt for stmt in ast.walk(tdef)
               if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)
               and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == placeholder]
    if len(holders) != 1:
        raise ValueError(f"template {template.__qualname__} must contain exactly one `x = {placeholder}(...)`")
    holder = holders[0]
    if len(holder.targets) != 1 or not isinstance(holder.targets[0], ast.Name):
        raise ValueError(f"the `{placeholder}` statement of {template.__qualname__} must assign one name")
    call_args = []
    for a in holder.value.args:
        if not isinstance(a, ast.Name):
            raise ValueError(f"the `{placeholder}` call of {template.__qualname__} must pass plain names")
        call_args.append(a.id)
    return holder, call_args


def _source(template, rule, extra=None) -> str:
    tdef = _function_def(template)
    tdef.decorator_list = []
    rules = {_PLACEHOLDER: rule, **(extra or {})}
    splices = {}            # holder statement -> the statements replacing it
    rule_globals = {}       # function -> the global names its body reads
    for placeholder, func in rules.items():
        holder, call_args = _holder(tdef, template, placeholder)
        stmts, names = _rule_statements(func, call_args, holder.targets[0].id, placeholder=placeholder)
        splices[id(holder)] = stmts
        rule_globals[func] = names

    class _Splice(ast.NodeTransformer):
        def generic_visit(self, node):
            super().generic_visit(node)
            for field in ("body", "orelse"):
                seq = getattr(node, field, None)
                if isinstance(seq, list) and any(id(s) in splices for s in seq):
                    setattr(node, field, [new for s in seq for new in splices.get(id(s), [s])])
            return node

    _Splice().visit(tdef)
    tdef.name = "kernel"
    template_globals = {n.id for n in ast.walk(_function_def(template)) if isinstance(n, ast.Name)}
    imports = ["from numba import njit"] + _import_lines(template, template_globals - set(rules))
    for func, names in rule_globals.items():
        py_rule = getattr(func, "py_func", func)
        clash = {name for name in template_globals & names
                 if name in template.__globals__ and name in py_rule.__globals__
                 and template.__globals__[name] is not py_rule.__globals__[name]}
        if clash:
            raise ValueError(f"names {sorted(clash)} mean different things in the template and the rule")
        imports += _import_lines(py_rule, names)
    spliced = ", ".join(f"{getattr(f, 'py_func', f).__module__}.{getattr(f, 'py_func', f).__qualname__} in place "
                        f"of `{p}`" for p, f in rules.items())
    header = (f'"""Generated by qtheory._splice: {template.__module__}.{template.__qualname__} with '
              f'{spliced}. Do not edit."""\n')
    body = ast.unparse(ast.fix_missing_locations(tdef))
    return header + "\n".join(dict.fromkeys(imports)) + "\n\n\n@njit(cache=True)\n" + body + "\n"


def _folder() -> Path:
    base = os.environ.get("NUMBA_CACHE_DIR") or tempfile.gettempdir()
    folder = Path(base) / "spliced"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def specialise(template, rule, extra=None):
    """The compiled kernel: `template` with `rule` spliced in at its dispatch statement
    (and each function of `extra`, ``{placeholder: function}``, at its statement
    ``x = placeholder(...)``).

    One module per (template, rules), generated once per version of the sources and
    imported from the kernel cache folder; the returned function is ``njit(cache=True)``.
    """
    extra = dict(extra or {})
    key = (template, rule, *sorted(extra.items(), key=lambda kv: kv[0]))
    if key in _LOADED:
        return _LOADED[key]
    text = _source(template, rule, extra)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    py_rule = getattr(rule, "py_func", rule)
    stem = f"{template.__module__}.{template.__name__}__{py_rule.__module__}".replace(".", "_")
    path = _folder() / f"{stem}_{digest}.py"
    if not path.is_file() or path.read_text() != text:
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    name = f"qtheory_spliced_{stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _LOADED[key] = module.kernel
    return module.kernel
