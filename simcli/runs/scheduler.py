"""Reaching a Dask scheduler before any work: the one-line errors of a missing dask extra or an unreachable
scheduler (the backends themselves are :mod:`simcli.runs.backends`)."""

from __future__ import annotations

from simcli.runs.errors import BackendError

#: The one-line hint for ``--backend dask`` without the extra installed.
DASK_HINT = "--backend dask needs the dask extra: pip install -e '.[dask]'"


def probe_scheduler(address: str, timeout: float) -> None:
    """Connect to the Dask scheduler at ``address`` once, within ``timeout`` seconds, so that an unreachable or wrong
    address is a :class:`BackendError` of one line before anything is written; the run's own connection then waits
    as long."""
    try:
        import asyncio

        import dask
        from distributed.comm import connect
    except ImportError:
        raise BackendError(DASK_HINT) from None
    dask.config.set({"distributed.comm.timeouts.connect": f"{timeout}s"})

    async def probe() -> None:
        # A bare connection with distributed's handshake: no Client object, whose clean-up would print a
        # traceback of its own when its construction fails half-way.
        comm = await connect(address, timeout=timeout)
        await comm.close()

    try:
        asyncio.run(probe())
    except Exception as exc:  # connection refused, timeout, bad address: all mean "not usable"
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise BackendError(
            f"cannot reach the Dask scheduler '{address}' within {timeout:g} s ({detail}); start one with "
            "`dask scheduler`, check the address, or raise --scheduler-timeout"
        ) from None
