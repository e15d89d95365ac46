"""receval.spark.retention with a signup DataFrame whose user ids are of another type
than the events': refused with the message of receval.retention where they (almost)
never match, counted as receval.retention counts them otherwise."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import receval
import receval.spark as rs
from receval.exceptions import InputValidationError

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")

JAN1 = 1704067200  # 2024-01-01T00:00:00Z
DAY = 86400
# users 1 and 2 on day 0, user 1 again on day 1, user 3 on day 1
EVENTS = pd.DataFrame({"user": [1, 1, 2, 3], "time": [JAN1, JAN1 + DAY, JAN1, JAN1 + DAY]})


def _memory_error(events, signup):
    with pytest.raises(InputValidationError) as caught:
        receval.retention(events, signup=signup, days=1)
    return str(caught.value)


@pytest.mark.parametrize(
    ("events", "signup"),
    [
        (EVENTS, pd.DataFrame({"user": ["u1", "u2"], "signup": [JAN1 + DAY, JAN1]})),
        (EVENTS, pd.DataFrame({"user": ["01", "02"], "signup": [JAN1 + DAY, JAN1]})),
        (EVENTS, pd.DataFrame({"user": ["u1", "u1", "u2"], "signup": [JAN1, JAN1, JAN1]})),
        (EVENTS.assign(user=["u1", "u1", "u2", "u3"]),
         pd.DataFrame({"user": [1, 2], "signup": [JAN1 + DAY, JAN1]})),
        (EVENTS.assign(user=[1.5, 1.5, 2.5, 3.5]),
         pd.DataFrame({"user": [1, 2], "signup": [JAN1 + DAY, JAN1]})),
    ],
    ids=["prefixed strings", "zero-padded strings", "a user's rows repeated",
         "integers beside strings", "fractions"],
)  # fmt: skip
def test_signup_ids_of_another_type_are_refused_as_in_memory(spark, events, signup):
    expected = _memory_error(events, signup)  # of the distinct signup users
    assert f"of the {signup['user'].nunique()} signup users is" in expected
    assert "signup user" in expected and "is a user of the events (0.0%)" in expected
    with pytest.raises(InputValidationError) as caught:
        rs.retention(spark.createDataFrame(events), signup=spark.createDataFrame(signup),
                     days=1, num_partitions=3)  # fmt: skip
    assert str(caught.value) == expected


def test_signup_ids_of_another_type_that_match_enough_count_as_in_memory(spark):
    # 5 of the 25 string ids are users of the events (20%): accepted, as in memory;
    # "01" is not user 1, and the partitions whose signup ids match no event user
    # (the "u" ids) are not refused on their own
    events = pd.DataFrame(
        {"user": np.repeat(np.arange(1, 21), 2),
         "time": np.tile([JAN1, JAN1 + DAY], 20) + np.repeat(np.arange(20) % 3, 2) * DAY}
    )  # fmt: skip
    users = ["1", "2", "3", "4", "01", *(f"u{i}" for i in range(20))]
    signup = pd.DataFrame({"user": users, "signup": JAN1 + DAY * (np.arange(25) % 2)})
    expected = receval.retention(events, signup=signup, days=1)
    got = rs.retention(spark.createDataFrame(events), signup=spark.createDataFrame(signup),
                       days=1, num_partitions=4)  # fmt: skip
    for field in ("new_users", "login_users", "cohort_counts", "retained"):
        np.testing.assert_array_equal(getattr(got, field), getattr(expected, field))
    for field in ("n_users", "n_users_without_signup", "n_events_before_signup"):
        assert getattr(got, field) == getattr(expected, field), field
    assert got.n_users == 20 + 21  # "01" and the 20 "u" ids: users without events
