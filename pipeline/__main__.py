"""``python -m pipeline`` is the same as the ``sudoku-pipeline`` command."""

from pipeline.cli import main

if __name__ == "__main__":
    main()
