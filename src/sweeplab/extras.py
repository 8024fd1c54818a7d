"""How to install one of sweeplab's extras (tui, rl, plot, dask, replays), said right for this install.

From a checkout (an editable install) pip must be pointed at the checkout: `pip install
'sweeplab[tui]'` would ask the package index for another copy. From a wheel it is the other way
round. So the hint names the checkout's folder when sweeplab runs from one.
"""

from __future__ import annotations

import json
import shlex
from functools import cache
from importlib import metadata
from urllib.parse import unquote, urlparse


@cache
def checkout() -> str | None:
    """The folder of the checkout sweeplab is installed from in editable mode (PEP 610's
    direct_url.json), or None for any other install."""
    try:
        text = metadata.distribution("sweeplab").read_text("direct_url.json")
        info = json.loads(text) if text else {}
    except (metadata.PackageNotFoundError, ValueError):
        return None
    url = urlparse(info.get("url", ""))
    if not info.get("dir_info", {}).get("editable") or url.scheme != "file":
        return None
    return unquote(url.path)


def install_hint(extra: str) -> str:
    """The pip command that installs `extra` into this install."""
    where = checkout()
    return f"pip install -e {shlex.quote(f'{where}[{extra}]')}" if where else f"pip install 'sweeplab[{extra}]'"
