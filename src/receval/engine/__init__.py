"""The metric engine: one definition per metric, run the same way by every source.

:mod:`receval.engine.metric` holds the definition protocol and the registry of
definitions, :mod:`receval.engine.states` the states it adds to
:mod:`receval._states`, :mod:`receval.engine.definitions` the built-in
definitions, and :mod:`receval.engine.run` the public accumulators behind
:func:`receval.metric`. Importing this package loads none of them.
"""
