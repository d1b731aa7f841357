"""plot() and show_image(): the text chart and the text image follow their rules, a picture goes
only into a .svg or .png under the program's folder, and bad arguments are located errors."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.seeing import charts


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
        "4 |*",  # the greatest y on the top row, at the first column
        "  |",
        "  |   *",  # 2 is two thirds of the way down from 4 to 1: row round(2/3 * 3) = 2, column 3 of 0..6
        "1 |      *",
        "  +-------",
        "   0     2",
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
        ("plot([1.0], file='no/such/folder/loss.svg')", "is not a file in the program's folder or one below it"),
    ],
)
def test_mistakes_are_located_errors(source: str, message: str, tmp_path: Path) -> None:
    error = error_of(source, tmp_path)
    assert message in error.message and error.span is not None
    assert not list(tmp_path.iterdir()), "nothing may be written"


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
    error = error_of("plot([1.0, 2.0], file='loss.svg')", tmp_path)
    assert "needs matplotlib" in error.message and 'pip install "dglang[plot]"' in (error.help or "")


def test_with_matplotlib_a_chart_and_an_image_are_written(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason='the optional extra `plot` (uv pip install "matplotlib>=3.8")')
    (tmp_path / "pictures").mkdir()
    printed = run("plot([3.0, 2.0, 1.0], file='loss.svg')\nshow_image(eye(8), file='pictures/eye.png')", tmp_path)
    assert printed == ""
    assert (tmp_path / "loss.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")
    assert (tmp_path / "pictures" / "eye.png").read_bytes().startswith(b"\x89PNG")
