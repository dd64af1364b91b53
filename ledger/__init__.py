"""The ledger: an embedded SQLite record of games, rounds, judgements and photos.

>>> from ledger import Ledger
>>> led = Ledger(":memory:")
>>> jid = led.record_judgement("carrotain", state={"chips": []}, result={"verdict": "success"})
>>> led.judgement(jid).result["verdict"]
'success'
"""

from ledger.records import JudgementRecord, RoundRecord, SessionRecord
from ledger.store import Ledger, LedgerConfig, LedgerError, UnknownRecord, resolve_path

__all__ = ["JudgementRecord", "Ledger", "LedgerConfig", "LedgerError", "RoundRecord", "SessionRecord",
           "UnknownRecord", "resolve_path"]
