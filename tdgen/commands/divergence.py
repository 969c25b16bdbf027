"""Placeholder until its stage lands: the command reports that it is not available."""

from ..errors import UsageError


def configure(parser):
    parser.add_argument("rest", nargs="*")


def run(args):
    raise UsageError(None, "this command is not implemented yet")
