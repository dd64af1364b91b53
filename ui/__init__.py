"""Streamlit page pieces used by ``app.py`` (widgets and presentation only; logic lives in the packages)."""
