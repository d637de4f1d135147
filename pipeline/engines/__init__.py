"""Engines: where the units of work run. One interface (``Engine``), two implementations,
chosen here and nowhere else.

- ``local`` (``pipeline.engines.local``): a process pool on this machine;
- ``dask`` (``pipeline.engines.dask``): a Dask cluster, imported only when chosen.

To add an engine: subclass ``Engine`` in a module of this package, keep the contract of
``pipeline.engines.contract`` (its tests in ``tests/test_engine_contract.py`` run against every
engine), and add its name here and to ``pipeline.settings.ENGINES``.
"""

from __future__ import annotations

from pipeline.engines.contract import ATTEMPTS, Engine, Failure, Outcome, PartMissing
from pipeline.settings import Settings

__all__ = ["ATTEMPTS", "Engine", "Failure", "Outcome", "PartMissing", "build_engine"]


def build_engine(settings: Settings) -> Engine:
    """The engine ``settings.engine`` names, sized by ``settings.workers``."""
    if settings.engine == "dask":
        from pipeline.engines.dask import DaskEngine

        return DaskEngine(workers=settings.workers, scheduler=settings.scheduler)
    from pipeline.engines.local import LocalEngine

    return LocalEngine(workers=settings.workers)
