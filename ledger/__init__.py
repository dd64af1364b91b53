"""The ledger: a record of games, rounds, judgements and photos, in an embedded SQLite file (the default)
or a shared PostgreSQL database (``postgresql://`` URL: one ledger for every table of a hall).

>>> from ledger import Ledger
>>> led = Ledger(":memory:")
>>> jid = led.record_judgement("carrotain", state={"chips": []}, result={"verdict": "success"}, table="Table 3")
>>> led.judgement(jid).result["verdict"], led.judgement(jid).table
('success', 'Table 3')
"""

from ledger.backend import LedgerConfig, is_postgres_url, resolve_path
from ledger.errors import LedgerError, UnknownRecord
from ledger.records import JudgementRecord, RoundRecord, SessionRecord
from ledger.store import Ledger, clean_table_name

__all__ = ["JudgementRecord", "Ledger", "LedgerConfig", "LedgerError", "RoundRecord", "SessionRecord",
           "UnknownRecord", "clean_table_name", "is_postgres_url", "resolve_path"]
