"""TOPI: one tensor-expression compute per relay op, and default schedules per target.

As TVM's `topi`, computes are written with the TE Python API (`xtvm.te`) by op family
(`elementwise`, `nn`, `reduction`, `transform`), schedules by target (`schedule`), and the
strategy table (`strategy.STRATEGIES`, keyed by relay op class) joins the two for
`convert-relay-to-te`. Like the API it builds on, TOPI sits beside the passes that use it.
"""
