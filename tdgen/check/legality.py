"""Checks of the target's lowering tables (``Target.legality``, ``tdgen.model.legality``):

- every opcode an ``OperationAction`` names is an LLVM 19 ``ISD::`` opcode
  (``tdgen.model.isd_opcodes``; written without the namespace), every action one of
  Legal / Promote / Expand / LibCall / Custom, ``promote_to`` only on a Promote entry and
  naming a type with a register class, a ``lowering`` name only on a Custom entry and a
  C++ identifier;
- every ``RegisterFor`` names a register class the target declares whose types hold
  the value type (or, by name, a backend class the spec does not declare), and no type
  twice;
- load-extension kinds are EXTLOAD / SEXTLOAD / ZEXTLOAD; the boolean contents are
  LLVM's ``BooleanContent`` names.

Each problem is reported at the field of the record that has it (file:line:col)."""

from __future__ import annotations

import re

from ..errors import expected
from ..model.isd_opcodes import ISD_OPCODES
from ..model.legality import BOOLEAN_CONTENTS, LEGALIZE_ACTIONS, LOAD_EXTENSIONS
from .base import CheckerBase


class LegalityChecks(CheckerBase):
    """Checks of ``Target.legality``."""

    def check_legality(self) -> None:
        lg = self.t.legality
        if lg is None:
            return
        declared = {id(r) for r in self.t.register_classes}
        seen: dict[str, object] = {}
        for r in lg.register_classes:
            rec = f"RegisterFor<{getattr(r.vt, 'name', r.vt)}>"
            rc = r.register_class
            if isinstance(rc, str):
                if not re.fullmatch(r"[A-Za-z_]\w*", rc):
                    self.err(r.field_span("register_class")[0], expected("a register class name", repr(rc)), rec,
                             "register_class")
                elif rc in self.t.register_classes_by_name:
                    self.err(r.field_span("register_class")[0], expected(
                        f"the RegisterClass object {rc} (the spec declares it)", f"its name '{rc}'"), rec,
                        "register_class")
            elif id(rc) not in declared and getattr(rc, "name", None) not in self.t.register_classes_by_name:
                self.err(r.field_span("register_class")[0],
                         expected("a register class the target declares", repr(getattr(rc, "name", rc))),
                         rec, "register_class")
            elif r.vt not in rc.types:
                self.err(r.field_span("vt")[0], expected(f"a type of register class {rc.name} "
                                                         f"({', '.join(t.name for t in rc.types)})", r.vt.name),
                         rec, "vt")
            if r.vt.name in seen:
                self.err(r.field_span("vt")[0], expected("one register class per type",
                                                         f"{r.vt.name} given a second one"), rec, "vt")
            seen[r.vt.name] = r
        legal = lg.legal_types
        for e in lg.operations:
            rec = f"OperationAction<{', '.join(map(str, e.ops))}>"
            for k, op in enumerate(e.ops):
                if op not in ISD_OPCODES:
                    near = op[5:] if op.startswith("ISD::") and op[5:] in ISD_OPCODES else None
                    found = repr(op) + (f" (write '{near}', without the namespace)" if near else "")
                    self.err(e.field_span("ops", k)[0], expected("an ISD opcode name of LLVM 19", found), rec, "ops")
            if not e.ops:
                self.err(e.field_span("ops")[0], expected("at least one ISD opcode", "an empty list"), rec, "ops")
            if not e.types:
                self.err(e.field_span("types")[0], expected("at least one value type", "an empty list"), rec, "types")
            if e.action not in LEGALIZE_ACTIONS:
                self.err(e.field_span("action")[0], expected(f"one of {', '.join(LEGALIZE_ACTIONS)}", repr(e.action)),
                         rec, "action")
            if e.promote_to is not None:
                if e.action != "Promote":
                    self.err(e.field_span("promote_to")[0], expected("promote_to only with action 'Promote'",
                                                                     f"action {e.action!r}"), rec, "promote_to")
                elif e.promote_to.name not in legal:
                    self.err(e.field_span("promote_to")[0],
                             expected("a type with a register class (RegisterFor)", e.promote_to.name), rec,
                             "promote_to")
            if e.lowering:
                if e.action != "Custom":
                    self.err(e.field_span("lowering")[0], expected("a lowering only with action 'Custom'",
                                                                   f"action {e.action!r}"), rec, "lowering")
                elif not re.fullmatch(r"[A-Za-z_]\w*", e.lowering):
                    self.err(e.field_span("lowering")[0], expected("a C++ function name", repr(e.lowering)), rec,
                             "lowering")
        for e in lg.load_ext:
            rec = "LoadExtAction"
            for k, x in enumerate(e.exts):
                if x not in LOAD_EXTENSIONS:
                    self.err(e.field_span("exts", k)[0], expected(f"one of {', '.join(LOAD_EXTENSIONS)}", repr(x)),
                             rec, "exts")
            if e.action not in LEGALIZE_ACTIONS:
                self.err(e.field_span("action")[0], expected(f"one of {', '.join(LEGALIZE_ACTIONS)}", repr(e.action)),
                         rec, "action")
        for e in lg.trunc_store:
            if e.action not in LEGALIZE_ACTIONS:
                self.err(e.field_span("action")[0], expected(f"one of {', '.join(LEGALIZE_ACTIONS)}", repr(e.action)),
                         "TruncStoreAction", "action")
        for fld in ("boolean_contents", "boolean_vector_contents"):
            v = getattr(lg, fld)
            if v not in BOOLEAN_CONTENTS:
                self.err(lg.field_span(fld)[0], expected(f"one of {', '.join(BOOLEAN_CONTENTS)}", repr(v)),
                         "Legality", fld)
