"""One way to race calls against each other in tests.

``race(*calls)`` starts every call in its own thread, releases them together, waits for
all of them and returns, in call order, what each returned or the expected exception it
raised (a ``DomainError`` unless the test names others). A thread that dies of anything
else, or is still running at the deadline, fails the test: a race in which every thread
crashed must not pass because nothing it asserted on happened.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connection

from core.errors import DomainError


def race(
    *calls: Callable[[], object],
    expected: tuple[type[BaseException], ...] = (DomainError,),
    timeout: float = 60,
) -> list:
    barrier = threading.Barrier(len(calls), timeout=timeout)
    outcomes: list = [None] * len(calls)
    crashes: list[tuple[int, BaseException]] = []

    def run(index: int, call: Callable[[], object]) -> None:
        try:
            barrier.wait()
            outcomes[index] = call()
        except expected as error:
            outcomes[index] = error
        except BaseException as crash:  # reported below, in the test's own thread
            crashes.append((index, crash))
        finally:
            # Each thread has its own database connection; leave none open behind.
            connection.close()

    threads = [
        threading.Thread(target=run, args=(i, call), name=f"race-{i}", daemon=True)
        for i, call in enumerate(calls)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    stuck = [thread.name for thread in threads if thread.is_alive()]
    if stuck:
        raise AssertionError(f"race: {', '.join(stuck)} still running after {timeout} s")
    if crashes:
        crashes.sort(key=lambda crash: crash[0])
        raise ExceptionGroup(
            f"race: {len(crashes)} of {len(calls)} threads crashed "
            f"(calls {[index for index, _ in crashes]})",
            [
                crash if isinstance(crash, Exception) else RuntimeError(crash)
                for _, crash in crashes
            ],
        )
    return outcomes
