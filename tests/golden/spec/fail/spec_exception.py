# Spec code that raises: reported at the spec line, no traceback.
from ._base import tiny

KINDS = {"idx": 0, "up": 1}
TARGET = tiny(description=f"kind {KINDS['down']}")
