"""The verifier (local/verifier) is installed editable in the suite's venv (tests/requirements.txt)."""
