"""The built-in games' plugins: one module per game, each defining ``PLUGIN = GamePlugin(...)``.

:mod:`judge.registry` finds every module here; nothing else lists the games. The names below are
kept for code written against the first registry (``judge.games.get_game``).
"""

from __future__ import annotations

from judge.plugin import Frame, GamePlugin

GameSpec = GamePlugin


def get_game(name: str) -> GamePlugin:
    """The plugin of a game (``judge.registry.game``); ``BadInput`` for an unknown name."""
    from judge.registry import game

    return game(name)


def __getattr__(name: str):
    if name == "GAME_NAMES":  # computed: registered games count too
        from judge.registry import names

        return names()
    raise AttributeError(name)


__all__ = ["Frame", "GamePlugin", "GameSpec", "get_game"]
