"""Benchmarks (`hdlrl bench ...`): ratios measured side by side in one process."""
