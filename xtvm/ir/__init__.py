"""The text format: lark grammar, parser to xDSL IR, printer, diagnostics, context."""
