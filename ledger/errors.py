"""The ledger's failures (below ``ledger.store`` and ``ledger.export``, which both raise them)."""

from __future__ import annotations


class LedgerError(Exception):
    """The ledger cannot be opened or written; the message is one line for people."""


class UnknownRecord(LedgerError, KeyError):
    """No judgement / session with that id."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""
