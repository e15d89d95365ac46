"""The training loop's side of an accumulator: tensors in, updates on a thread, states
shared across ranks and saved in checkpoints.

:mod:`~receval.engine.loop.tensors` reads tensors and other array-likes without
importing their library, :mod:`~receval.engine.loop.background` runs updates on a
thread, :mod:`~receval.engine.loop.plain` turns a state into plain data and back
(``state_dict``, ``sync``), :mod:`~receval.engine.loop.restored` checks an
accumulator read back from a pickle or a ``state_dict`` and
:mod:`~receval.engine.loop.distributed` exchanges that data between the ranks of a
``torch.distributed`` process group.
"""
