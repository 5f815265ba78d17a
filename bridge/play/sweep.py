"""A function mapped over many work items: in this process, in local processes, or on a Ray
cluster, the results in the order of the items whatever the backend.

:func:`sweep` is what the commands that run many independent pieces of work (``check`` over
scenario files, ``solve`` over puzzles, ``selfplay`` over games, ``verify`` over positions)
share.  The function and each item must be picklable (a module-level function, with
:func:`functools.partial` for the arguments that every item shares: they are sent once to
each process, not with every item).  Each result depends only on its item, so the results,
and their order, are the same with every backend and every number of processes.

- ``Backend()`` (``local``, one job): the items one after another in this process;
- ``Backend("local", jobs=J)``: J processes of this machine, a few items given to each at a
  time; a process that dies (out of memory, killed) fails only the item that killed it:
  the items it may have been working on are run again one by one, each in a process of its
  own, and ``died(item)`` stands for the result of the one that kills its process again;
- ``Backend("ray", jobs=J, address=ADDR)``: tasks of a Ray cluster, the one at ADDR
  (``auto``: the one this machine belongs to) or, without an address, a local one started
  for the sweep (J CPUs, every CPU of the machine by default), quiet (no dashboard, its
  logs in a temporary folder that is removed at the end) and shut down when the sweep ends.
  A task whose worker dies is ``died(item)`` too.  Ray is the optional extra ``ray``.

>>> list(sweep(abs, [-2, 1, -3]))
[2, 1, 3]
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sized
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from bridge.model.errors import InputError, WorkerDied, one_line

__all__ = ["BACKENDS", "RAY_MISSING", "Backend", "cluster", "sweep"]

T = TypeVar("T")
R = TypeVar("R")

BACKENDS = ("local", "ray")
RAY_MISSING = (
    "--backend ray: Ray is not installed; install the extra with pip install 'mtgasp[ray]' "
    "(from a checkout: pip install -e '.[ray]')"
)
# items given out ahead of the one whose result comes next, for each job: enough that a slow
# item doesn't leave the others idle, few enough that a long sweep's results stay small
AHEAD = 8
# the object store of a local cluster: the items and results are small
OBJECT_STORE_BYTES = 128 * 1024**2


@dataclass(frozen=True)
class Backend:
    """Where a sweep runs: ``local`` (``jobs`` processes of this machine, 1: this process) or
    ``ray`` (the cluster at ``address``, or a local one of ``jobs`` CPUs, all by default)."""

    kind: Literal["local", "ray"] = "local"
    jobs: int | None = None
    address: str | None = None

    @classmethod
    def of(cls, kind: str, jobs: int | None = None, address: str | None = None) -> Backend:
        """The backend of the command's options; :class:`InputError` says what is wrong with
        them (an address without Ray, Ray not installed)."""
        if kind not in BACKENDS:
            raise InputError(f"--backend: {kind!r} is not one of {', '.join(BACKENDS)}")
        if address is not None and kind != "ray":
            raise InputError("--address: a Ray cluster's address goes with --backend ray")
        if kind == "ray" and not _ray_installed():
            raise InputError(RAY_MISSING)
        return cls("ray" if kind == "ray" else "local", jobs, address)

    def describe(self) -> str:
        """In words, for the lines that report wall-clock figures."""
        if self.kind == "ray":
            where = f"the Ray cluster at {self.address}" if self.address else "a local Ray cluster"
            return where + (f" of {self.jobs} CPUs" if self.jobs and not self.address else "")
        jobs = self.jobs or 1
        return "this process" if jobs <= 1 else f"{jobs} processes"


def sweep(
    fn: Callable[[T], R],
    items: Iterable[T],
    backend: Backend | None = None,
    *,
    died: Callable[[T], R] | None = None,
    initializer: Callable[[], None] | None = None,
    on_progress: Callable[[int, int | None], None] | None = None,
) -> Generator[R, None, None]:
    """``fn`` of each item, yielded in the order of the items, run where ``backend`` says.

    ``died(item)`` is the result of an item whose process died running it (without it, that
    is a :class:`~bridge.model.errors.WorkerDied`); an exception ``fn`` raises is raised here, as it was raised
    there.  ``initializer`` runs once in each local process (not on Ray: its workers are
    Ray's).  ``on_progress(done, total)`` is called as each result is yielded (``total``
    None when the items are not counted beforehand).  Closing the iterator early (or an
    exception, an interrupt) stops the sweep: the processes are ended, a Ray cluster the
    sweep started is shut down."""
    backend = backend or Backend()
    total = len(items) if isinstance(items, Sized) else None
    if backend.kind == "ray":
        results = _ray(fn, items, backend, died)
    elif (backend.jobs or 1) <= 1:
        results = map(fn, items)
    else:
        results = _processes(fn, items, backend.jobs or 1, died, initializer)
    for done, result in enumerate(results, start=1):
        if on_progress is not None:
            on_progress(done, total)
        yield result


# ---------------------------------------------------------------------- local processes
_work: Callable[[Any], Any] | None = None  # the function a local process applies to its items


def _start_process(fn: Callable[[Any], Any], initializer: Callable[[], None] | None) -> None:
    global _work
    _work = fn
    if initializer is not None:
        initializer()


def _apply(item: Any) -> Any:
    assert _work is not None, "a sweep's process was started without its function"
    return _work(item)


def _processes(
    fn: Callable[[T], R],
    items: Iterable[T],
    jobs: int,
    died: Callable[[T], R] | None,
    initializer: Callable[[], None] | None,
) -> Iterator[R]:
    from concurrent.futures import Future, ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    def pool(workers: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=workers, initializer=_start_process, initargs=(fn, initializer))

    todo = iter(items)
    waiting: deque[T] = deque()  # items taken back from a broken pool, to be given again
    exhausted = False
    while waiting or not exhausted:
        suspects: list[T] = []
        executor = pool(jobs)
        try:
            window: deque[tuple[T, Future[R]]] = deque()
            while True:
                try:
                    while len(window) < AHEAD * jobs:
                        # an item leaves the queue once given: a pool already broken takes none
                        if waiting:
                            item = waiting[0]
                        else:
                            item = next(todo, _END)
                            if item is _END:
                                exhausted = True
                                break
                            waiting.append(item)
                        window.append((item, executor.submit(_apply, item)))
                        waiting.popleft()
                    if not window:
                        break
                    result = window[0][1].result()
                except BrokenProcessPool:
                    suspects = [t for t, _ in window]
                    break
                window.popleft()
                yield result
        finally:
            executor.shutdown(wait=not suspects, cancel_futures=True)
        for item in suspects:  # one by one, each alone: only the one that kills its process fails
            alone = pool(1)
            try:
                yield alone.submit(_apply, item).result()
            except BrokenProcessPool:
                if died is None:
                    raise WorkerDied("a process of the sweep died (out of memory, or killed)") from None
                yield died(item)
            finally:
                alone.shutdown(wait=True, cancel_futures=True)


_END: Any = object()


# ---------------------------------------------------------------------- Ray
def _ray(fn: Callable[[T], R], items: Iterable[T], backend: Backend, died: Callable[[T], R] | None) -> Iterator[R]:
    with cluster(backend):
        ray = _import_ray()
        remote = ray.remote(max_retries=0)(_call)
        shared = ray.put(fn)  # sent once, not with every item
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        todo = iter(items)
        window: deque[tuple[T, Any]] = deque()
        while True:
            while len(window) < AHEAD * cpus:
                item = next(todo, _END)
                if item is _END:
                    break
                window.append((item, remote.remote(shared, item)))
            if not window:
                return
            item, ref = window.popleft()
            try:
                result: R = ray.get(ref)
            except ray.exceptions.RayTaskError as exc:  # raised here as it was raised there
                cause = exc.cause if isinstance(exc.cause, BaseException) else exc
                raise cause from None
            except (ray.exceptions.WorkerCrashedError, ray.exceptions.OutOfMemoryError):
                if died is None:
                    raise WorkerDied("a Ray worker of the sweep died (out of memory, or killed)") from None
                result = died(item)
            yield result


def _call(fn: Callable[[T], R], item: T) -> R:
    """A Ray task: the sweep's function of one item."""
    return fn(item)


def _ray_installed() -> bool:
    return importlib.util.find_spec("ray") is not None


def _import_ray() -> Any:
    """The ``ray`` module (Any: the optional extra is typed only where it is installed)."""
    try:
        ray = importlib.import_module("ray")
        importlib.import_module("ray.exceptions")
    except ImportError:
        raise InputError(RAY_MISSING) from None
    return ray


@contextmanager
def cluster(backend: Backend) -> Iterator[None]:
    """Connected to the backend's Ray cluster, a local one started (quietly: no dashboard, its
    logs in a temporary folder) when it has no address, for the sweeps inside, which then
    share it; at the end the connection is closed, the local cluster shut down and its folder
    removed.  Nothing for the local backend, or when Ray is already connected.
    :class:`InputError` when Ray is missing or the address reaches no cluster."""
    if backend.kind != "ray":
        yield
        return
    ray = _import_ray()
    if ray.is_initialized():
        yield
        return
    temp = _ray_start(ray, backend)
    try:
        yield
    finally:
        ray.shutdown()
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)


def _ray_start(ray: Any, backend: Backend) -> str | None:
    """Connect to the backend's cluster, or start a local one, quietly; the temporary folder
    of a local cluster's files."""
    import logging

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    quiet: dict[str, Any] = {"logging_level": logging.ERROR, "log_to_driver": False, "include_dashboard": False}
    if backend.address is not None:
        try:
            ray.init(address=backend.address, **quiet)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise InputError(
                f"--address {backend.address}: no Ray cluster could be reached there ({one_line(str(exc), 300)})"
            ) from None
        return None
    # a local cluster of this machine's own, with Ray's default token authentication, and
    # without Ray's warning that it chose it
    logging.getLogger("ray._private.authentication.authentication_token_setup").setLevel(logging.ERROR)
    # the cluster's sockets are in this folder: their paths must stay short
    parent = tempfile.gettempdir()
    temp = tempfile.mkdtemp(prefix="mtgasp-ray-", dir=parent if len(parent) <= 40 else "/tmp")
    try:
        ray.init(
            address="local",
            num_cpus=backend.jobs or os.cpu_count() or 1,
            object_store_memory=OBJECT_STORE_BYTES,
            _temp_dir=temp,
            **quiet,
        )
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
    return temp
