"""Python code tools: parse live functions, build code from templates, analyse and unparse it."""
