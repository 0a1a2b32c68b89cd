"""hdlrl: learning policies that improve and verify hardware designs on one EDA bridge."""

__version__ = "0.1.0"
