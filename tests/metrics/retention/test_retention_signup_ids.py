"""Retention's signup ids against the events' ids (matched as evaluate matches ids, a
mix-up of types refused), and ``time_unit`` read for the signup times too."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import receval
from receval import retention
from receval.exceptions import InputValidationError

JAN1 = 1704067200  # 2024-01-01T00:00:00Z
DAY = 86400
# users 1 and 2 on day 0, user 1 again on day 1, user 3 on day 1
EVENTS = {"user": [1, 1, 2, 3], "time": [JAN1, JAN1 + DAY, JAN1, JAN1 + DAY]}


def _same(a, b):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize(
    "signup",
    [
        {"u1": JAN1 + DAY, "u2": JAN1 + DAY},
        {"01": JAN1 + DAY},
        {"1.0": JAN1 + DAY},
        pd.Series({"u1": JAN1 + DAY}),
        pd.DataFrame({"user": ["u1", "u3"], "signup": [JAN1 + DAY, JAN1]}),
    ],
    ids=["prefixed", "zero-padded", "float text", "series", "table"],
)
def test_signup_ids_of_another_type_that_match_no_user_are_refused(signup):
    # each would be a new user without events, and users 1 to 3 would have no signup
    with pytest.raises(InputValidationError) as caught:
        retention(EVENTS, signup=signup, days=1)
    message = str(caught.value)
    assert message.startswith("retention: none of the ")
    assert "signup user" in message and "is a user of the events (0.0%), e.g. signup users [" in (
        message
    )
    assert "event users [1, 2, 3] (the signup's are str, the events' int64: an integer id " in (
        message
    )
    assert message.endswith("; give the user ids of signup and events one type and one spelling.")


def test_integer_signup_ids_against_string_events_are_refused():
    events = {"user": ["u1", "u1", "u2"], "time": [JAN1, JAN1 + DAY, JAN1]}
    with pytest.raises(InputValidationError, match=r"the signup's are int64, the events' str"):
        retention(events, signup={1: JAN1 + DAY}, days=1)


def test_the_refusal_is_that_of_the_accumulator_too():
    acc = receval.metric("retention", days=1)
    with pytest.raises(InputValidationError, match="none of the 1 signup user is a user of"):
        acc.update(EVENTS, signup={"u1": JAN1 + DAY})


MIXED = (
    "retention: signup users must hold ids of one type (numbers or strings, not both). Got "
    "types ['int', 'str']; convert them, e.g. all to str."
)


@pytest.mark.parametrize(
    "signup",
    [
        {1: JAN1 + DAY, "b": JAN1},
        pd.Series({1: JAN1 + DAY, "b": JAN1}),
        pd.DataFrame({"user": pd.Series([1, "b"], dtype=object), "signup": [JAN1 + DAY, JAN1]}),
    ],
    ids=["mapping", "series", "table"],
)
def test_signup_ids_of_two_types_are_refused_as_the_events_are(signup):
    # the keys were all read as strings ("1" matched user 1, "b" a new user)
    with pytest.raises(InputValidationError) as caught:
        retention(EVENTS, signup=signup, days=1)
    assert str(caught.value) == MIXED
    with pytest.raises(InputValidationError) as events_caught:
        retention(pd.DataFrame({"user": [1, "b"], "time": [JAN1, JAN1]}), days=1)
    # the events' message, up to the fix (code there: user = user.astype(str))
    same = MIXED.replace("signup users", "user").partition("; ")[0]
    assert str(events_caught.value).partition("; ")[0] == same


def test_the_accumulator_refuses_signup_ids_of_two_types():
    acc = receval.metric("retention", days=1)
    with pytest.raises(InputValidationError) as caught:
        acc.update(EVENTS, signup={1: JAN1 + DAY, "b": JAN1})
    assert str(caught.value) == MIXED.replace("retention:", "Accumulator.update of 'retention':")


def test_repeated_signup_rows_count_once_in_the_refusal():
    signup = pd.DataFrame({"user": ["u1", "u1", "u2"], "signup": [JAN1, JAN1, JAN1]})
    with pytest.raises(InputValidationError, match=r"none of the 2 signup users is a user"):
        retention(EVENTS, signup=signup, days=1)


@pytest.mark.parametrize(
    "signup",
    [{1: JAN1 + DAY}, {"1": JAN1 + DAY}, {1.0: JAN1 + DAY}, {np.int32(1): JAN1 + DAY}],
    ids=["int", "digits", "whole float", "int32"],
)
def test_signup_ids_of_the_same_value_match_whatever_their_type(signup):
    # user 1 signs up on day 1: new there, its day-0 event is before the signup
    report = retention(EVENTS, signup=signup, days=1)
    _same(report.new_users, [1, 2])  # day 0: 2; day 1: 1 and 3
    assert report.n_events_before_signup == 1
    assert report.n_users_without_signup == 2 and report.n_users == 3


def test_integers_written_as_text_may_name_users_without_events():
    # the keys of a mapping read from JSON: strings of integers, most of them users
    # without any event (not an id mix-up: "7" is the integer 7)
    signup = {str(u): JAN1 + DAY for u in range(1, 41)}
    report = retention(EVENTS, signup=signup, days=1)
    _same(report.new_users, [0, 40])
    assert report.n_users == 40 and report.n_users_without_signup == 0


def test_integer_ids_held_as_objects_are_integers():
    # a pandas column of Python ints (dtype object) against integer signup ids of
    # users without events: one type, no mix-up
    events = pd.DataFrame(
        {"user": pd.Series([1, 1, 2], dtype=object), "time": [JAN1, JAN1 + DAY, JAN1]}
    )
    report = retention(events, signup={5: JAN1, 6: JAN1}, days=1)
    _same(report.new_users, [4, 0])
    assert report.n_users == 4


def test_a_few_matching_ids_of_another_type_are_not_enough():
    # 1 of 11 string ids is a user of the events (9.1%, below 10%)
    signup = {"1": JAN1, **{f"u{i}": JAN1 for i in range(10)}}
    with pytest.raises(InputValidationError, match=r"1 of the 11 signup users is a user of the "
                       r"events \(9\.1%\)"):  # fmt: skip
        retention(EVENTS, signup=signup, days=1)
    signup = {"1": JAN1, "2": JAN1, **{f"u{i}": JAN1 for i in range(10)}}  # 2 of 12: kept
    assert retention(EVENTS, signup=signup, days=1).n_users == 13


# ---------------------------------------------------------------- time_unit
def test_time_unit_applies_to_signup_times():
    events = {"user": [1, 1, 2], "time": [1000 * JAN1, 1000 * (JAN1 + DAY), 1000 * JAN1]}
    in_ms = retention(events, signup={1: 1000 * (JAN1 + DAY)}, days=1, time_unit="ms")
    _same(in_ms.new_users, [1, 1])  # user 1 signed up on day 1
    assert in_ms.n_users_signup_before_window == 0
    # the same number of seconds read as milliseconds: January 1970, before the window
    in_s = retention(events, signup={1: JAN1 + DAY}, days=1, time_unit="ms")
    _same(in_s.new_users, [1, 0])
    assert in_s.n_users_signup_before_window == 1


def test_without_time_unit_each_column_has_its_own_unit():
    events = {"user": [1, 1, 2], "time": [JAN1, JAN1 + DAY, JAN1]}  # seconds
    report = retention(events, signup={1: 1000 * (JAN1 + DAY)}, days=1)  # milliseconds
    _same(report.new_users, [1, 1])


def test_time_unit_with_signup_strings_is_refused():
    with pytest.raises(receval.exceptions.InvalidParameterError, match="when signup holds str"):
        retention(EVENTS, signup={1: "2024-01-02"}, days=1, time_unit="s")


def test_the_docs_say_that_time_unit_applies_to_signup_times():
    doc = " ".join((retention.__doc__ or "").split())
    assert "Unit of the epoch numbers of the event times and of the signup times" in doc
    assert "Must be None when the event or the signup times are datetimes or strings." in doc
