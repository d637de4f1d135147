"""A local S3 server (moto, from the dev extra) for the tests and benchmarks of s3:// URLs.

    with local_s3() as server:     # server.endpoint: http://127.0.0.1:PORT
        ...                        # s3fs, polars, the command: all reach it through AWS_*

The AWS variables of this process point every S3 client at the server, and the processes it
starts inherit them (the command, its workers, Dask workers), as ``AWS_ENDPOINT_URL`` points a
user's at MinIO. Each server starts empty; create a bucket before use.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from typing import NamedTuple


class Server(NamedTuple):
    endpoint: str
    process: subprocess.Popen  # kill it to see what an unreachable store does


@contextlib.contextmanager
def local_s3(timeout: float = 30) -> Iterator[Server]:
    """Run a moto S3 server on a free port and set the AWS variables; yield it.
    Everything is restored, and the server stopped, on exit."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    environment = {
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_EC2_METADATA_DISABLED": "true",  # no wait for a cloud machine's credentials
    }
    saved = {key: os.environ.get(key) for key in environment}
    try:
        _wait_until_up(server, endpoint, timeout)
        os.environ.update(environment)
        yield Server(endpoint, server)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        server.terminate()
        server.wait(timeout=10)


def _wait_until_up(server: subprocess.Popen, endpoint: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(endpoint, timeout=1).close()
            return
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the moto S3 server did not start at {endpoint}") from None
            time.sleep(0.1)
