"""The verifier package lives in local/verifier; its tests import it from there."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "local"))
