# Planted: Python imports sitecustomize at start-up from anywhere on its path.
open("PLANTED_CODE_RAN", "w").write("sitecustomize.py")
