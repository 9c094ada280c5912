"""One BLAS thread wherever korean-eval computes statistics, so that every number has the same bits on any machine.

OpenBLAS splits a long dot product (e.g. inside ``scipy.stats.pearsonr`` over 48,000 pairs) among its threads and
adds the partial sums in another order for another thread count: the last bit of a correlation then depends on
the machine's cores (measured: Pearson r over 48,000 points 0.7056910345956555 with one thread,
…552 with two). The statistics here are vectorised or compiled kernels, not large matrix products, so one thread
costs no measurable time. Uses ``threadpoolctl`` (the BLAS libraries loaded in the process at the time).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS limited to one thread inside the block, as it was before afterwards."""
    import numpy  # noqa: F401 - its BLAS loaded before the limit is set
    import scipy.linalg  # noqa: F401 - scipy's own BLAS (scipy-openblas) too
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


def pin_blas_threads() -> None:
    """BLAS limited to one thread for the rest of this process (worker processes, the dashboard's server)."""
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
