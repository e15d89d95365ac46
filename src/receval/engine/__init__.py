"""The metric engine: one definition per metric, run the same way by every source.

:mod:`receval.engine.metric` holds the definition protocol and the table that
definitions register in, :mod:`receval.engine.states` the states it adds to
:mod:`receval.engine.totals`, :mod:`receval.engine.kinds` what a state's rows
were of (binary labels, group id types), :mod:`receval.engine.run` the
accumulator, and :mod:`receval.engine.sources` the sources that cut the rows of a
:func:`receval.scan` (any split, whole groups, disjoint score ranges);
:mod:`receval.engine.loop` holds what a training loop needs (tensors, a
background thread, ``sync`` and ``state_dict``). Each
metric's definition lives in the module of its function;
:func:`receval.registry.definition` finds one by name and :func:`receval.metric`
returns its accumulator. The engine imports no metric module.
"""
