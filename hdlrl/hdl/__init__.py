"""Source-level handling of HDL text: lexing, safety screening and normalisation."""
