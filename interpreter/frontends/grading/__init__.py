"""Testing and grading DG programs: `dg test FILE.dg` and `dg grade SUBMISSIONS --tests TESTS.dg`.

collecting.py      which functions are tests, and their points (read from the text)
snapshot.py        a copy of a session's variables, so each test starts from the same state
running.py         running a program's top level, then each test on its own, in one session
testing.py         `dg test`: the report a student reads, as pytest writes it
submissions.py     finding submissions and copying one, safely, into a folder of its own
program_choice.py  which .dg file of a submission is its program (a tests file beside it is not)
isolation.py       what the operating system limits for one submission's process
worker.py          the process that runs one submission and its tests
tests_check.py     a teacher's tests file checked before anyone is graded (what no submission can fix)
grader.py          `dg grade`: a pool of workers, each under a wall clock, and the class's results
gradescope.py      results.json in Gradescope's format, and the autograder folder for Gradescope
"""
