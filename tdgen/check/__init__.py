"""Check a whole Target; report every problem together (sorted by location).

``check_target(target)`` (``tdgen.check.checker``) collects into a ``Diagnostics`` and
raises at the end. Checks, one module each:

- names: every record name unique across the TableGen namespace (also defm
  expansions); intrinsic names ``int_<target_prefix>_...``; target SDNode opcodes in
  the target's ``isd_namespace``;
- records: profiles' constraint operand numbers in range, SDNP properties known,
  ImmArg/LLVMMatchType indices valid, register classes non-empty with a known file,
  instruction classes/defs resolve (template arguments and field values fit their
  declared TableGen types -- bit, int, bits<N>, string, RegisterClass, ... --, fields
  are declared, required fields are set), operand kinds exist, operand names are
  unique, implicit registers exist;
- patterns (instruction ``pattern``, ``Pat`` src/dst, PatFrag fragments): they parse;
  operators are known SDNodes / PatFrags / intrinsics / divergence-frag instances (and
  instructions or casts in results, including Target.td's REG_SEQUENCE /
  EXTRACT_SUBREG / COPY_TO_REGCLASS / IMPLICIT_DEF with a register class or target
  sub-register index where their operands take one); arity matches the node profile,
  fragment ``ops``, intrinsic params or instruction ``ins``; every ``$name`` of an instruction pattern is
  one of its operands and every input operand appears; result variables are bound in
  the source; types unify under the SDTC constraints (``tdgen.typeinfer``; a top-level
  form of an instruction pattern yields no value unless under ``set``; every value of
  an instruction pattern or ``Pat`` source ends with one type among the target's legal
  types, else tblgen's "Could not infer all types in pattern!");
- memory effects: an instruction's explicit ``mayLoad``/``mayStore``/``hasSideEffects``
  agree with what its patterns match (SDNP properties of nodes, memory properties of
  intrinsics), where llvm-tblgen-19 rejects them ("Pattern doesn't match mayLoad = 0");
- lowerings: intrinsic declared, node declared, node carries a chain exactly when the
  intrinsic has one (``Intrinsic.has_chain``: INTRINSIC_W_CHAIN vs _WO_CHAIN), node
  results = intrinsic results, operand indices in range;
- fragments: predicate code reading ``Operands[...]`` needs ``uses_operands=True``
  (TableGen's ``PredicateCodeUsesOperands``); ``PredicateCode`` (PatFrag, PatLeaf) reads
  the node ``N``, not ``Imm``, and an ImmLeaf's code reads ``Imm``, not ``N`` (the C++
  llvm-tblgen writes around them declares only those); an ImmLeaf has an integer type,
  ``imm``/``timm`` and code, and its / a PatLeaf's ``xform`` is one of the target's
  ``xforms``;
- SDNodeXForms: a known node, code, and either code of the one form tdgen executes or a
  ``model`` defining ``transform``; in a result DAG one operand, bound in the source to a
  constant (``imm``, ``timm`` or a leaf fragment over them) -- also for a result leaf
  naming a leaf fragment with an ``xform``; never in a source;
- wave facts (``Target.wave``): sizes a non-empty subset of {32, 64}, ``default_size``
  among them, ``bpermute_wave64`` ``'full'`` or ``'half'``;
- the data layout (``Target.data_layout``): a string LLVM 19's DataLayout accepts;
- rewrites: the foreign intrinsic is one LLVM 19 has (``tdgen.builtins.FOREIGN_INTRINSICS``,
  no LLVM needed at run time), ``foreign_params`` matches it, the target intrinsic
  returns the same types, is IntrConvergent when the foreign one is, and every mapped
  argument / ``Const`` has the type of the target parameter it feeds.

The verdicts on SDTC constraints, memory effects, top-level forms and type-inference
completeness are compared with llvm-tblgen-19 in tests/test_check_tblgen.py.

Messages: ``path:line:col: record 'R' field 'f': expected ..., found ...``.

Modules: ``base`` (the checker's state and reporting), ``records`` (names, intrinsics,
SDNodes, register classes, operand kinds, wave facts), ``trees`` (operators, arities and
leaves of source patterns), ``fragments`` (PatFrags, leaf fragments, SDNodeXForm
records), ``instructions`` (instruction patterns and ``Pat`` s, result DAGs),
``effects`` (memory effects), ``lowering`` (lowerings, rewrites, custom selects),
``checker`` (all of them in order: ``check_target``).
"""

from .checker import check_target
