"""Static graphs: `static(f)` traces a DG function once per signature and runs it as generated code.

    a DG function and its arguments ─ tracing.py (listens to the engine's ops, to each tensor
    turned into a Python value, and to each name the function reads from outside itself) ─▶ a
    Trace: straight-line steps over variables, and guards
    ─ generating.py ─▶ Python source over NumPy arrays (forward, with the guards; backward, from
    each op's declared rule), compiled from generated names only ─ static_calls.py ─▶ the cache
    by signature, replay, re-tracing when a guard fails, and the node gradients flow through

guard_model.py states what a call checks before a trace may stand in for f (the cache key, every name
the trace read from outside f, which tensors are one tensor) and describes values for it;
guard_code.py writes a trace's guards out as code, guard_words.py in words. trace_steps.py holds the steps a trace has
besides the engine's ops (a rule run whole, a detached copy); optimizing.py the passes;
replaying.py what a call does with the compiled code; side_effects.py what a trace changed that a
replay would not. listing.py writes each trace for a student to read (a jaxpr-like listing with
its guards, commented with the DG source lines); static_builtins.py makes `static` and
`static_info` builtins of a session.
"""
