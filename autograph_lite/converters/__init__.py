"""Converters: one module per construct, each a single visitor that rewrites it through templates."""
