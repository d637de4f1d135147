"""The one exception the pipeline raises for expected failures, and how others are quoted in it."""


class PipelineError(Exception):
    """An expected failure (bad input file, bad setting, existing output, ...).

    The message is one line that names the problem and suggests a fix; the CLI prints it
    as ``error: <message>`` and exits with code 2, without a traceback.
    """


class RunIncomplete(PipelineError):
    """A run that stopped before writing every row, with everything it wrote kept, so that
    the same command continues it: a time limit reached, or batches that kept failing.

    ``summary`` is the summary (``pipeline.summary.Summary``) written for the rows that are
    there, if one was written.
    The CLI prints the message as ``error: <message>`` and exits with code 3 (its ``Ending``
    decides the codes, in one place).
    """

    def __init__(self, message: str, summary=None):
        super().__init__(message)
        self.summary = summary


def one_line(err: BaseException) -> str:
    """An exception's message on one line (its type's name when it has none)."""
    return " ".join(str(err).split()) or type(err).__name__
