"""The one exception the pipeline raises for expected failures."""


class PipelineError(Exception):
    """An expected failure (bad input file, bad setting, existing output, ...).

    The message is one line that names the problem and suggests a fix; the CLI prints it
    as ``error: <message>`` and exits with code 2, without a traceback.
    """
