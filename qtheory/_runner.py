"""Run one notebook through papermill in a child process of its own.

:func:`qtheory.execution.execute` starts ``python -m qtheory._runner SPEC`` for every
notebook. The child

* runs papermill with a kernel that talks over IPC sockets (Unix domain sockets in a
  private temporary folder) instead of TCP on localhost: no "Kernel is running over
  TCP without encryption" warning, no port to race for;
* does not interrupt an idle kernel before shutting it down (jupyter_client does, and
  the kernel then logs "KeyboardInterrupt caught in kernel" into the build log);
* sends its own output and the kernel's (both inherit the child's stderr) to a log
  file in the run's work folder, so no traceback of the kernel, papermill, asyncio or
  zmq reaches the terminal; the parent reports a failure in one line of its own;
* writes the outcome (success, or the failing cell and its error) to a pickle file.

The child runs in a session of its own, so a Ctrl-C in the terminal reaches only the
parent, which then kills the child, the kernel and the kernel's workers
(:func:`stop`) and says in one line what was interrupted (see :mod:`qtheory.cli`).
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

KERNEL_START_TIMEOUT = 3600  # s; a loaded machine may start a kernel slowly, never fail for that
#: thread counts of the BLAS / OpenMP libraries in a notebook's processes unless the user set them:
#: a notebook already runs its replications on worker processes, one per core, and a multi-threaded
#: BLAS competing with them (or with other notebooks) made scipy's dense solvers (e.g.
#: ``solve_continuous_lyapunov`` of the refined graph mean field) about 20 times slower on the shared
#: 2-core development machine
SINGLE_THREADED = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM received while notebooks ran; `notebooks` were stopped unpublished."""

    def __init__(self, signum: int = signal.SIGINT, notebooks: tuple[str, ...] = ()):
        super().__init__(signum, notebooks)
        self.signum = int(signum)
        self.notebooks = tuple(notebooks)

    @property
    def exit_status(self) -> int:
        return 128 + self.signum

    def message(self) -> str:
        how = "Ctrl-C" if self.signum == signal.SIGINT else signal.Signals(self.signum).name
        if self.notebooks:
            names = ", ".join(self.notebooks)
            return (f"qtheory: interrupted ({how}) while running {names}; nothing of {names} was published, "
                    f"results published before are unchanged")
        return f"qtheory: interrupted ({how}); results published before are unchanged"


def raise_interrupted(signum, frame) -> None:
    """Signal handler (SIGINT, SIGTERM) installed by the command line."""
    raise Interrupted(signum)


# ---------------------------------------------------------------------------------------------
# parent side

_LIVE: dict[int, tuple[subprocess.Popen, str]] = {}
_LOCK = threading.Lock()
_STOPPING = False


def reset() -> None:
    """Allow new children again (after :func:`stop_all`, for the next run in this process)."""
    global _STOPPING
    with _LOCK:
        _STOPPING = False


def child_environment(env: dict[str, str]) -> dict[str, str]:
    """`env` with each of :data:`SINGLE_THREADED` set to 1 where `env` does not set it (the child,
    the kernel and the kernel's workers inherit it)."""
    return {**{name: "1" for name in SINGLE_THREADED}, **env}


def start(spec: dict[str, Any], work: Path, env: dict[str, str], notebook: str) -> subprocess.Popen:
    """Start the child for `spec` (see :func:`main`) in :func:`child_environment` of `env`; it is
    registered until :func:`finish`."""
    with _LOCK:
        if _STOPPING:  # an interrupt is being handled: start nothing new
            raise Interrupted(signal.SIGINT, ())
    path = work / "spec.pickle"
    path.write_bytes(pickle.dumps({**spec, "parent_pid": os.getpid()}))
    with open(os.devnull, "rb") as devnull, open(spec["log"], "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", "qtheory._runner", str(path)], env=child_environment(env),
                                stdin=devnull, stdout=log, stderr=log, start_new_session=True)
    with _LOCK:
        _LIVE[proc.pid] = (proc, notebook)
    return proc


def finish(proc: subprocess.Popen) -> None:
    with _LOCK:
        _LIVE.pop(proc.pid, None)


def _descendants(pid: int) -> list[int]:
    import psutil

    try:
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def kill_tree(proc: subprocess.Popen) -> None:
    """SIGKILL the child, the kernel it started and every process under them; reap the child."""
    pids = [proc.pid, *_descendants(proc.pid)]
    groups = set()
    for pid in pids:
        try:
            groups.add(os.getpgid(pid))
        except OSError:
            pass
    groups.discard(os.getpgid(0))  # never our own group
    for group in groups:
        try:
            os.killpg(group, signal.SIGKILL)
        except OSError:
            pass
    for pid in pids:  # a descendant that left its group (a session of its own)
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    proc.wait()


def stop_all() -> list[str]:
    """Kill every live child (see :func:`kill_tree`); return the notebooks they were running."""
    global _STOPPING
    with _LOCK:
        _STOPPING = True
        live = list(_LIVE.values())
        _LIVE.clear()
    for proc, _ in live:
        kill_tree(proc)
    return [name for _, name in live]


@contextmanager
def signals_ignored():
    """While cleaning up after an interrupt, a second Ctrl-C must not cut the clean-up short."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


# ---------------------------------------------------------------------------------------------
# child side

def kernel_manager_class(ipc_dir: str):
    """An ``AsyncKernelManager`` on IPC transport that does not interrupt a kernel to stop it."""
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import CaselessStrEnum, default

    class IPCKernelManager(AsyncKernelManager):
        transport = CaselessStrEnum(["tcp", "ipc"], default_value="ipc", config=True)

        @default("ip")
        def _ip_default(self) -> str:
            return os.path.join(ipc_dir, "kernel")

        async def _async_post_start_kernel(self, **kw) -> None:
            await super()._async_post_start_kernel(**kw)
            process = getattr(self.provisioner, "process", None)
            if process is not None:
                _KERNEL.watch(process)

        async def _async_interrupt_kernel(self) -> None:
            # jupyter_client interrupts the kernel before every shutdown; papermill shuts
            # it down only when all cells ran, so it is idle and the interrupt only logs
            if self.shutting_down:
                return
            await super()._async_interrupt_kernel()

    return IPCKernelManager


class _KernelWatch:
    """The kernel process of this run and the peak memory of it and its workers (sampled)."""

    PERIOD = 0.5

    def __init__(self):
        self.process = None
        self.peak = 0

    def watch(self, process) -> None:
        self.process = process
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self) -> None:
        import psutil

        try:
            root = psutil.Process(self.process.pid)
        except psutil.Error:
            return
        while self.process.poll() is None:
            try:
                total = root.memory_info().rss + sum(c.memory_info().rss for c in root.children(recursive=True))
            except psutil.Error:
                total = 0
            self.peak = max(self.peak, total)
            time.sleep(self.PERIOD)

    def death(self) -> str:
        """What became of a kernel that died, in words (empty if unknown)."""
        if self.process is None:
            return ""
        from ._memory import _gb, available_bytes

        try:
            code = self.process.wait(timeout=5)
        except Exception:
            code = self.process.poll()
        if code is None:
            how = "it stopped answering"
        elif code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
            how = f"it was killed by signal {-code} ({name}" + (
                ": most often the operating system's out-of-memory killer)" if -code == signal.SIGKILL else ")")
        else:
            how = f"it exited with status {code}"
        peak = f"; its peak memory (with its workers) was about {_gb(self.peak)} of {_gb(available_bytes())} available" \
            if self.peak else ""
        return f"the notebook's kernel died: {how}{peak}"


_KERNEL = _KernelWatch()


def _watch_parent(parent: int) -> None:
    """Kill the kernel and exit should the parent die without stopping us (SIGKILL)."""
    def watch():
        while True:
            if os.getppid() != parent:
                for pid in _descendants(os.getpid()):
                    try:
                        os.killpg(os.getpgid(pid), signal.SIGKILL)
                    except OSError:
                        pass
                os._exit(1)
            time.sleep(1.0)

    threading.Thread(target=watch, daemon=True).start()


def run(spec: dict[str, Any]) -> dict[str, Any]:
    """Execute the notebook of `spec`; the outcome as a dict (never raises)."""
    import papermill as pm

    try:
        pm.execute_notebook(spec["source"], spec["output"], parameters=spec["parameters"],
                            kernel_name=spec["kernel"], progress_bar=False, cwd=spec["cwd"],
                            log_output=False, start_timeout=KERNEL_START_TIMEOUT,
                            kernel_manager_class=kernel_manager_class(spec["ipc_dir"]))
    except pm.PapermillExecutionError as err:
        return {"ok": False, "cell": err.exec_count, "error": f"{err.ename}: {err.evalue}"}
    except Exception as err:  # kernel died, bad notebook file, ...
        death = _KERNEL.death() if type(err).__name__ == "DeadKernelError" else ""
        return {"ok": False, "cell": None, "error": death or f"{type(err).__name__}: {err}"}
    return {"ok": True}


def main(argv: list[str]) -> int:
    spec = pickle.loads(Path(argv[0]).read_bytes())
    _watch_parent(spec["parent_pid"])
    outcome = run(spec)
    tmp = Path(spec["outcome"] + ".tmp")
    tmp.write_bytes(pickle.dumps(outcome))
    os.replace(tmp, spec["outcome"])
    return 0 if outcome["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
