"""The system's Chromium, for the tests that open DG's pages in a real browser (Playwright drives
it; its own browser download is not used). `.ci/run` installs Debian's chromium."""

from __future__ import annotations

import shutil

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Headless, and nothing that reaches the network on its own: a page that fetches anything is a bug.
BROWSER_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
