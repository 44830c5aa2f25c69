"""The figures quoted in README.md and docs/ come out of the commands beside them (scripts/check_figures.py).

The cheap checks run here (a few seconds of games each); ``python scripts/check_figures.py --slow`` adds the
search players' matches and every published study. The checker itself is tested on a copy of a page with a
changed figure: it must name the file, the line, the quoted value and the new one.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import check_figures as cf  # noqa: E402  (scripts/ is not a package)

ROOT = cf.ROOT
CHECKS = cf.load_checks()
CHEAP = [c for c in CHECKS if not c.slow]


def test_every_declared_figure_is_found_once_beside_its_command() -> None:
    """A declaration that no longer matches its page (the quote edited away, the command moved) is caught
    without playing anything, for the slow checks too."""
    for check in CHECKS:
        for figure in check.figures:
            cf.locate(figure, check.command, ROOT)


def test_every_study_has_a_regenerate_command() -> None:
    studies = [c for c in CHECKS if c.csv is not None]
    assert {Path(c.csv).stem for c in studies if c.csv} == {p.stem for p in (ROOT / cf.STUDIES).glob("*.csv")}
    assert all(c.slow and c.command.startswith("simcli ") for c in studies)


@pytest.mark.parametrize("check", CHEAP, ids=[c.id for c in CHEAP])
def test_quoted_figures_hold(check: cf.Check) -> None:
    problems = cf.run_check(check)
    assert not problems, "\n".join(map(str, problems))


def copy_page(tmp_path: Path, name: str) -> Path:
    """``name`` (relative to the root) copied to the same place under ``tmp_path`` (a root for the checker)."""
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path / name


def test_a_changed_figure_fails_naming_file_line_and_both_values(tmp_path: Path) -> None:
    check = next(c for c in CHECKS if c.id == "readme-match-sprt")
    page = copy_page(tmp_path, "README.md")
    text = page.read_text(encoding="utf-8")
    quote = "0.655 [0.589, 0.721]"
    assert text.count(quote) == 1
    page.write_text(text.replace(quote, "0.715 [0.664, 0.766]"), encoding="utf-8")
    line = text[: text.index(quote)].count("\n") + 1
    # The command's output as the checker sees it (so that this test plays no games of its own).
    output = "200 games in 100 pairs: ponytail won 131, tied 0, lost 69\nscore of ponytail: 0.655 [0.589, 0.721] " \
             "(95% t-interval over pairs)\nElo difference: +111 [+63, +165]\n... -> H1 accepted: ..."
    problems = cf.compare_output(check, output, tmp_path)
    assert [str(p) for p in problems] == [
        f"README.md:{line}: score quoted '0.715 [0.664, 0.766]', the command gives '0.655 [0.589, 0.721]' "
        f"({check.command})"]
    assert cf.compare_output(check, output, ROOT) == []


def test_a_figure_moved_away_from_its_command_is_a_declaration_error(tmp_path: Path) -> None:
    check = next(c for c in CHECKS if c.id == "readme-match-sprt")
    page = copy_page(tmp_path, "README.md")
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace(check.command.replace(" --variant", "\n--variant"), "that command"), encoding="utf-8")
    page.write_text(page.read_text(encoding="utf-8").replace(check.command, "that command"), encoding="utf-8")
    with pytest.raises(cf.DeclarationError, match="is not within 12 lines"):
        cf.locate(check.figures[0], check.command, tmp_path)


def move_value(csv: Path, pick: Callable[[str], bool], new: str) -> tuple[int, str]:
    """Replace the ``value`` cell of ``csv``'s first line that ``pick`` accepts by ``new`` (a regenerated table
    whose figure moved); that line's index and its old value."""
    lines = csv.read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines) if pick(text))
    old_value = lines[line].split(",")[lines[0].split(",").index("value")]
    lines[line] = lines[line].replace(f",{old_value},", f",{new},")
    csv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return line, old_value


def test_a_changed_study_table_names_the_csv_line(tmp_path: Path) -> None:
    study = next(c for c in CHECKS if c.id == "study:classic-seat-balance")
    assert study.csv is not None
    committed = copy_page(tmp_path / "root", study.csv)
    line, old_value = move_value(copy_page(tmp_path / "work", study.csv), lambda text: ",margin," in text, "1234.5")
    problems = cf.compare_csv(study, tmp_path / "work", tmp_path / "root")
    assert [str(p) for p in problems] == [
        f"{study.csv}:{line + 1}: classic/greedy/margin value quoted '{old_value}', the command gives '1234.5' "
        f"({study.command})"]
    assert cf.compare_csv(study, tmp_path / "root", tmp_path / "root") == []
    assert committed.exists()


def test_a_changed_baseline_row_of_a_sweep_by_level_is_found(tmp_path: Path) -> None:
    """A sweep by level has a row per level, value and metric: a value moved in the baseline's rows (the first value,
    which a key of level and metric alone would have let the last value's rows hide) is named."""
    study = next(c for c in CHECKS if c.id == "study:classic-going-out-bonus-levels-net")
    assert study.csv is not None
    copy_page(tmp_path / "root", study.csv)
    line, old_value = move_value(copy_page(tmp_path / "work", study.csv),
                                 lambda text: text.startswith("greedy,100,deals,"), "9.5")
    problems = cf.compare_csv(study, tmp_path / "work", tmp_path / "root")
    assert [str(p) for p in problems] == [
        f"{study.csv}:{line + 1}: greedy/100/deals value quoted '{old_value}', the command gives '9.5' "
        f"({study.command})"]
