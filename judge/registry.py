"""Which games exist: the plugins in ``judge/games/``, plus any registered from outside.

Sources, in this order (a later plugin of the same name replaces an earlier one; an entry point adds a game but
does not replace a built-in one when :func:`game` looks it up alone):

1. every module ``judge/games/<name>.py`` that defines ``PLUGIN`` (the built-in games);
2. the ``table_judge.games`` entry point group of installed distributions (each entry a
   ``GamePlugin`` or a module defining ``PLUGIN``);
3. the environment variable ``TABLE_JUDGE_PLUGINS``: comma-separated ``module`` or
   ``module:attribute`` references (the module must be importable, e.g. from the working
   directory): how the tests judge a toy game through ``cli.py`` and the page;
4. :func:`register` called at run time.

>>> from judge.registry import game, names
>>> names()[:3]
('carrotain', 'kaleido', 'cmyk')
>>> game("kaleido").photos
'1'
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil

from core.errors import BadInput
from judge.plugin import GamePlugin

ENV_VAR = "TABLE_JUDGE_PLUGINS"
ENTRY_POINT_GROUP = "table_judge.games"

_registered: dict[str, GamePlugin] = {}
_cache: dict[str, GamePlugin] | None = None


def _as_plugin(obj: object, where: str) -> GamePlugin:
    if not isinstance(obj, GamePlugin):
        obj = getattr(obj, "PLUGIN", None)
    if not isinstance(obj, GamePlugin):
        raise BadInput(f"{where}: not a GamePlugin (nor a module defining PLUGIN)")
    return obj


def _load_reference(ref: str) -> GamePlugin:
    module_name, _, attr = ref.strip().partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BadInput(f"{ENV_VAR}: cannot import {module_name!r} ({exc})") from None
    return _as_plugin(getattr(module, attr) if attr else module, f"{ENV_VAR} entry {ref!r}")


def _builtin() -> list[GamePlugin]:
    import judge.games as pkg

    found = []
    for info in pkgutil.iter_modules(pkg.__path__):
        module = importlib.import_module(f"{pkg.__name__}.{info.name}")
        if isinstance(getattr(module, "PLUGIN", None), GamePlugin):
            found.append(module.PLUGIN)
    return found


def _builtin_named(name: str) -> GamePlugin | None:
    """The built-in plugin ``judge/games/<name>.py`` alone (without importing the other games), or None."""
    import judge.games as pkg

    if not name.isidentifier() or importlib.util.find_spec(f"{pkg.__name__}.{name}") is None:
        return None
    plugin = getattr(importlib.import_module(f"{pkg.__name__}.{name}"), "PLUGIN", None)
    return plugin if isinstance(plugin, GamePlugin) and plugin.name == name else None


def _discover() -> dict[str, GamePlugin]:
    from importlib.metadata import entry_points  # only here: importing it costs a CLI call judging one game ~50 ms

    plugins = _builtin()
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        plugins.append(_as_plugin(ep.load(), f"entry point {ep.name!r}"))
    for ref in filter(None, (r.strip() for r in os.environ.get(ENV_VAR, "").split(","))):
        plugins.append(_load_reference(ref))
    plugins.extend(_registered.values())
    out: dict[str, GamePlugin] = {}
    for p in plugins:
        out[p.name] = p
    return dict(sorted(out.items(), key=lambda kv: (kv[1].order, kv[0])))


def plugins() -> dict[str, GamePlugin]:
    """Every game by name, in menu order."""
    global _cache
    if _cache is None:
        _cache = _discover()
    return _cache


def names() -> tuple[str, ...]:
    """The games' names, in menu order."""
    return tuple(plugins())


def game(name: str) -> GamePlugin:
    """The plugin of a game.

    Raises
    ------
    BadInput
        Unknown game (the message lists the known ones).
    """
    if _cache is None and name in _registered:
        return _registered[name]
    if _cache is None and not os.environ.get(ENV_VAR, "").strip():
        quick = _builtin_named(name)  # one game's modules only: the CLI starts faster
        if quick is not None:
            return quick
    found = plugins().get(name)
    if found is None:
        raise BadInput(f"unknown game {name!r}: choose one of {', '.join(names())}")
    return found


def register(plugin: GamePlugin) -> None:
    """Add (or replace) a game at run time, e.g. from a test or a notebook."""
    global _cache
    _registered[plugin.name] = plugin
    _cache = None


def reset() -> None:
    """Forget run-time registrations and re-read the environment on next use (tests)."""
    global _cache
    _registered.clear()
    _cache = None
