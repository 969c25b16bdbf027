"""Error kinds shared by every stage, each carrying a source span.

- ``SpecError``: a definition (spec record, pattern in a spec) is malformed.
- ``ParseError``: an input text (IR file, pattern string) does not parse.
- ``VerifyError``: a well-formed input breaks a definition (e.g. cannot select).
- ``UsageError``: a command-line argument is wrong.

Every message reads ``path:line:col: <record/field context>: expected X, found Y``, on
one line (control characters escaped: ``printable``).
Stages collect errors in a ``Diagnostics`` and raise them together as one
``ErrorList`` (sorted by location, so the report is deterministic).
"""

from __future__ import annotations

from typing import Iterable


def frozen_error(name: str, verb: str = "assign to") -> AttributeError:
    """The error a frozen dataclass raises on ``obj.name = ...`` / ``del obj.name``
    (``dataclasses.FrozenInstanceError``, imported only when it is raised)."""
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(f"cannot {verb} field {name!r}")


class FrozenRecord:
    """``__repr__``, ``__eq__``, ``__hash__`` and frozenness of a frozen dataclass over
    ``_FIELDS`` (each subclass writes its ``__init__``, setting fields through
    ``__dict__``)."""

    _FIELDS: tuple = ()

    def _key(self) -> tuple:
        d = self.__dict__
        return tuple([d[f] for f in self._FIELDS])

    def __repr__(self) -> str:
        d = self.__dict__
        return f"{self.__class__.__qualname__}(" + ", ".join(f"{f}={d[f]!r}" for f in self._FIELDS) + ")"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._key() == other._key()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __setattr__(self, name, value):
        raise frozen_error(name)

    def __delattr__(self, name):
        raise frozen_error(name, "delete")


class Span(FrozenRecord):
    """A location in a source file (1-based line and column).

    Behaves as ``@dataclass(frozen=True, order=True)`` with these fields (``__init__``,
    ``__repr__``, ``__eq__``, ordering, ``__hash__``, frozenness), written out so that
    importing it does not import ``dataclasses`` (a few ms of every command's start-up)."""

    _FIELDS = __match_args__ = ("path", "line", "col", "end_line", "end_col")
    line = 0
    col = 0
    end_line = None
    end_col = None

    def __init__(self, path: str, line: int = 0, col: int = 0, end_line: int | None = None,
                 end_col: int | None = None) -> None:
        d = self.__dict__
        d["path"] = path
        d["line"] = line
        d["col"] = col
        d["end_line"] = end_line
        d["end_col"] = end_col

    def __lt__(self, other):
        if other.__class__ is self.__class__:
            return self._key() < other._key()
        return NotImplemented

    def __le__(self, other):
        if other.__class__ is self.__class__:
            return self._key() <= other._key()
        return NotImplemented

    def __gt__(self, other):
        if other.__class__ is self.__class__:
            return self._key() > other._key()
        return NotImplemented

    def __ge__(self, other):
        if other.__class__ is self.__class__:
            return self._key() >= other._key()
        return NotImplemented

    def __str__(self) -> str:
        if self.line <= 0:
            return self.path
        return f"{self.path}:{self.line}:{self.col}"

    def offset(self, line_delta: int, col: int) -> "Span":
        """A span inside this one: ``line_delta`` lines further, at column ``col``.

        Used for text embedded in a spec (a pattern string starting at this span)."""
        if line_delta == 0:
            return Span(self.path, self.line, self.col + col - 1)
        return Span(self.path, self.line + line_delta, col)


# Control characters in a message (a NUL or a newline in a spec's name, a path) are
# shown escaped, so each error stays one line and a terminal shows what was there.
_ESCAPES = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0))}
_ESCAPES.update({c: f"\\u{c:04x}" for c in (0x2028, 0x2029)})  # (line breaks to str.splitlines too)
_ESCAPES.update({0x0A: "\\n", 0x09: "\\t", 0x0D: "\\r"})


def printable(text: str) -> str:
    """``text`` with control characters escaped (``\\x00``, ``\\n``)."""
    return text.translate(_ESCAPES)


def expected(what: str, found: object) -> str:
    """The standard tail of a message: ``expected <what>, found <found>``."""
    return f"expected {what}, found {found}"


class TdgenError(Exception):
    """Base of all user-facing errors. Never shown with a traceback."""

    kind = "error"

    def __init__(
        self,
        span: Span | None,
        message: str,
        *,
        record: str | None = None,
        field: str | None = None,
    ) -> None:
        self.span = span
        self.message = message
        self.record = record
        self.field = field
        super().__init__(self.format())

    def context(self) -> str:
        parts = []
        if self.record is not None:
            parts.append(f"record '{self.record}'")
        if self.field is not None:
            parts.append(f"field '{self.field}'")
        return " ".join(parts)

    def format(self) -> str:
        where = f"{self.span}: " if self.span is not None else ""
        ctx = self.context()
        ctx = f"{ctx}: " if ctx else ""
        return printable(f"{where}{ctx}{self.message}")

    def sort_key(self) -> tuple:
        s = self.span
        if s is None:
            return ("", 0, 0, self.message)
        return (s.path, s.line, s.col, self.message)


class SpecError(TdgenError):
    """A definition is malformed."""


class ParseError(TdgenError):
    """An input text does not parse."""


class VerifyError(TdgenError):
    """A well-formed input breaks a definition."""


class UsageError(TdgenError):
    """A command-line argument is wrong."""


class ErrorList(TdgenError):
    """Several errors of one stage, reported together, sorted by location."""

    def __init__(self, errors: Iterable[TdgenError]) -> None:
        uniq: dict[str, TdgenError] = {}
        for e in sorted(errors, key=lambda e: e.sort_key()):
            uniq.setdefault(e.format(), e)
        self.errors = list(uniq.values())
        assert self.errors, "ErrorList needs at least one error"
        Exception.__init__(self, self.format())
        self.span = self.errors[0].span
        self.message = self.errors[0].message
        self.record = self.errors[0].record
        self.field = self.errors[0].field

    def format(self) -> str:
        return "\n".join(e.format() for e in self.errors)


class Diagnostics:
    """Collects the errors of one stage; ``check()`` raises them together."""

    def __init__(self) -> None:
        self.errors: list[TdgenError] = []

    def add(self, err: TdgenError) -> None:
        if isinstance(err, ErrorList):
            self.errors.extend(err.errors)
        else:
            self.errors.append(err)

    def __bool__(self) -> bool:
        return bool(self.errors)

    def check(self) -> None:
        if self.errors:
            if len(self.errors) == 1:
                raise self.errors[0]
            raise ErrorList(self.errors)
