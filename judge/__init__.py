"""Glue between the packages: one entry per game, used by ``cli.py`` and ``app.py``."""
