"""A compiled book evaluated for people: its worked examples run and checked (exact odds included),
an evaluation's working (explain) as steps and as sentences, and the designer's views (sweeps,
variants, cost views).  A back end beside odds/ and jsgen/."""
