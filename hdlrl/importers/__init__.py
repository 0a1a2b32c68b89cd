"""Importers turn third-party benchmark layouts into hdlrl's design format."""
