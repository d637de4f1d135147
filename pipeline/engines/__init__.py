"""Engines: where the units of work run. One interface (``Engine``, in ``contract``), two
implementations:

- ``local`` (``pipeline.engines.local``): a process pool on this machine;
- ``dask`` (``pipeline.engines.dask``): a Dask cluster, imported only when chosen.

``pipeline.run.build_engine`` chooses one, once, from the settings. To add an engine: subclass
``Engine`` in a module of this package, keep the contract of ``pipeline.engines.contract`` (its
tests in ``tests/test_engine_contract.py`` run against every engine), add its name to
``pipeline.settings.ENGINES`` and a branch to ``build_engine``.
"""
