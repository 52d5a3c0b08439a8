"""return -> a single exit: ``do_return``/``retval_`` flags, the rest guarded, loops stopped.

    def f(x):                    def f(x):
        if x > 0:                    do_return = False
            return x       ->        retval_ = ag__.UndefinedReturnValue()
        return 0                     if x > 0:
                                         do_return = True
                                         retval_ = x
                                     if not do_return:
                                         do_return = True
                                         retval_ = 0
                                     return retval_

A function whose only ``return`` is its last statement is left as it is. Inside ``try``/``with``
the value is computed before the flag is set, so an exception in it leaves the flag unset.

A ``return`` inside ``finally`` keeps Python's meaning (it replaces the ``try``'s return and discards the
exception in flight; the statement is rewritten so that the ``finally`` sees the exception and raises it
again only if it did not return)::

    try:                             caught = None
        body                         try:
    finally:                 ->          body
        if c:                        except BaseException as error:
            return 1                     caught = ag__.caught_by_finally(error)
        cleanup()                        do_return = False      # the exception voids the try's return
                                     finally:
                                         returned = do_return   # the try's return, unless finally returns
                                         do_return = False
                                         (finally, converted)
                                         if not do_return:      # (the guard of every return)
                                             do_return = returned
                                             ag__.reraise_caught(caught)
"""
import gast

from autograph_lite import contract
from autograph_lite.converters.guards import guard_rest
from autograph_lite.pyct import anno, templates
from autograph_lite.pyct.transformer import Transformer, contains_statement
from autograph_lite.pyct.nodes import NESTED_SCOPES



def _may_return(node) -> bool:
    return contains_statement(node, gast.Return, stop_at=NESTED_SCOPES)


def _always_returns(statements, endless_loops: bool = False) -> bool:
    """True if every path through ``statements`` ends in a ``return`` (or, with ``endless_loops``, in a
    ``while True:`` loop, which only a ``return`` leaves: its ``break``s were lowered into its test before)."""
    for node in statements:
        if isinstance(node, gast.Return):
            return True
        if endless_loops and isinstance(node, gast.While) and _is_constant_true(node.test):
            return True
        if isinstance(node, gast.If) and (_always_returns(node.body, endless_loops)
                                          and _always_returns(node.orelse, endless_loops)):
            return True
        if isinstance(node, gast.Try) and (_always_returns(node.finalbody, endless_loops) or (
                _always_returns(node.body + node.orelse, endless_loops)
                and all(_always_returns(h.body, endless_loops) for h in node.handlers))):
            return True
    return False


def _is_constant_true(test) -> bool:
    return isinstance(test, gast.Constant) and bool(test.value)


class ReturnTransformer(Transformer):

    statements_only = True

    def __init__(self, ctx):
        super().__init__(ctx)
        self.flags = None        # (do_return, retval_) names of the function being converted
        self.protected = 0       # depth of try/with around the current statement

    def visit_FunctionDef(self, node):
        saved = self.flags, self.protected
        returns = [s for s in node.body if _may_return(s)]
        tail_only = returns == node.body[-1:] and isinstance(node.body[-1], gast.Return)
        if not returns or tail_only:
            self.flags, self.protected = None, 0
            node = self.generic_visit(node)
        else:
            self.flags = (self.ctx.new_name(contract.RETURN_FLAG_NAME), self.ctx.new_name(contract.RETURN_VALUE_NAME))
            self.protected = 0
            do_return, retval = self.flags
            self.ctx.roles.update({do_return: contract.RETURN_FLAG, retval: contract.RETURN_VALUE})
            always_returns = _always_returns(node.body)
            ends_in_endless_loop = not always_returns and _always_returns(node.body, endless_loops=True)
            self.ctx.always_live.add(do_return)   # the contract shows it as state of every construct
            body = self.visit_block(node.body)
            # When a path may reach the end without `return`, return_value turns the placeholder
            # into None (or reports a tensor-dependent return missing on some paths).
            if always_returns:
                final = 'return retval_'
            elif ends_in_endless_loop:
                # Only a return leaves the `while True:`: what a staged loop leaves as returned on some paths
                # is returned on all of them.
                final = 'return ag__.return_value(retval_, every_path_returns=True)'
            else:
                final = 'return ag__.return_value(retval_)'
            node.body = (templates.replace('do_return = False\nretval_ = ag__.UndefinedReturnValue()',
                                           do_return=do_return, retval_=retval)
                         + body + templates.replace(final, retval_=retval))
        self.flags, self.protected = saved
        return node

    def visit_Lambda(self, node):
        return node

    def visit_Return(self, node):
        if self.flags is None:
            return node
        do_return, retval = self.flags
        value = node.value if node.value is not None else templates.literal(None)
        template = ('retval_ = value\ndo_return = True' if self.protected
                    else 'do_return = True\nretval_ = value')
        return templates.replace(template, do_return=do_return, retval_=retval, value=value)

    def _protected(self, node):
        self.protected += 1
        node = self.generic_visit(node)
        self.protected -= 1
        return node

    def visit_Try(self, node):
        if self.flags is None or not any(_may_return(statement) for statement in node.finalbody):
            return self._protected(node)
        do_return = self.flags[0]
        caught, error, returned = (self.ctx.new_name(base) for base in ('caught', 'error', 'returned'))
        inner = [gast.Try(body=node.body, handlers=node.handlers, orelse=node.orelse, finalbody=[])] if (
            node.handlers or node.orelse) else node.body
        finally_tail = templates.replace('do_return = returned\nag__.reraise_caught(caught)',
                                         do_return=do_return, returned=returned, caught=caught)
        statements = templates.replace(
            'caught = None\n'
            'try:\n'
            '    inner\n'
            'except BaseException as error:\n'
            '    caught = ag__.caught_by_finally(error)\n'
            '    do_return = False\n'
            'finally:\n'
            '    returned = do_return\n'
            '    do_return = False\n'
            '    final\n'
            '    tail',
            caught=caught, inner=inner, error=error, do_return=do_return, returned=returned,
            final=node.finalbody, tail=finally_tail)
        statements[1] = self._protected(statements[1])
        return statements

    visit_With = _protected

    def _loop(self, node):
        returns = self.flags is not None and _may_return(node)
        node = self.generic_visit(node)
        if not returns:
            return node
        do_return = self.flags[0]
        self.ctx.negations_written = True   # the logical converter has work
        if isinstance(node, gast.While):
            node.test = templates.replace_as_expression('not do_return and test', do_return=do_return,
                                                        test=node.test)
        else:
            extra = anno.getanno(node, anno.EXTRA_LOOP_TEST, None)
            test = ('not do_return' if extra is None else 'not do_return and extra')
            anno.setanno(node, anno.EXTRA_LOOP_TEST,
                         templates.replace_as_expression(test, do_return=do_return, extra=extra))
        return node

    visit_While = _loop
    visit_For = _loop

    def visit_block(self, statements):
        if self.flags is None:
            return super().visit_block(statements)
        return guard_rest(self, statements, _may_return, self.flags[0])
