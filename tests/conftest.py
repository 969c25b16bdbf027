import sys
from pathlib import Path

# Make tests/llvm_tools.py importable as `llvm_tools` from any test module.
sys.path.insert(0, str(Path(__file__).resolve().parent))
