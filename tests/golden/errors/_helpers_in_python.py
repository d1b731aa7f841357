def f():
    return 1  # Python, not DG: DG imports only .dg files
