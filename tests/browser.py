"""A report as a browser draws it: headless chromium's screenshot of a page, as the colours it
holds (tests/pipeline/test_report.py, and the SE section's in test_se_measure.py)."""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install chromium); the "
    "report's rendering is not checked in a browser")


def screenshot_colours(page: Path, scratch: Path) -> Counter:
    """How many pixels of each (r, g, b) colour chromium's screenshot of ``page`` holds (offline:
    no network, a profile of its own in ``scratch``)."""
    from PIL import Image

    screenshot = scratch / "report.png"
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", f"--user-data-dir={scratch / 'profile'}", "--hide-scrollbars",
         f"--screenshot={screenshot}", "--window-size=1280,2400", page.as_uri()],
        capture_output=True, text=True, timeout=120)
    assert screenshot.exists(), done.stderr[-2000:]
    return Counter(dict((rgb, n) for n, rgb in Image.open(screenshot).convert("RGB").getcolors(
        1 << 24)))
