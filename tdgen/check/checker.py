"""The entry of the checks: ``check_target`` runs every check of ``tdgen.check`` in order.

``Checker`` puts the checks of each kind of record together; ``run`` visits the records
in a fixed order (names, intrinsics, profiles, nodes, register classes, operand kinds,
instruction resolution, xforms, fragments, instructions, ``Pat`` s, memory effects,
lowerings, rewrites, custom selects, wave facts, data layout, lowering tables); the problems are reported sorted.
"""

from __future__ import annotations

from ..errors import Diagnostics, TdgenError
from ..model.target import Target
from .effects import EffectChecks
from .emitted import EmittedChecks
from .fragments import FragmentChecks
from .instructions import InstructionChecks
from .legality import LegalityChecks
from .lowering import LoweringChecks
from .records import RecordChecks
from .semantics import check_instruction_semantics


def check_target(target: Target, diags: Diagnostics | None = None, *, tolerant: bool = False) -> None:
    """Run every check; raise all problems together (sorted).

    With ``diags`` the problems are added there instead of raised. ``tolerant`` is for
    a spec that already has construction errors: records marked invalid
    (``tdgen.model.record.is_invalid``) and records built on them are skipped, and a check
    that cannot read a record (a knock-on effect of the invalid ones) is dropped
    rather than reported, so the construction errors stay the report."""
    d = Diagnostics() if diags is None else diags
    checker = Checker(target, d, tolerant=tolerant)
    if tolerant:
        try:
            checker.run()
        except TdgenError as e:
            d.add(e)
        except Exception:  # noqa: BLE001 -- a knock-on of an invalid record
            pass
    else:
        checker.run()
    if diags is None:
        d.check()


class Checker(RecordChecks, FragmentChecks, InstructionChecks, EffectChecks, LoweringChecks, EmittedChecks,
              LegalityChecks):
    """Every check of a target (see ``tdgen.check``)."""

    def run(self) -> None:
        t = self.t
        self.check_names()
        self.check_identifiers()
        self.check_target_folder()
        self.check_registers()
        self.check_divergence_rules()
        self.each(t.intrinsics, self.check_intrinsic)
        self.each(t.profiles, lambda p: self.check_profile_builtin(p, p.name or "SDTypeProfile"))
        self.each(t.emitted_profiles(), lambda p: self.check_profile(p, p.name or "SDTypeProfile"))
        self.each(t.nodes, self.check_node)
        self.each(t.register_classes, self.check_regclass)
        self.each(t.operands, self.check_operand_kind)
        insts, errors = t.resolved_instructions()
        for e in errors:
            self.d.add(e)
        self.each(t.xforms, self.check_xform)
        self.each(t.frags, self.check_frag)
        self.each(insts.values(), self.check_instruction)
        self.each(insts.values(), lambda i: check_instruction_semantics(self, i))
        self.each(insts.values(), self.check_emitted_instruction)
        index = {id(p): k for k, p in enumerate(t.patterns)}
        self.each(t.patterns, lambda p: self.check_pat(p, p.name or f"anonymous_{index[id(p)]}", insts))
        self.check_effects(insts)
        self.each(t.lowerings, self.check_lowering)
        self.each(t.rewrites, self.check_rewrite)
        self.each(t.custom_selects, lambda c: self.check_custom_select(c, insts))
        self.check_wave()
        self.check_data_layout()
        self.check_legality()
