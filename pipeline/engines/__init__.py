"""Engines: where the units of work run. One interface (``Engine``, in ``contract``), two
implementations:

- ``local`` (``pipeline.engines.local``): a process pool on this machine;
- ``dask`` (``pipeline.engines.dask``): a Dask cluster, imported only when chosen.

``build_engine`` chooses one, once, from the settings, for a solved run and a generated one
alike. To add an engine: subclass ``Engine`` in a module of this package, keep the contract of
``pipeline.engines.contract`` (its tests in ``tests/pipeline/test_engine_contract.py`` run against every
engine), add its name to ``pipeline.settings.ENGINES`` and a branch to ``build_engine``.
"""

from __future__ import annotations

from pipeline.engines.contract import Engine, UnitFunction
from pipeline.settings import Settings
from pipeline.work import solve_part


def build_engine(settings: Settings, function: UnitFunction = solve_part) -> Engine:
    """The engine ``settings.engine`` names, sized by ``settings.workers``, running
    ``function`` (``pipeline.work.solve_part``, or a generated run's ``generate_part``):
    chosen here, once."""
    if settings.engine == "dask":
        from pipeline.engines.dask import DaskEngine

        return DaskEngine(workers=settings.workers, scheduler=settings.scheduler,
                          function=function)
    from pipeline.engines.local import LocalEngine

    return LocalEngine(workers=settings.workers, function=function)
