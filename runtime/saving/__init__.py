"""Saving and loading traced functions (JSON + .npz; never pickle, never eval)."""
