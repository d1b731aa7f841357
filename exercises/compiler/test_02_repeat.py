"""Exercise 2 (compiler): the statement `repeat N:`, which runs its block N times.

- N is evaluated once, before the first round, and must be an int (a TypeError otherwise,
  located at N); a negative N is a ValueError; `repeat 0:` runs nothing.
- It is a loop like `while` and `for`: `break` and `continue` work inside it (and nowhere
  else), `return` leaves the function, each round counts as a step for `dg --max-steps`,
  and a name assigned in its block inside a function is local to that function.
- The AST node is called `Repeat`, so `dg parse` shows it.
- The REPL waits for the block, as after `while ...:`.
See docs/for-compiler-courses.md, exercise 2.
"""

from __future__ import annotations


def test_repeat_runs_the_block_n_times(dg) -> None:
    assert dg('repeat 3:\n    print("hi")\n') == "hi\nhi\nhi\n"


def test_the_count_is_evaluated_once(dg) -> None:
    assert dg("n = 2\nrepeat n:\n    n += 1\n    print(n)\n") == "3\n4\n"


def test_repeat_zero_times(dg) -> None:
    assert dg('repeat 0:\n    print("never")\nprint("done")\n') == "done\n"


def test_break_continue_and_return(dg) -> None:
    program = """
k = 0
repeat 10:
    k += 1
    if k == 2:
        continue
    if k == 4:
        break
    print(k)
def first_round():
    repeat 5:
        return "left at once"
print(first_round())
"""
    assert dg(program) == "1\n3\nleft at once\n"


def test_a_name_assigned_in_the_block_is_local_to_the_function(dg) -> None:
    program = "total = 100\ndef f():\n    repeat 3:\n        total = 1\n    return total\nprint(f(), total)\n"
    assert dg(program) == "1 100\n"


def test_nested_repeats(dg) -> None:
    assert dg("n = 0\nrepeat 3:\n    repeat 4:\n        n += 1\nprint(n)\n") == "12\n"


def test_gradients_flow_through_every_round(dg) -> None:
    program = "x = tensor(1.0, requires_grad=True)\ny = x\nrepeat 5:\n    y = y * 2\ngrad y\nprint(x.grad)\n"
    assert dg(program) == "tensor(32.)\n"


def test_a_float_count_is_a_type_error_at_the_count(dg_error) -> None:
    error, _ = dg_error('repeat 2.5:\n    print("no")\n')
    assert error.kind == "TypeError"
    assert "repeat" in error.message
    assert (error.span.line, error.span.column) == (1, 8)


def test_a_negative_count_is_a_value_error(dg_error) -> None:
    error, _ = dg_error("repeat -1:\n    pass\n")
    assert error.kind == "ValueError"


def test_each_round_is_a_step() -> None:
    import io

    from dglang.interpreter.diagnostics.errors import DGError
    from dglang.interpreter.host.limits import Limits
    from dglang.interpreter.host.session import Session

    session = Session(out=io.StringIO(), limits=Limits(max_steps=1000))
    try:
        session.run("repeat 100_000:\n    pass\n", "exercise.dg")
    except DGError as error:
        assert error.kind == "LimitError" and error.span is not None and error.span.line == 1
    else:
        raise AssertionError("100,000 rounds ran within a limit of 1,000 steps")


def test_dg_parse_shows_a_repeat_node() -> None:
    from dglang.interpreter.diagnostics.source import Source
    from dglang.interpreter.seeing.syntax_view import dump_ast
    from dglang.interpreter.syntax.parser import parse

    tree = dump_ast(parse(Source("t.dg", "repeat 2:\n    pass\n")))
    assert "Repeat  1:1" in tree


def test_the_repl_waits_for_the_block() -> None:
    from dglang.interpreter.frontends.repl import is_complete

    assert not is_complete("repeat 3:")
    assert not is_complete("repeat 3:\n    print(1)")
    assert is_complete("repeat 3:\n    print(1)\n")
