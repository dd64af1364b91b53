"""The bottom layer every package may import: the two user-facing failures and per-stage timing.

Nothing here imports another package of the project.
"""
