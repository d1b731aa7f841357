"""The language core: source text, parser, AST, evaluator, runtime values, builtins, errors.

It imports nothing from `seeing/` or `frontends/`: tools and front ends build on it, never the
other way round.
"""
