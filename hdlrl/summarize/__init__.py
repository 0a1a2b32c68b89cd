"""`hdlrl summarize`: checked, hierarchical summaries of HDL modules, refined by Monte Carlo tree search."""
