"""The reference solver: Bird's equations as written (``bird``), the ladder of rules on them
(``ladder``) and the literal canonical form (``canonical``). Slow and obviously right; the
compiled solver (``solver.compiled``) is tested against it. This file imports nothing, so
that any module here loads alone."""
