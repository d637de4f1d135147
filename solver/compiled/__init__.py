"""The compiled solver (numba): one module per concept for every box size (``search``,
``grade``, ``measures``, ``canonical``, ``generate``) on one kernel library (``kernels``), with
the measured 9 x 9 specialisations beside their general forms (``*_9x9``). This file imports
nothing: importing a module compiles nothing until it runs."""
