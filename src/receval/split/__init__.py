"""Train/test splits of interaction logs, reproducible and with every left-out user counted.

:func:`temporal` cuts the whole log at one time; :func:`leave_last_out`,
:func:`ratio` and :func:`random_holdout` hold out part of each user's
interactions; :func:`user_kfold` holds out whole users, fold by fold;
:func:`rolling` makes temporal folds for back-tests. Each returns a
:class:`SplitResult`: the train and test parts in the log's frame type and the
counts of users and items the split dropped or left cold;
:meth:`SplitResult.qrels` makes the test part into :class:`receval.Qrels`.

Ties in time are broken by the log's row order: of two rows of a user at the same
time, the later row in the log is the later interaction. Random splits draw from
``numpy.random.default_rng(seed)``. :func:`temporal` and :func:`leave_last_out`
split a :func:`receval.scan` of files larger than memory, writing the two parts.
"""

from ._folds import rolling, user_kfold
from ._methods import leave_last_out, random_holdout, ratio, temporal
from ._result import SplitResult

__all__ = [
    "SplitResult",
    "leave_last_out",
    "random_holdout",
    "ratio",
    "rolling",
    "temporal",
    "user_kfold",
]
