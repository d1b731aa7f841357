"""The data sets that ship with DG (data/): what digits() and shakespeare() give a program, that
the split is fixed and clean, and that nothing in data/ is a format that can run code when read."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from dglang.interpreter.frontends.sessions import new_session

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"


def run(source: str) -> str:
    out = io.StringIO()
    new_session(out=out).run(source, "data.dg")
    return out.getvalue()


def test_digits_gives_a_fixed_split_of_the_1797_images() -> None:
    printed = run(
        "train_x, train_y, test_x, test_y = digits()\n"
        "print(train_x.shape, train_y.shape, test_x.shape, test_y.shape, train_y.dtype)\n"
        "print(train_x.min().item(), train_x.max().item(), train_y.min().item(), train_y.max().item())\n"
        "print(train_y[:8], test_y[:8])\n"
    )
    assert printed.splitlines() == [
        "(1347, 64) (1347,) (450, 64) (450,) int",
        "0.0 16.0 0 9",
        "tensor([6, 6, 6, 2, 5, 6, 6, 2]) tensor([8, 6, 2, 5, 9, 8, 5, 3])",
    ]


def test_no_digit_image_is_both_trained_and_tested_on_and_every_class_is_in_both() -> None:
    train = np.loadtxt(DATA / "digits_train.csv", delimiter=",", skiprows=1)
    test = np.loadtxt(DATA / "digits_test.csv", delimiter=",", skiprows=1)
    assert len(train) + len(test) == 1797
    assert not {tuple(r[:64]) for r in train} & {tuple(r[:64]) for r in test}
    # the class counts of the UCI test set (1,797 images), which scikit-learn's load_digits is
    both = np.concatenate([train[:, 64], test[:, 64]]).astype(int)
    assert np.bincount(both).tolist() == [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]
    assert set(test[:, 64].astype(int)) == set(range(10))


def test_a_program_changing_its_digits_does_not_change_the_next_call() -> None:
    printed = run(
        "x, y, tx, ty = digits()\nx[0, 0] = 99.0\ny[0] = 7\n"
        "x2, y2, _, _ = digits()\nprint(x2[0, 0].item(), y2[0].item())\n"
    )
    assert printed == "0.0 6\n"


def test_shakespeare_is_the_tiny_shakespeare_text() -> None:
    printed = run("t = shakespeare()\nprint(len(t))\nprint(t[:14])\n")
    assert printed == "1115394\nFirst Citizen:\n"
    text = (DATA / "tiny_shakespeare.txt").read_text(encoding="utf-8")
    assert len(text) >= 100_000 and text.isascii() and len(set(text)) == 65


def test_the_data_folder_holds_only_text_and_says_where_each_file_comes_from() -> None:
    # No pickle, no .npy/.npz (np.load of those may unpickle), nothing but text that NumPy's text
    # reader or read_text() reads; and the README records the source and licence of each file.
    files = sorted(p.name for p in DATA.iterdir())
    assert files == ["README.md", "digits_test.csv", "digits_train.csv", "tiny_shakespeare.txt"]
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    for needed in ("CC BY 4.0", "Alpaydin", "public domain", "MIT", "default_rng(0)"):
        assert needed in readme, f"data/README.md does not say {needed!r}"
    for name in files[1:]:
        (DATA / name).read_bytes().decode("ascii")  # the data: plain ASCII text, every byte
