"""Container semantics, the operators' side: how Python lists, dicts and sets behave in staged code (the
converter's side, which decides their roles from the source, is converters/containers/).

* data_structures.py: what converted code calls to change a container (``ag__.list_append``, ``set_item``,
  ``call_in_place``...): Python's change, or a tensor list's, or a StateError at the user's line when a staged
  loop cannot carry it; and which containers the staged constructs being traced carry (staging.py's stacks);
* branch_lists.py: the lists, dicts and sets the two branches of a staged if change in place (each branch its own
  copy; merged, or a tensor list when their lengths differ);
* checks.py: what a staged construct refuses by the converter's roles (``aliased``, ``borrowed``, ``picked``).

A bug about a list changed in a tensor loop belongs here when the staged construct does the wrong thing with
the roles it was given, and in converters/containers/ when the generated call names the wrong ones.
"""
