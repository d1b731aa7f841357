# Planted: Python imports sitecustomize at start-up from anywhere on its path.
from pathlib import Path

Path("PLANTED_CODE_RAN").write_text("sitecustomize.py")
