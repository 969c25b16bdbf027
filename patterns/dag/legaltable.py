"""The DAG stage's view of a target's lowering table (``Target.legality``,
``tdgen.model.legality``) as plain data: ``LegalTable`` answers what the type and vector
legalizers ask (``is_type_legal``, ``action``, ``promoted_type``, ``legal_types``) without
the spec model, so a cached isel view of the target (patterns.select.isel.IselView) carries
it; ``legal_table`` makes one (or passes one through)."""

from __future__ import annotations


class LegalTable:
    """``legal_types``: value type name -> register class name; ``actions``: (ISD name,
    value type name) -> (action, promoted-to type name or None)."""

    __slots__ = ("legal_types", "actions")

    def __init__(self, legal_types: dict, actions: dict) -> None:
        self.legal_types = legal_types
        self.actions = actions

    def is_type_legal(self, vt: str) -> bool:
        return vt in self.legal_types

    def action(self, op: str, vt: str) -> str:
        """getOperationAction: the table's entry, else Legal (see tdgen.model.legality)."""
        hit = self.actions.get((op, vt))
        return hit[0] if hit is not None else "Legal"

    def promoted_type(self, op: str, vt: str) -> str | None:
        hit = self.actions.get((op, vt))
        return hit[1] if hit is not None else None

    def __getstate__(self):
        return (self.legal_types, self.actions)

    def __setstate__(self, state) -> None:
        self.legal_types, self.actions = state


_MADE: dict = {}  # id(Legality) -> (the record, its table)


def legal_table(legality) -> LegalTable | None:
    """The plain table of a ``Legality`` record, made once per record (None for None; a
    LegalTable as it is)."""
    if legality is None or isinstance(legality, LegalTable):
        return legality
    hit = _MADE.get(id(legality))
    if hit is not None and hit[0] is legality:
        return hit[1]
    t = LegalTable(dict(legality.legal_types), {k: (v[0], v[1]) for k, v in legality.actions.items()})
    _MADE[id(legality)] = (legality, t)
    return t
