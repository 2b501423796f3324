"""Where numba keeps qtheory's compiled kernels, and what each is keyed on.

numba's ``cache=True`` keys a compiled function on its own source file only. A kernel
that calls a jitted function of another module (every simulator calls the generator
in :mod:`qtheory._rng`; a kernel specialised on a policy's decision function calls
that policy's file) would keep running the old machine code after that other file
changed. qtheory therefore gives numba a cache locator of its own
(:class:`QtheoryCacheLocator`, used for the package's files and the kernels
:mod:`qtheory._splice` generates) whose source stamp is a hash of the function's file
and of every package file it imports, directly or through others
(:func:`dependency_hash`): an edit of a helper a kernel calls recompiles that kernel;
an edit of a file no kernel imports (``reproduce.py``, an item module) recompiles
nothing.

Inside it, a file's kernels are kept in a folder named by its module and its source stamp,
not by where the checkout is: a fresh clone of the same sources loads the kernels the working
copy compiled. The folder is ``$QTHEORY_CACHE_DIR/numba``; without that variable,
``$NUMBA_CACHE_DIR/qtheory/numba`` when the user set ``NUMBA_CACHE_DIR``, else
``~/.cache/qtheory/numba`` (or the system's temporary folder where that is not
writable). ``NUMBA_CACHE_DIR`` itself is left as the user set it: numba caches other
code where it always would. With ``QTHEORY_BOUNDSCHECK=1`` (:func:`boundscheck`) every kernel is
compiled with bounds checking, into ``numba-boundscheck`` beside that folder. The locator is registered when numba's caching module is
imported (:func:`configure`, from :mod:`qtheory`'s ``__init__``), so importing qtheory
does not import numba.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.abc
import importlib.util
import os
import sys
import tempfile
from pathlib import Path

__all__ = ["dependency_hash", "dependencies", "kernel_cache_dir", "configure", "boundscheck", "QtheoryCacheLocator"]

#: packages whose files the locator keys on their imports: name -> folder (:func:`configure`)
_ROOTS: dict[str, Path] = {}


def _module_name(path: Path) -> str | None:
    """The dotted name of `path` inside a registered package, or None."""
    for name, root in _ROOTS.items():
        try:
            rel = path.relative_to(root)
        except ValueError:
            continue
        parts = [name, *rel.with_suffix("").parts]
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return None


def _file_of(module: str) -> Path | None:
    """The source file of the registered package's module `module`, or None (outside them)."""
    top = module.split(".")[0]
    if top not in _ROOTS:
        return None
    base = _ROOTS[top].joinpath(*module.split(".")[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


#: the import statements of each file read, keyed by its path, modification time and size
#: (:func:`_imports`): parsing is most of the cost of :func:`dependency_hash` (about 75 ms for a
#: simulator), which numba's locator asks for twice per kernel (its folder and its stamp)
_IMPORTS: dict[tuple, tuple] = {}


def _imports(path: Path) -> tuple:
    """The import statements of `path`, anywhere in it, as ``(level, module, names)``: level -1 for
    ``import a.b`` (names holds the modules), else a ``from`` import's level (0 if absolute)."""
    try:
        stat = path.stat()
    except OSError:
        return ()
    key = (path, stat.st_mtime_ns, stat.st_size)
    if key not in _IMPORTS:
        try:
            tree = ast.parse(path.read_bytes())
        except (OSError, SyntaxError, ValueError):
            return ()
        _IMPORTS[key] = tuple(
            (-1, None, tuple(a.name for a in node.names)) if isinstance(node, ast.Import)
            else (node.level, node.module, tuple(a.name for a in node.names))
            for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)))
    return _IMPORTS[key]


def _direct(path: Path) -> set[Path]:
    """Package files `path` imports (anywhere in it: module level or inside functions)."""
    me = _module_name(path)
    package = (me.split(".") if me else []) if path.name == "__init__.py" else (me.split(".")[:-1] if me else [])
    out = set()
    for level, module, names in _imports(path):
        if level < 0:
            out |= {f for name in names if (f := _file_of(name))}
            continue
        if level:
            if not package:
                continue
            base = ".".join(package[:len(package) - level + 1] + ([module] if module else []))
        else:
            base = module or ""
        if found := _file_of(base):
            out.add(found)
        out |= {f for name in names if (f := _file_of(f"{base}.{name}"))}
    return out


def dependencies(path: str | os.PathLike) -> list[Path]:
    """`path` and every file of a registered package it imports, directly or through others,
    in a fixed order."""
    start = Path(path).resolve()
    seen, todo = {start}, [start]
    while todo:
        for found in _direct(todo.pop()):
            if found not in seen:
                seen.add(found)
                todo.append(found)
    return sorted(seen)


def dependency_hash(path: str | os.PathLike) -> bytes:
    """A digest of the contents of :func:`dependencies` of `path`: what a compiled function of
    `path` may have read (the numba source stamp of :class:`QtheoryCacheLocator`)."""
    digest = hashlib.sha256()
    for dep in dependencies(path):
        digest.update((_module_name(dep) or dep.name).encode())
        digest.update(b"\0")
        digest.update(dep.read_bytes())
        digest.update(b"\0")
    return digest.digest()


def boundscheck() -> bool:
    """Whether kernels are compiled with bounds checking: ``QTHEORY_BOUNDSCHECK=1`` (a debug switch;
    an index out of range then raises ``IndexError`` instead of reading or writing wild memory, at
    a cost in speed). Such kernels are kept in a folder of their own."""
    return os.environ.get("QTHEORY_BOUNDSCHECK", "").strip() not in ("", "0", "false", "no")


def _base() -> Path:
    env = os.environ.get("QTHEORY_CACHE_DIR")
    if env:
        return Path(env)
    numba_dir = os.environ.get("NUMBA_CACHE_DIR")
    if numba_dir:
        return Path(numba_dir) / "qtheory"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "qtheory"


def kernel_cache_dir() -> Path:
    """The folder of qtheory's compiled kernels (the module docstring says which)."""
    folder = _base() / ("numba-boundscheck" if boundscheck() else "numba")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        folder = Path(tempfile.gettempdir()) / "qtheory-numba"
        folder.mkdir(parents=True, exist_ok=True)
    return folder


def _governed(py_file: str) -> bool:
    """Whether the locator keeps `py_file`'s kernels: a file of a registered package or one that
    :mod:`qtheory._splice` generated."""
    path = Path(py_file).resolve()
    if _module_name(path) is not None:
        return True
    spliced = kernel_cache_dir().resolve() / "spliced"
    return path.parent == spliced


def _make_locator():
    from numba.core import caching

    class QtheoryCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        """numba's cache locator for qtheory's kernels: the folder :func:`kernel_cache_dir`, the
        source stamp :func:`dependency_hash` (the function's file and every package file it
        imports)."""

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = str(kernel_cache_dir() / self.get_suitable_cache_subpath(py_file))

        def get_cache_path(self):
            return self._cache_path

        @classmethod
        def get_suitable_cache_subpath(cls, py_file):
            """The folder of `py_file`'s kernels: its module's name and a digest of what its
            kernels compile from (:func:`dependency_hash`), where numba's own name is a digest of
            the file's absolute path. Two checkouts of the same sources (a fresh clone beside
            the working copy) share their compiled kernels; two different sources of one module
            (a checkout and an edited copy a test makes) never write into one folder, so one's
            index cannot point at the other's machine code."""
            path = Path(py_file).resolve()
            return f"{_module_name(path) or path.stem}_{dependency_hash(path).hex()[:24]}"

        def get_source_stamp(self):
            return dependency_hash(self._py_file)

        @classmethod
        def from_function(cls, py_func, py_file):
            if not _governed(py_file):
                return None
            return super().from_function(py_func, py_file)

    return QtheoryCacheLocator


def _install(caching_module) -> None:
    """Put :class:`QtheoryCacheLocator` first among numba's locators (once)."""
    impl = caching_module.CacheImpl
    if not any(getattr(c, "__name__", "") == "QtheoryCacheLocator" for c in impl._locator_classes):
        global QtheoryCacheLocator
        QtheoryCacheLocator = _make_locator()
        impl._locator_classes = [QtheoryCacheLocator, *impl._locator_classes]


QtheoryCacheLocator = None  # the class, once numba's caching module is imported (:func:`_install`)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Run `callback(module)` right after the module `name` is executed, whenever it is imported."""

    def __init__(self, name: str, callback):
        self.name, self.callback = name, callback

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)            # the real spec, from the other finders
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        execute, callback = spec.loader.exec_module, self.callback

        def exec_module(module):
            execute(module)
            callback(module)

        spec.loader.exec_module = exec_module  # this spec's own loader object
        return spec


def configure(root: str | os.PathLike) -> Path:
    """Register the package folder `root` with the locator (its files are keyed on what they
    import) and install the locator into numba, now if numba's caching module is loaded, else
    when it is. Returns :func:`kernel_cache_dir`."""
    root = Path(root).resolve()
    _ROOTS[root.name] = root
    if boundscheck():          # numba reads NUMBA_BOUNDSCHECK when it is imported; set both
        os.environ["NUMBA_BOUNDSCHECK"] = "1"
        if "numba" in sys.modules:
            sys.modules["numba"].config.BOUNDSCHECK = 1
    if "numba.core.caching" in sys.modules:
        _install(sys.modules["numba.core.caching"])
    elif not any(isinstance(f, _AfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport("numba.core.caching", _install))
    return kernel_cache_dir()
