"""Container semantics, the converter's side: which lists, dicts and sets of a function a staged if or loop may
replace by another object, decided from the source (the operators' side is operators/containers/).

* origins.py: which locals the function may share with code outside it (role ``borrowed``);
* roles.py: the one pass that annotates each if, while and for with the roles of its locals (``aliased``,
  ``borrowed``, ``picked``) and the locals from before it that it changes in place (its state), and each
  ``name = a if c else b`` that may pick one of two containers.

A bug about a list changed in a tensor loop belongs here when the generated call names the wrong roles (see
``ag.to_code``), and in operators/containers/ when the staged construct does the wrong thing with them.
"""
from autograph_lite.converters.containers.roles import NO_ROLES, ContainerRoles, annotate, picked_name

__all__ = ['NO_ROLES', 'ContainerRoles', 'annotate', 'picked_name']
