"""Old import paths only: the batch envs, now ``solitaire_env/<game>/batch.py``.

Moved in issue 20; each module here re-exports the new one.
"""
