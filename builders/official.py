"""Reading the authors' original release (Excel workbooks)."""
from __future__ import annotations

from pathlib import Path

from mhmmkg.errors import InvalidInput, Problem, UserError

QUESTION_COLUMNS = ("File", "Video", "Image", "Question", "Monster Name", "Extra Information",
                    "Perception", "Search Route", "Answer", "Type")


def _openpyxl():
    try:
        import openpyxl
    except ImportError:
        raise UserError("reading the official Excel files needs openpyxl: pip install 'mhmmkg[official]'") from None
    return openpyxl


def read_sheet(path: str | Path) -> list[tuple]:
    """All rows of the first sheet of a workbook, as tuples of cell values."""
    openpyxl = _openpyxl()
    path = Path(path)
    if not path.is_file():
        raise InvalidInput([Problem(str(path), "", "file not found")], "official release")
    try:
        workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many types for unreadable files
        raise InvalidInput([Problem(str(path), "", f"not a readable .xlsx workbook ({type(exc).__name__}: {exc})")],
                           "official release") from None
    try:
        return [tuple(row) for row in workbook.worksheets[0].iter_rows(values_only=True)]
    finally:
        workbook.close()


def read_question_list(path: str | Path) -> list[dict]:
    """Rows of question_list.xlsx as dicts keyed by column name, plus 'row' (the Excel row number)."""
    rows = read_sheet(path)
    if not rows:
        raise InvalidInput([Problem(str(path), "row 1", "empty sheet: no header row")], "official release")
    header = [str(c).strip() if c is not None else "" for c in rows[0]]
    missing = [c for c in QUESTION_COLUMNS if c not in header]
    if missing:
        raise InvalidInput([Problem(str(path), "row 1", f"missing column(s): {', '.join(missing)}")], "official release")
    index = {c: header.index(c) for c in QUESTION_COLUMNS}
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if all(v is None or str(v).strip() == "" for v in row):
            continue
        record = {c: _cell(row, i) for c, i in index.items()}
        record["row"] = n
        out.append(record)
    return out


def _cell(row: tuple, i: int):
    value = row[i] if i < len(row) else None
    if isinstance(value, str):
        value = value.strip() or None
    return value
