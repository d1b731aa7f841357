"""plot() and show_image(): the text chart and the text image follow their rules, a picture goes
only into a .svg or .png under the program's folder, and bad arguments are located errors."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.seeing import chart_pictures, charts
from dglang.interpreter.seeing.chart_axis import round_axis


def run(source: str, base_dir: Path | None = None) -> str:
    out = io.StringIO()
    new_session(out=out, base_dir=base_dir).run(source, "charts.dg")
    return out.getvalue()


def error_of(source: str, base_dir: Path | None = None) -> DGError:
    with pytest.raises(DGError) as caught:
        run(source, base_dir)
    return caught.value


def test_the_text_chart_puts_each_point_at_its_row_and_column() -> None:
    chart = charts.text_chart(np.array([0.0, 1.0, 2.0]), np.array([4.0, 2.0, 1.0]), "loss", width=7, height=4)
    assert chart.splitlines() == [
        "loss",
        "4 |*",  # the ticks: a step of 1 (a quarter of 4 - 1, rounded up to 1, 2 or 5 times a power of 10)
        "3 |",  # from 1 to 4: three steps, one row each (height 4)
        "2 |   *",  # 2 on the row of 2, column 3 of 0..6
        "1 |      *",
        "  +-------",
        "   0     2",
        "each * is at the row nearest its point's y; rows are 1 apart",
    ]


def test_the_y_axis_is_labelled_with_round_numbers_and_says_how_far_apart_its_rows_are() -> None:
    # lesson 16's losses ran from 2.493 down to 0.005025; its chart was labelled with those two
    losses = np.array([2.493, 1.2, 0.6, 0.3, 0.005025])
    lines = charts.text_chart(np.arange(5.0), losses, width=5).splitlines()
    assert [line.split("|")[0].strip() for line in lines[:-3] if line.split("|")[0].strip()] == ["3", "2", "1", "0"]
    assert len(lines) - 3 == 13 and lines[-1].endswith("rows are 0.25 apart")  # 3 ticks of 4 rows, and the 0 row
    assert lines[0] == "3 |" and lines[2] == "  |*"  # 2.493 is nearest 2.5, two rows down from 3
    assert lines[12] == "0 |    *"  # 0.005025 on the row of 0


@pytest.mark.parametrize(
    ("low", "high", "ticks"),
    [
        (0.005025, 2.493, ["0", "1", "2", "3"]),
        (0.2, 1.0, ["0.2", "0.4", "0.6", "0.8", "1.0"]),
        (0.1, 0.3, ["0.10", "0.15", "0.20", "0.25", "0.30"]),  # as many decimals as the step has
        (1000.001, 1000.003, ["1000.001", "1000.002", "1000.003"]),  # no offset (+1e3) to add in one's head
        (-1e308, 1e308, ["-1e+308", "-5e+307", "0", "5e+307", "1e+308"]),
        (0.0, 0.0, ["0", "1"]),
        (-3.0, -3.0, ["-3", "-2"]),
        (1e-7, 3e-7, ["1e-07", "1.5e-07", "2e-07", "2.5e-07", "3e-07"]),
    ],
)
def test_round_axes(low: float, high: float, ticks: list[str]) -> None:
    axis = round_axis(low, high)
    assert [axis.label(k) for k in range(axis.first, axis.last + 1)] == ticks


def test_a_range_too_wide_to_subtract_is_drawn_not_a_python_error() -> None:
    printed = run("plot([1.0, 1e308, -1e308])").splitlines()
    # was: "cannot convert float NaN to integer" (1e308 - (-1e308) overflows to inf, and inf / inf is nan)
    assert [line[:11] for line in printed if "*" in line.partition("|")[2]] == [
        " 1e+308 |  ",
        "      0 |*",
        "-1e+308 |  ",
    ]
    assert printed[-1] == "each * is at the row nearest its point's y; rows are 2.5e+307 apart"


def test_a_loss_that_went_nan_is_marked_on_the_axis_and_said_in_words() -> None:
    printed = run("z = tensor(0.0)\nplot([1.0, 0.5, (z / z).item(), (z / z).item(), 0.25, (1 / z).item()])")
    lines = printed.splitlines()
    axis = next(line for line in lines if "+--" in line)
    assert [i for i, c in enumerate(axis.partition("+")[2]) if c == "!"] == [24, 35, 59]  # x = 2, 3, 5 of 0..5
    assert lines[-2:] == [
        "! y is nan at 2 points, the first at x = 2, the last at x = 3: not drawn",
        "! y is inf at x = 5: not drawn",
    ]
    only = run("z = tensor(0.0)\nplot([(z / z).item()], title='loss')")
    assert only == "loss\nno point to draw\n! y is nan at x = 0: not drawn\n"


def test_an_image_with_a_nan_pixel_shows_it_and_says_so() -> None:
    printed = run("z = tensor(0.0)\nshow_image(tensor([[(z / z).item(), 1.0], [0.0, 1e308]]))")
    assert printed.splitlines() == [
        "1 image 2×2, '.' 0 to '@' 1e+308",
        "!!",
        "  @@",
        "!! 1 pixel is nan or inf: no shade",
    ]


def test_plot_prints_the_chart_of_ys_against_their_index_or_against_xs() -> None:
    assert run("plot([4.0, 2.0, 1.0])") == charts.text_chart(np.arange(3.0), np.array([4.0, 2.0, 1.0]))
    printed = run("plot(tensor([10.0, 20.0]), [1, 3], title='t')")
    assert printed == charts.text_chart(np.array([10.0, 20.0]), np.array([1.0, 3.0]), "t")


def test_show_image_shades_from_the_least_value_to_the_greatest() -> None:
    printed = run("show_image(tensor([[0.0, 1.0], [0.5, 1.0]]))")
    assert printed.splitlines() == [
        "1 image 2×2, '.' 0 to '@' 1",
        "  @@",
        "==@@",
    ]  # 0.5: shade 4.5, rounded to even 4: '='


def test_show_image_of_a_stack_puts_the_images_side_by_side() -> None:
    printed = run("show_image(stack([eye(2), 1 - eye(2)]))")
    assert printed.splitlines() == ["2 images 2×2, '.' 0 to '@' 1", "@@     @@", "  @@ @@"]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("plot()", "plot() takes ys or xs, ys, not 0 arguments"),
        ("plot('abc')", "plot() takes ys as a list of numbers or a 1-d tensor, not str"),
        ("plot([1, 2], [1.0])", "plot() needs as many xs as ys, got 2 and 1"),
        ("plot(ones(2, 2))", "plot() needs ys as a 1-d list or tensor with values, got shape (2, 2)"),
        ("show_image(ones(4))", "show_image() shows a 2-d tensor (an image) or a 3-d one (a row of images)"),
        ("show_image([1, 2])", "show_image() takes a tensor, not list"),
        ("plot([1.0], file='loss.txt')", "a picture writes .svg or .png files, not 'loss.txt'"),
        ("plot([1.0], file='../loss.svg')", "'../loss.svg' is outside the program's folder"),
        ("plot([1.0], file='/tmp/loss.svg')", "'/tmp/loss.svg' is outside the program's folder"),
        (
            "plot([1.0], file='no/such/loss.svg')",
            "cannot write 'no/such/loss.svg': the folder 'no/such' does not exist",
        ),
    ],
)
def test_mistakes_are_located_errors(source: str, message: str, tmp_path: Path) -> None:
    error = error_of(source, tmp_path)
    assert message in error.message and error.span is not None
    assert not list(tmp_path.iterdir()), "nothing may be written"


def test_a_folder_in_the_way_is_a_located_error_that_says_what_is_wrong(tmp_path: Path) -> None:
    (tmp_path / "loss.svg").mkdir()  # was: InternalError: IsADirectoryError
    error = error_of("plot([1.0, 2.0], file='loss.svg')", tmp_path)
    assert (error.kind, error.message) == ("FileError", "cannot write 'loss.svg': it is a folder, not a file")
    assert error.help == 'name another file: file="loss_plot.svg"' and error.span is not None
    (tmp_path / "notes").write_text("")
    error = error_of("plot([1.0, 2.0], file='notes/loss.png')", tmp_path)
    assert error.message == "cannot write 'notes/loss.png': 'notes' is a file, not a folder"
    error = error_of("plot([1.0, 2.0], file='sub/p.png')", tmp_path)  # was: "not a file in the program's folder"
    assert error.message == "cannot write 'sub/p.png': the folder 'sub' does not exist"
    assert error.help == 'make the folder first, or write beside the program: file="p.png"'


def test_a_link_out_of_the_folder_is_no_way_out(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    program = tmp_path / "program"
    program.mkdir()
    (program / "out").symlink_to(outside)
    error = error_of("plot([1.0, 2.0], file='out/loss.svg')", program)
    assert "not a file in the program's folder" in error.message and not list(outside.iterdir())


def test_without_matplotlib_a_file_is_refused_with_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(charts, "have_matplotlib", lambda: False)
    monkeypatch.delenv("UV", raising=False)  # not under `uv run`: pip's command (uv's: test_progress_bar.py)
    error = error_of("plot([1.0, 2.0], file='loss.svg')", tmp_path)
    assert "needs matplotlib" in error.message and 'pip install "dglang[plot]"' in (error.help or "")


def test_with_matplotlib_a_chart_and_an_image_are_written(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason='the optional extra `plot` (uv pip install "matplotlib>=3.8")')
    (tmp_path / "pictures").mkdir()
    printed = run("plot([3.0, 2.0, 1.0], file='loss.svg')\nshow_image(eye(8), file='pictures/eye.png')", tmp_path)
    assert printed == ""
    assert (tmp_path / "loss.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")
    assert (tmp_path / "pictures" / "eye.png").read_bytes().startswith(b"\x89PNG")


def test_with_matplotlib_a_nan_is_a_red_mark_at_its_x_and_the_same_words_as_the_text_chart() -> None:
    pytest.importorskip("matplotlib", reason='the optional extra `plot` (uv pip install "matplotlib>=3.8")')
    xs, ys = np.arange(6.0), np.array([1.0, 0.5, np.nan, np.nan, 0.25, np.inf])
    axes = chart_pictures.chart_figure(xs, ys, "loss").axes[0]
    _, alone, marks = axes.get_lines()
    step = round_axis(0.0, 5.0).step  # drawn in steps of the axis, labelled with the values
    assert list(marks.get_xdata() * step) == [2.0, 3.0, 5.0]
    assert marks.get_marker() == "$!$" and marks.get_color() == "red"
    assert list(alone.get_xdata() * step) == [4.0]  # 0.25 has no finite neighbour: a dot, not an invisible line
    assert axes.get_xlabel() == "\n".join(charts.text_chart(xs, ys).splitlines()[-2:])
    # the same round ticks as the text chart (units of the step: 0.25 is 1 step of 0.25)
    assert [t.get_text() for t in axes.get_yticklabels()] == ["0.2", "0.4", "0.6", "0.8", "1.0"]


def test_with_matplotlib_huge_values_and_nan_pixels_are_drawn(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason='the optional extra `plot` (uv pip install "matplotlib>=3.8")')
    axes = chart_pictures.chart_figure(np.arange(3.0), np.array([1.0, 1e308, -1e308]), None).axes[0]
    assert [t.get_text() for t in axes.get_yticklabels()] == ["-1e+308", "-5e+307", "0", "5e+307", "1e+308"]
    printed = run("plot([1.0, 1e308, -1e308], file='huge.png')\nz = tensor(0.0)\n"
                  "show_image(tensor([[(z / z).item(), 1e308], [0.0, 1.0]]), file='image.svg')", tmp_path)  # fmt: skip
    assert printed == "" and (tmp_path / "huge.png").read_bytes().startswith(b"\x89PNG")
    image = chart_pictures.image_figure(np.array([[[np.nan, 1e308], [0.0, 1.0]]]), None)
    assert image.get_supxlabel() == "red: 1 pixel is nan or inf"
    assert image.axes[0].get_images()[0].get_array()[0, 1] == 1.0  # 1e308 is the darkest, not an overflowed blank
