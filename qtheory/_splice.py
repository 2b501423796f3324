"""Specialise a simulation kernel on a policy's decision rule, at the source level.

A simulator's event loop is written once, as a plain Python *template* with one dispatch
point, the statement ``p = decide(<arguments>)``. A policy brings its decision *rule*, a
``numba.njit`` function that takes any of the template's arguments there, by name and in any
order (only those it uses), and whose last statement is its only ``return``.
:func:`specialise` writes a module in which the rule's body replaces the dispatch statement
(the rule's local names prefixed, so they cannot clash with the loop's) and compiles it with
``njit(cache=True)``.

A spliced body must mean in the kernel what it means as a function. Refused, with a
:class:`~qtheory.errors.SpliceError` naming the rule's file and line, is a rule that assigns
to one of its parameters (in the kernel, the template's own variable: a loop ``for i in``
would overwrite the dispatcher index), reads a module-level name that the template binds
itself (the template's ``cap`` would replace the policy file's), reads a closure variable or a
name defined nowhere (such as a policy parameter without ``params.``), reads a template
argument without taking it, or reads a name that the template imports as something else.

Why not a call, or numba's inlining? Both were measured (``benchmarks/compare_revisions.py``):
a call that receives the generator state costs up to 40 % of the events/s of the
U kernel, and numba's IR inlining of a rule with loops 10-20 %, because the loop's values
can no longer stay in registers. Spliced source compiles to the same loop as code written
in place, and the rule stays a function of its own that tests can call directly.

The generated modules live next to the compiled kernels (``spliced`` in
:func:`qtheory._kernelcache.kernel_cache_dir`), named by a hash of their text, so an edit of
a template or a rule produces a new module; a module is written only when its text changes,
atomically, so that concurrent processes agree. Their compiled code is keyed on their text
and every package file they import (:func:`qtheory._kernelcache.dependency_hash`): an edit of
a helper a rule calls recompiles the kernel, an edit of an unrelated file does not.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import inspect
import os
import re
import sys
import tempfile
import textwrap
import types
from pathlib import Path

import numpy as np

from .errors import SpliceError

__all__ = ["specialise", "location", "rule_errors"]

_PLACEHOLDER = "decide"
#: the name of the generated kernel function in its module: a rule may not read a module-level
#: name of its own called so (in the generated module it would be the kernel itself)
KERNEL_NAME = "kernel"
_LOADED: dict[tuple, object] = {}


def _source_of(func) -> tuple[ast.FunctionDef, str, int]:
    """`func`'s definition, its source file and the line its source starts at (the first
    decorator): a node's line in the file is ``first + node.lineno - 1``."""
    lines, first = inspect.getsourcelines(func)
    file = inspect.getsourcefile(func) or func.__code__.co_filename
    tree = ast.parse(textwrap.dedent("".join(lines)))
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise SpliceError(f"{file}:{first}: {func.__qualname__} is not a plain function definition")
    return node, file, max(first, 1)


def location(func, node: ast.AST | None = None) -> str:
    """``"file:line: module.name"`` of a rule (a numba function or its Python function), or of
    `node` of its definition (:func:`_source_of`'s tree): how the errors about a rule point
    at it, the splice checks' and the kernels' (:class:`~qtheory.errors.RuleError`) alike."""
    py = getattr(func, "py_func", func)
    _, file, first = _source_of(py)
    return f"{file}:{first + (node.lineno - 1 if node is not None else 0)}: {py.__module__}.{py.__qualname__}"


def _function_def(func) -> ast.FunctionDef:
    return _source_of(func)[0]


def _import_lines(func, names) -> list[str]:
    """``import``/``from ... import`` lines binding `names` as `func`'s globals bind them
    (a name that is not one of its globals is a builtin: :func:`_rule_statements` checked)."""
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


def _bound_names(fdef: ast.FunctionDef) -> set[str]:
    """The names `fdef` binds itself: its parameters and every name it assigns."""
    return ({a.arg for a in fdef.args.args}
            | {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)})


def _first_use(body, name):
    """The first node of `body` (in source order) that reads or writes `name`."""
    nodes = [n for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id == name]
    return min(nodes, key=lambda n: (n.lineno, n.col_offset))


def _rule_statements(rule, call_args: list[str], target: str, *, placeholder: str, by_name: bool,
                     template=None) -> tuple[list[ast.stmt], set[str]]:
    """The rule's body as statements assigning its result to `target`, and its global names.

    A rule spliced `by_name` (the policy's rule at the dispatch point, and rules such as R's
    completion rule) takes any of the names the template passes there, in any order, bound by
    name; another function takes as many parameters as the call passes and may name them as it
    likes (they are renamed to the call's arguments, by position). Refused
    (:class:`~qtheory.errors.SpliceError`, naming the rule's file and line) is a rule that would
    not mean in the kernel what it means as a function:
    one that assigns to a parameter (the template's variable), reads a name the template
    binds itself (which would replace the rule's), a closure variable, or a name that is not
    defined (e.g. a policy parameter without ``params.``)."""
    py = getattr(rule, "py_func", rule)
    fdef = _source_of(py)[0]

    def where(node=None):
        return location(py, node)

    args = fdef.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
        raise SpliceError(f"{where(fdef)} may take only plain parameters (no defaults, *args, **kwargs or "
                          f"keyword-only ones)")
    params = [a.arg for a in args.args]
    if by_name:
        unknown = [p for p in params if p not in call_args]
        if unknown:
            raise SpliceError(f"{where(fdef)} takes `{unknown[0]}`, which the kernel template does not pass to "
                              f"`{placeholder}`: a rule takes any of ({', '.join(call_args)}), by name")
    elif len(params) != len(call_args):
        raise SpliceError(f"{where(fdef)} must take {len(call_args)} parameters, as `{placeholder}"
                          f"({', '.join(call_args)})` passes them (got ({', '.join(params)}))")
    body = list(fdef.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # docstring
    returns = [n for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Return)]
    if not body or not isinstance(body[-1], ast.Return) or len(returns) != 1 or body[-1].value is None:
        node = returns[0] if len(returns) > 1 else (body[-1] if body else fdef)
        raise SpliceError(f"{where(node)} must end with its only `return <value>`")
    stored = {n.id for stmt in body for n in ast.walk(stmt)
              if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    assigned = [p for p in params if p in stored]
    if assigned:
        node = min((n for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Name)
                    and isinstance(n.ctx, ast.Store) and n.id in assigned), key=lambda n: (n.lineno, n.col_offset))
        raise SpliceError(f"{where(node)} assigns to its parameter `{node.id}`, which in the kernel is the "
                          f"template's own variable: use a new name for the new value")
    _check_stores(body, params, where)
    loaded = {n.id for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Name)}
    # attribute bases such as `np` in `np.zeros` are Names too
    free = loaded - stored - set(params)
    _check_free_names(py, body, free, call_args, template, where, by_name)
    _check_draws(py, body, where)
    locals_ = stored - set(params)
    tag = py.__module__.rsplit(".", 1)[-1] + ("" if placeholder == _PLACEHOLDER else f"_{placeholder}")
    mapping = {local: f"_{tag}_{local}" for local in locals_}
    mapping.update({p: a for p, a in zip(params, call_args) if p != a and not by_name})
    if template is not None:
        clash = sorted(set(mapping.values()) & _bound_names(_function_def(template)) - set(call_args))
        if clash:  # pragma: no cover - a template naming its locals like a rule's renamed ones
            raise SpliceError(f"{where(fdef)}: its renamed locals {clash} clash with the template's")
    rename = _Rename(mapping)
    stmts = [rename.visit(stmt) for stmt in body[:-1]]
    stmts.append(ast.Assign(targets=[ast.Name(target, ast.Store())], value=rename.visit(body[-1].value),
                            lineno=body[-1].lineno))
    return [ast.fix_missing_locations(s) for s in stmts], free


#: the arrays a rule may store into: the policy's own (``params`` arrays, U's state ``st``); every
#: other array it is given is the kernel's (queue lengths, occupancies, the graph), and a store
#: there would change the run behind the kernel's back
WRITABLE = frozenset({"params", "st"})


def _stored_base(target):
    """The name a store ``name[...] = ...`` or ``name.attr[...] = ...`` writes into, or None."""
    while isinstance(target, (ast.Subscript, ast.Attribute)):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def _check_stores(body, params, where) -> None:
    """Refuse a store into an array the kernel owns (:data:`WRITABLE`)."""
    for stmt in body:
        for node in ast.walk(stmt):
            targets = (node.targets if isinstance(node, ast.Assign) else
                       [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
            for target in targets:
                for part in (target.elts if isinstance(target, ast.Tuple) else [target]):
                    if not isinstance(part, ast.Subscript):
                        continue
                    base = _stored_base(part)
                    if base in params and base not in WRITABLE:
                        raise SpliceError(f"{where(part)} stores into `{base}`, which the kernel owns: a rule "
                                          f"writes only into its own state ({', '.join(sorted(WRITABLE))})")


def _is_unseeded(obj) -> bool:
    """Whether `obj` is Python's or numpy's global random module, or something taken from them."""
    import random

    if obj is random or obj is np.random:
        return True
    home = getattr(obj, "__module__", None) or ""
    return home == "random" or home.startswith("numpy.random")


def _check_draws(py, body, where) -> None:
    """Refuse a draw from ``np.random`` or ``random``: their streams are not the run's seed (two
    processes with one seed would differ); a rule draws from the kernel's generator ``rng``
    through :mod:`qtheory._rng`."""
    for stmt in body:
        for node in ast.walk(stmt):
            found = None
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr == "random" \
                    and py.__globals__.get(node.value.id) is np:
                found = f"{node.value.id}.random"
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) \
                    and _is_unseeded(py.__globals__.get(node.id)):
                found = node.id
            if found:
                raise SpliceError(f"{where(node)} draws from `{found}`, whose stream is not the run's seed (the same "
                                  "seed would give other numbers in another process): draw from the kernel's "
                                  "generator `rng` with qtheory._rng")


def _check_free_names(py, body, free, call_args, template, where, by_name: bool) -> None:
    """Refuse a free name of the rule (one it reads but neither takes nor assigns) that the
    generated kernel would not resolve as the rule's own module does."""
    closure = set(py.__code__.co_freevars)
    tdef = _function_def(template) if template is not None else None
    template_bound = _bound_names(tdef) if tdef is not None else set(call_args)
    template_free = ({n.id for n in ast.walk(tdef) if isinstance(n, ast.Name)} - template_bound
                     if tdef is not None else set())
    builtins_ = vars(__import__("builtins"))
    module = sys.modules.get(py.__module__)
    for free_name in sorted(free, key=lambda n: (_first_use(body, n).lineno, _first_use(body, n).col_offset)):
        node = _first_use(body, free_name)
        if free_name in closure:
            raise SpliceError(
                f"{where(node)} reads `{free_name}`, a variable of the function that encloses it: the generated "
                f"kernel cannot see it. Put the value in the policy's `Params` (read as `params.{free_name}`) or "
                f"at module level")
        in_globals = free_name in py.__globals__
        if free_name == KERNEL_NAME and in_globals:
            raise SpliceError(
                f"{where(node)} reads the module-level `{free_name}`, which in the generated module is the name of "
                f"the compiled kernel itself (numba would report a recursive call): rename it")
        if free_name in template_bound:
            if in_globals:
                raise SpliceError(
                    f"{where(node)} reads the module-level `{free_name}`, but the kernel template has a variable "
                    f"`{free_name}` of its own, which would replace it in the generated kernel: rename it")
            if free_name in call_args and by_name:
                raise SpliceError(f"{where(node)} reads `{free_name}` without taking it: add `{free_name}` to its "
                                  f"parameters")
            raise SpliceError(
                f"{where(node)} reads `{free_name}`, which is not defined where the rule is (in the kernel it would "
                f"silently be the template's own `{free_name}`); a policy parameter is read as `params.{free_name}`")
        if in_globals:
            obj = py.__globals__[free_name]
            if isinstance(obj, types.FunctionType):
                raise SpliceError(f"{where(node)} calls `{free_name}`, a plain Python function, which compiled code "
                                  f"cannot call: decorate it with `@njit(cache=True)` (numba's error would point at "
                                  f"the generated kernel, not here)")
            if not isinstance(obj, types.ModuleType) and (module is None or getattr(module, free_name, None) is not obj):
                raise SpliceError(f"{where(node)} reads `{free_name}`, which the generated kernel cannot import "
                                  f"from {py.__module__}")
        elif free_name not in builtins_:
            raise SpliceError(f"{where(node)} reads `{free_name}`, which is not defined (not a parameter, a local, "
                              f"a module-level name or a builtin); a policy parameter is read as "
                              f"`params.{free_name}`")
        if free_name in template_free:
            ours = py.__globals__.get(free_name, builtins_.get(free_name))
            theirs = template.__globals__.get(free_name, builtins_.get(free_name))
            if ours is not theirs:
                raise SpliceError(f"{where(node)} reads `{free_name}`, which means something else in the kernel "
                                  f"template {template.__module__}.{template.__qualname__}: rename it")


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


def _source(template, rule, extra=None, named=None) -> str:
    """The generated module's text (:func:`_generate`)."""
    return _generate(template, rule, extra, named)[0]


def _generate(template, rule, extra=None, named=None) -> tuple[str, dict[int, str]]:
    """The text of the module with `rule` (and `extra`, `named`) spliced into `template`, and
    its line map (:func:`_line_map`)."""
    tdef = _function_def(template)
    tdef.decorator_list = []
    overlap = set(extra or {}) & set(named or {})
    if overlap:
        raise ValueError(f"placeholders {sorted(overlap)} given in both `extra` and `named`")
    rules = {_PLACEHOLDER: rule, **(extra or {}), **(named or {})}
    by_name = {_PLACEHOLDER, *(named or {})}
    splices = {}            # holder statement -> the statements replacing it
    rule_globals = {}       # function -> the global names its body reads
    for placeholder, func in rules.items():
        holder, call_args = _holder(tdef, template, placeholder)
        stmts, names = _rule_statements(func, call_args, holder.targets[0].id, placeholder=placeholder,
                                        template=template, by_name=placeholder in by_name)
        for stmt in stmts:                  # where each spliced node comes from, for error messages
            for n in ast.walk(stmt):
                n._qtheory_rule = func
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
    tdef.name = KERNEL_NAME
    template_globals = {n.id for n in ast.walk(_function_def(template)) if isinstance(n, ast.Name)}
    imports = ["from numba import njit"] + _import_lines(template, template_globals - set(rules))
    for func, names in rule_globals.items():
        imports += _import_lines(getattr(func, "py_func", func), names)
    spliced = ", ".join(f"{getattr(f, 'py_func', f).__module__}.{getattr(f, 'py_func', f).__qualname__} in place "
                        f"of `{p}`" for p, f in rules.items())
    header = (f'"""Generated by qtheory._splice: {template.__module__}.{template.__qualname__} with '
              f'{spliced}. Do not edit."""\n')
    body = ast.unparse(ast.fix_missing_locations(tdef))
    head = header + "\n".join(dict.fromkeys(imports)) + "\n\n\n@njit(cache=True)\n"
    return head + body + "\n", _line_map(tdef, body, head.count("\n"))


def _line_map(tdef, body: str, offset: int) -> dict[int, str]:
    """Line of the generated module -> :func:`location` of the rule line it was spliced from.
    The generated text is parsed again and walked beside the tree it was written from (the
    same shape), so each spliced node's line in the module is known; lines of the template
    are not in the map."""
    out: dict[int, str] = {}
    written = ast.parse(body).body[0]
    for ours, theirs in zip(ast.walk(tdef), ast.walk(written)):
        if type(ours) is not type(theirs):
            return out          # pragma: no cover - unparse changed the shape: no map rather than a wrong one
        func = getattr(ours, "_qtheory_rule", None)
        if func is not None and getattr(ours, "lineno", 0) and getattr(theirs, "lineno", 0):
            out.setdefault(offset + theirs.lineno, location(func, ours))
    return out


#: generated module path -> its line map (:func:`_line_map`), for :func:`rule_errors`
_LINE_MAPS: dict[str, dict[int, str]] = {}


#: compiled kernel -> the functions spliced into it from outside its template's module (a
#: policy's rule, lookahead, completion rule), for :func:`rule_errors`
_SPLICED_INTO: dict[int, tuple] = {}


class rule_errors:
    """Context manager around the call of a spliced kernel: a numba compilation error (the
    first call compiles) is raised again as a :class:`~qtheory.errors.SpliceError` whose message
    names, for each place of the generated module it cites, the rule's file and line. With
    `kernel` given, an ``IndexError`` from the run (which only a kernel compiled with bounds
    checking raises, ``QTHEORY_BOUNDSCHECK=1``) is raised again as a
    :class:`~qtheory.errors.RuleError` naming the file and line of each function spliced into
    that kernel: an index out of range there reads or writes wild memory without the switch."""

    def __init__(self, kernel=None):
        self.kernel = kernel

    def __enter__(self):
        return self

    def __exit__(self, kind, error, tb):
        from numba.core.errors import NumbaError

        if isinstance(error, IndexError) and self.kernel is not None and id(self.kernel) in _SPLICED_INTO:
            from .errors import RuleError

            rules = "; ".join(location(f) for f in _SPLICED_INTO[id(self.kernel)])
            raise RuleError(f"an array index out of range in the kernel spliced from {rules} (numba: {error}): "
                            "look there for an index below 0 or past the end (`_ix(-1)` is a huge index, not "
                            "the last element)") from None
        if error is None or not isinstance(error, NumbaError):
            return False
        text = str(error)
        rules = []
        for path, lines in _LINE_MAPS.items():
            def at(match, lines=lines):
                where = lines.get(int(match.group(2)))
                if where is None:
                    return match.group(0)
                rules.append(where)
                return f"{match.group(0)} (spliced from {where})"
            # numba cites a file as 'File "<path, often relative>", line N' and '<path> (N)'
            name = re.escape(os.path.basename(path))
            text = re.sub(r'File "([^"]*' + name + r')", line (\d+)', at, text)
            text = re.sub(r'(\S*' + name + r') \((\d+)\)', at, text)
        if not rules:
            return False                    # an error of the template itself: numba's message as it is
        raise SpliceError(f"{rules[0]}: the rule does not compile in the kernel: {text}") from None


def _folder() -> Path:
    from ._kernelcache import kernel_cache_dir

    folder = kernel_cache_dir() / "spliced"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def specialise(template, rule, extra=None, named=None):
    """The compiled kernel: `template` with `rule` spliced in at its dispatch statement
    (and each function of `extra` and of `named`, ``{placeholder: function}``, at its
    statement ``x = placeholder(...)``: a function of `extra` takes the call's arguments by
    position, one of `named`, like the rule, any of them by name).

    One module per (template, rules), generated once per version of the sources and
    imported from the kernel cache folder; the returned function is ``njit(cache=True)``.
    """
    extra = dict(extra or {})
    named = dict(named or {})
    key = (template, rule, *sorted(extra.items(), key=lambda kv: kv[0]), "named",
           *sorted(named.items(), key=lambda kv: kv[0]))
    if key in _LOADED:
        return _LOADED[key]
    text, lines = _generate(template, rule, extra, named)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    py_rule = getattr(rule, "py_func", rule)
    stem = f"{template.__module__}.{template.__name__}__{py_rule.__module__}".replace(".", "_")
    path = _folder() / f"{stem}_{digest}.py"
    if not path.is_file() or path.read_text() != text:
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    _LINE_MAPS[str(path)] = lines
    name = f"qtheory_spliced_{stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _LOADED[key] = module.kernel
    _SPLICED_INTO[id(module.kernel)] = tuple(
        f for f in (rule, *extra.values(), *named.values())
        if getattr(f, "py_func", f).__module__ != template.__module__)
    return module.kernel
