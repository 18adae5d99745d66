"""Reading the authors' original release: the Excel workbooks, cell by cell.

The question list is read by column name (``File``, ``Question``, ...). The per-monster
``Node.xlsx`` and ``Relations.xlsx`` are read by column position after a header row, as the
authors' own loader does. Cells come back as stripped text or None, whatever Excel stored
(numbers, empty strings, missing trailing cells).
"""
from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

from mhmmkg.errors import InvalidInput, Problem, UserError
from mhmmkg.files.jsontext import read_bytes_file

QUESTION_COLUMNS = ("File", "Video", "Image", "Question", "Monster Name", "Extra Information",
                    "Perception", "Search Route", "Answer", "Type")
#: Template columns kept exactly as written (spaces included), so the authors' text can be rebuilt.
VERBATIM_COLUMNS = ("Question", "Extra Information")
NODE_COLUMNS = ("name", "image file or folder", "video file", "Action Description", "Additional Information")
RELATION_COLUMNS = ("head", "relation", "information", "condition", "tail")
WHAT = "official release"


def _openpyxl():
    try:
        import openpyxl
    except ImportError:
        raise UserError("reading the official Excel files needs openpyxl: pip install 'mhmmkg[official]'") from None
    return openpyxl


def _problem(path, where: str, reason: str) -> InvalidInput:
    return InvalidInput([Problem(str(path), where, reason)], WHAT)


#: caps on a workbook: its file, and what its parts unpack to (a zip bomb stops here)
MAX_WORKBOOK_BYTES = 64 << 20
MAX_WORKBOOK_UNPACKED = 512 << 20


def _check_unpacked_size(path: Path, data: bytes) -> None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise _problem(path, "", f"not a readable .xlsx workbook (not a zip archive: {exc})") from None
    if unpacked > MAX_WORKBOOK_UNPACKED:
        raise _problem(path, "", f"the workbook unpacks to {unpacked:,} bytes, over the limit of "
                                 f"{MAX_WORKBOOK_UNPACKED:,}")


def read_sheets(path: str | Path) -> dict[str, list[tuple]]:
    """Every sheet of a workbook (in workbook order) as rows of cell values; row i is Excel row i+1."""
    openpyxl = _openpyxl()
    path = Path(path)
    if not path.exists():
        raise _problem(path, "", "file not found")
    data = read_bytes_file(path, "workbook", max_bytes=MAX_WORKBOOK_BYTES)
    _check_unpacked_size(path, data)
    try:
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many types for unreadable files
        raise _problem(path, "", f"not a readable .xlsx workbook ({type(exc).__name__}: {exc})") from None
    try:
        sheets = {}
        for sheet in workbook.worksheets:
            sheet.reset_dimensions()  # some writers store a wrong used range; read every stored cell
            sheets[sheet.title] = [tuple(row) for row in sheet.iter_rows(values_only=True)]
        return sheets
    except Exception as exc:
        raise _problem(path, "", f"cannot read the workbook's cells ({type(exc).__name__}: {exc})") from None
    finally:
        workbook.close()


def read_sheet(path: str | Path) -> list[tuple]:
    """All rows of the first sheet of a workbook, as tuples of cell values."""
    sheets = read_sheets(path)
    if not sheets:
        raise _problem(path, "", "the workbook has no worksheet")
    return next(iter(sheets.values()))


def cell_text(value) -> str | None:
    """A cell as stripped text; None for empty cells. Whole numbers lose Excel's '.0'."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    return text or None


def _blank(row) -> bool:
    return all(cell_text(v) is None for v in row)


def _header(row) -> list[str]:
    return [cell_text(c) or "" for c in row]


def read_question_list(path: str | Path) -> list[dict]:
    """Rows of question_list.xlsx as dicts keyed by column name, plus 'row' (the Excel row number).

    The sheet is the first one holding every expected column in its first row, so a workbook
    with an extra cover sheet still reads; values are stripped text (None when empty), except
    ``Type``, which keeps Excel's value.
    """
    sheets = read_sheets(path)
    chosen = None
    for title, rows in sheets.items():
        if rows and all(c in _header(rows[0]) for c in QUESTION_COLUMNS):
            chosen = rows
            break
    if chosen is None:
        raise _problem(path, "row 1", _wrong_sheet_reason(sheets))
    header = _header(chosen[0])
    index = {c: header.index(c) for c in QUESTION_COLUMNS}
    out = []
    for n, row in enumerate(chosen[1:], start=2):
        if _blank(row):
            continue
        record = {c: _cell(row, i, strip=c not in VERBATIM_COLUMNS) for c, i in index.items()}
        record["row"] = n
        out.append(record)
    return out


def _wrong_sheet_reason(sheets: dict[str, list[tuple]]) -> str:
    if not sheets or not any(sheets.values()):
        return "empty workbook: no header row with the question-list columns"
    title, rows = next((t, r) for t, r in sheets.items() if r)
    missing = [c for c in QUESTION_COLUMNS if c not in _header(rows[0])]
    names = ", ".join(repr(t) for t in sheets)
    return (f"no sheet has the question-list columns in its first row (sheets: {names}); "
            f"sheet {title!r} is missing column(s): {', '.join(missing)}")


def _cell(row: tuple, i: int, strip: bool = True):
    value = row[i] if i < len(row) else None
    if isinstance(value, str):
        value = (value.strip() if strip else value) if value.strip() else None
    return value


@dataclass(frozen=True)
class NodeRow:
    """One row of a monster's Node.xlsx (names as written, without the monster prefix)."""

    row: int
    name: str
    image: str | None
    video: str | None
    caption: str | None
    text: str | None


@dataclass(frozen=True)
class RelationRow:
    """One row of a monster's Relations.xlsx (names as written, without the monster prefix)."""

    row: int
    head: str
    label: str
    info: str | None
    condition: str | None
    tail: str


def _positional_rows(path: Path, columns: tuple[str, ...]) -> list[tuple[int, list[str | None]]]:
    """(Excel row number, cells padded to len(columns)) for every non-blank row after the header."""
    rows = read_sheet(path)
    if not rows or _blank(rows[0]):
        raise _problem(path, "row 1", f"empty sheet: expected a header row and the columns {', '.join(columns)}")
    used = max(len(r) - next((i for i, v in enumerate(reversed(r)) if cell_text(v)), len(r)) for r in rows)
    if used < len(columns):
        raise _problem(path, "row 1", f"missing column(s): expected {len(columns)} columns by position "
                                      f"({', '.join(columns)}), found {used}")
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if _blank(row):
            continue
        cells = [cell_text(row[i]) if i < len(row) else None for i in range(len(columns))]
        out.append((n, cells))
    return out


def read_nodes(path: str | Path) -> list[NodeRow]:
    """Node.xlsx: name, image file or folder, video file, human caption, textual context."""
    path = Path(path)
    out, problems = [], []
    for n, (name, image, video, caption, text) in _positional_rows(path, NODE_COLUMNS):
        if name is None:
            problems.append(Problem(str(path), f"row {n}", "entity name (column 1) is empty"))
            continue
        out.append(NodeRow(n, name, image, video, caption, text))
    if problems:
        raise InvalidInput(problems, WHAT)
    return out


def read_relations(path: str | Path) -> list[RelationRow]:
    """Relations.xlsx: head, relation phrase, information, condition, tail."""
    path = Path(path)
    out, problems = [], []
    for n, (head, label, info, condition, tail) in _positional_rows(path, RELATION_COLUMNS):
        empty = [what for what, value in (("head (column 1)", head), ("relation (column 2)", label),
                                          ("tail (column 5)", tail)) if value is None]
        if empty:
            problems.append(Problem(str(path), f"row {n}", f"empty {', '.join(empty)}"))
            continue
        out.append(RelationRow(n, head, label, info, condition, tail))
    if problems:
        raise InvalidInput(problems, WHAT)
    return out
