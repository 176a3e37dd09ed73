"""The HTML templates' compiled code, kept on disk between runs.

Compiling the page's Jinja templates is about a tenth of writing the page of a big program,
and the same at every run. Jinja's file cache keeps each template's compiled code under a
name made from the template's name and checks it against a digest of the template's text: a
changed template is compiled again and its entry replaced. The folder's name also carries
satreport's and Jinja's versions and the options of the environment, so that code compiled
by another version or with other options is never read.

The folder is ``$SATREPORT_CACHE_DIR`` when set (empty: no cache), else ``satreport`` in the
user's cache folder (``$XDG_CACHE_HOME``, else ``~/.cache``). A cache that cannot be read or
written costs only the compilation: the page is the same.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import jinja2
from jinja2.bccache import Bucket

from sat import __version__

CACHE_VARIABLE = "SATREPORT_CACHE_DIR"


def cache_root() -> Path | None:
    """The folder of satreport's caches, or None when the user turned caching off."""
    chosen = os.environ.get(CACHE_VARIABLE)
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "satreport"


class _TolerantCache(jinja2.FileSystemBytecodeCache):
    """Jinja's file cache, for which a missing, unwritable or damaged entry is a miss."""

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except (OSError, EOFError, ValueError, TypeError):  # a damaged entry: compile again
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            os.makedirs(self.directory, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:  # a read-only or full disk: this run compiles, the next one too
            pass


def bytecode_cache(options: dict[str, Any]) -> jinja2.BytecodeCache | None:
    """A cache of compiled templates for an environment made with ``options``."""
    root = cache_root()
    if root is None:
        return None
    stamp = repr((__version__, jinja2.__version__, sorted(options.items(), key=str)))
    digest = hashlib.sha256(stamp.encode()).hexdigest()[:16]
    return _TolerantCache(str(root / f"templates-{digest}"))


def cached_environment(templates: Path, **options: Any) -> jinja2.Environment:
    """A Jinja environment over the folder ``templates`` whose compiled templates this cache
    keeps (the options name the cache: the same options, the same compiled code)."""
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates)),
                              bytecode_cache=bytecode_cache(options), **options)
