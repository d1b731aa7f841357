# Planted: imported only by a grader that puts the submission's folder on Python's path.
open("PLANTED_CODE_RAN", "w").write("numpy.py")
raise SystemExit(0)
