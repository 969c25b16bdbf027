"""Bad-spec corpus: every tests/golden/spec/fail/<case>.py must fail to load with exactly
the text in <case>.expected (all errors, sorted), through the API and through the CLI
(exit 2, no traceback). Every tests/golden/spec/pass/*.py must load."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tdgen.cli import main
from tdgen.errors import TdgenError
from tdgen.spec import load_target

GOLDEN = Path(__file__).resolve().parent / "golden" / "spec"
FAIL = sorted(p for p in (GOLDEN / "fail").glob("*.py") if not p.name.startswith("_"))
PASS = sorted(p for p in (GOLDEN / "pass").glob("*.py") if not p.name.startswith("_"))

REQUIRED_CASES = {
    "unknown_operand", "arity_mismatch", "type_conflict", "unknown_frag", "duplicate_record", "missing_field",
}


def test_corpus_has_the_required_cases():
    assert REQUIRED_CASES <= {p.stem for p in FAIL}
    for p in FAIL:
        assert p.with_suffix(".expected").is_file(), f"{p.name} has no .expected file"


@pytest.mark.parametrize("case", FAIL, ids=lambda p: p.stem)
def test_bad_spec_reports_expected_text(case: Path):
    want = case.with_suffix(".expected").read_text()
    with pytest.raises(TdgenError) as info:
        load_target(case)
    assert info.value.format() + "\n" == want


@pytest.mark.parametrize("case", FAIL, ids=lambda p: p.stem)
def test_bad_spec_cli_exit_2_without_traceback(case: Path, capsys):
    rc = main(["list", str(case)])
    out, err = capsys.readouterr()
    assert rc == 2
    assert out == ""
    assert err == case.with_suffix(".expected").read_text()
    assert "Traceback" not in err


@pytest.mark.parametrize("case", PASS, ids=lambda p: p.stem)
def test_good_spec_loads(case: Path):
    t = load_target(case)
    assert t.selection_patterns(), "a pass case should define at least one pattern"


MESSAGE = re.compile(
    r"^tests/golden/spec/fail/\w+\.py:\d+:\d+: "
    r"(record '[^']+' field '[\w.]+': )?expected .+, found .+$"
)


def test_expected_texts_follow_the_message_form():
    """Every line: ``path:line:col: record 'R' field 'f': expected X, found Y`` (record
    and field left out only for a spec module that does not run), and the corpus has
    a case with three or more errors reported together."""
    most = 0
    for p in FAIL:
        lines = p.with_suffix(".expected").read_text().splitlines()
        most = max(most, len(lines))
        for line in lines:
            assert MESSAGE.match(line), line
            if "record '" not in line:
                assert "expected a spec module that runs" in line or "expected valid Python" in line \
                    or "expected a module-level 'TARGET" in line, line
    assert most >= 3
