"""Checks of what the inputs share: ids of one type, test interactions already in
train, users and items that train never saw, and repeated (user, item) rows.

- ``id_types``: the ids of a role (users, items) are of two types (integers in
  one input and strings in another), and (almost) none matches: receval matches an integer 7
  with the string ``"7"`` (then there is no finding), but ``"07"``, ``"7.0"`` or
  ``"u7"`` match nothing;
- ``test_in_train``: a test interaction whose (user, item) pair is in train,
  when repeats were not declared;
- ``cold_users`` / ``cold_items``: test users absent from train, test items
  never seen in train, and their share of the test;
- ``duplicates``: (user, item) pairs on more than one row of an input.
"""

from __future__ import annotations

import numpy as np

from .._parameters import counted, of_the
from ..data._lookup import distinct, id_kind, id_type_mismatch, isin_ints
from .inputs import Rows
from .report import Finding, example_value, no_id_matches

__all__ = ["cold_findings", "duplicate_findings", "id_type_findings", "test_in_train_findings"]


def id_type_findings(inputs: list[Rows], limit: int) -> list[Finding]:
    """A finding per role and pair of inputs whose ids are of two types and (almost)
    never match (:func:`~receval.data._lookup.id_type_mismatch`)."""
    out: list[Finding] = []
    for role in ("user", "item"):
        for i, first in enumerate(inputs):
            for second in inputs[i + 1 :]:
                a, b = getattr(first, f"{role}_ids"), getattr(second, f"{role}_ids")
                matched = id_type_mismatch(b, a)
                if matched is None:
                    continue  # one type, or they match as text, as evaluate matches them
                kinds = (id_kind(a), id_kind(b))
                where = f"{first.name}/{second.name}"
                examples = [
                    {"input": first.name, "id": x, "type": kinds[0]} for x in a[:limit].tolist()
                ] + [{"input": second.name, "id": x, "type": kinds[1]} for x in b[:limit].tolist()]
                message = (
                    f"{role} ids are {kinds[0]}s in {first.name} and {kinds[1]}s in "
                    f"{second.name}, and {'' if matched == 0 else 'only '}"
                    f"{of_the(matched, len(b), f'{second.name} {role} id', then='matches')} "
                    f"a {first.name} id (an integer 7 matches '7', not '07', '7.0' "
                    f"or 'u7')."
                )
                fix = (
                    f"give the {role} ids one type and one spelling in every input (e.g. "
                    f".astype(str), or .astype(int) on numeric strings; a prefix removed)."
                )
                out.append(
                    Finding(
                        "id_types",
                        "error",
                        where,
                        len(b) - matched,
                        len(b),
                        f"{second.name} {role} ids",
                        message,
                        fix,
                        examples,
                        {
                            "role": role,
                            "types": dict(zip((first.name, second.name), kinds, strict=True)),
                        },
                    )
                )
    return out


def test_in_train_findings(train: Rows, test: Rows, n_items: int, limit: int) -> list[Finding]:
    """Test interactions whose (user, item) pair is in train (repeats not declared)."""
    inside = isin_ints(test.pair_keys(n_items), train.distinct_keys(n_items))
    rows = np.flatnonzero(inside)
    if not len(rows):
        return []
    users = len(distinct(test.shared_users()[rows]))
    return [
        Finding(
            "test_in_train",
            "error",
            "train/test",
            len(rows),
            test.n_rows,
            "test rows",
            f"test interactions whose (user, item) pair is in train: {len(rows):,} of "
            f"{test.n_rows:,}, of {counted(users, 'user')}.",
            "drop them from test (split after removing repeated interactions), or declare "
            "repeat consumption with repeats=True when items may recur.",
            [test.example(int(r)) for r in rows[:limit]],
            {"n_users": users},
        )
    ]


def cold_findings(train: Rows, test: Rows, n_users: int, n_items: int, limit: int) -> list[Finding]:
    """Test users absent from train, and test rows whose item train never saw."""
    out: list[Finding] = []
    test_users = test.shared_users()
    cold_user = ~train.has("user", n_users)
    test_user_codes = np.flatnonzero(test.has("user", n_users))
    cold = test_user_codes[cold_user[test_user_codes]]
    if len(cold):
        rows = cold_user[test_users]
        first = np.flatnonzero(rows)
        shown, seen = [], set()
        for r in first:
            u = int(test_users[r])
            if u not in seen:
                seen.add(u)
                shown.append({"user": example_value(test.user_ids[test.users[r]])})
            if len(shown) == limit:
                break
        everyone = len(cold) == len(test_user_codes)
        out.append(
            Finding(
                "cold_users",
                "error" if everyone else "info",
                "train/test",
                len(cold),
                len(test_user_codes),
                "test users",
                f"test users without a training interaction: {len(cold):,} of "
                f"{len(test_user_codes):,} ({len(cold) / len(test_user_codes):.1%}; "
                f"{counted(int(rows.sum()), 'test row')})"
                + ("; no test user matches a training user." if everyone else "."),
                no_id_matches("user")
                if everyone
                else "report cold users apart (receval.by_segment), or leave them out of test "
                "when the model cannot score them.",
                shown,
                {"n_rows": int(rows.sum())},
            )
        )
    test_items = test.shared_items()
    unseen = ~train.has("item", n_items)[test_items]
    if unseen.any():
        rows = np.flatnonzero(unseen)
        n_cold_items = len(distinct(test_items[rows]))
        everything = len(rows) == test.n_rows
        out.append(
            Finding(
                "cold_items",
                "error" if everything else "info",
                "train/test",
                len(rows),
                test.n_rows,
                "test rows",
                f"test interactions with items never seen in training: {len(rows):,} of "
                f"{test.n_rows:,} ({len(rows) / test.n_rows:.1%}; "
                f"{counted(n_cold_items, 'item')})"
                + ("; no test item matches a training item." if everything else "."),
                no_id_matches("item")
                if everything
                else "a model trained on train cannot rank these items: report them apart or "
                "filter them out of test, and say which.",
                [test.example(int(r)) for r in rows[:limit]],
                {"n_items": n_cold_items},
            )
        )
    return out


def duplicate_findings(rows: Rows, n_items: int, limit: int) -> list[Finding]:
    """(user, item) pairs on more than one row of an input: in train a note (repeated
    interactions), in test and run an error (Qrels and Run refuse them)."""
    keys = rows.pair_keys(n_items)
    if len(rows.distinct_keys(n_items)) == len(keys):
        return []
    ordered = np.sort(keys)
    twice = distinct(ordered[1:][ordered[1:] == ordered[:-1]])
    held = np.flatnonzero(isin_ints(keys, twice))  # the rows of repeated pairs, in order
    order = np.argsort(keys[held], kind="stable")
    again = np.zeros(len(held), dtype=bool)
    again[order[1:]] = keys[held][order[1:]] == keys[held][order[:-1]]
    repeated = held[again]
    pairs = len(distinct(keys[repeated]))
    severity = "info" if rows.name == "train" else "error"
    fix = (
        "nothing, if repeated interactions are meant (popularity from train counts users, "
        "not rows); else drop them, e.g. keep each pair's last interaction."
        if rows.name == "train"
        else "keep one row per (user, item) pair, e.g. the highest score or the latest interaction."
    )
    return [
        Finding(
            "duplicates",
            severity,
            rows.name,
            len(repeated),
            rows.n_rows,
            f"{rows.name} rows",
            f"{rows.name} rows repeating an earlier row's (user, item) pair: "
            f"{len(repeated):,} of {rows.n_rows:,} ({counted(pairs, 'pair')}).",
            fix,
            [rows.example(int(r), row=int(r)) for r in repeated[:limit]],
            {"n_pairs": pairs},
        )
    ]
