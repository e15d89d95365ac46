"""The checks of the ranking aggregation over all the users (missing_users="error",
empty_users="error", ids that match nothing, exclusions that name nothing, ties a peer
orders by no rule) name the function the user called: evaluate, a ranking accumulator
(receval.metric) or evaluate_embeddings."""

from __future__ import annotations

import numpy as np
import pytest

import receval
from receval.exceptions import InputValidationError, TieOrderWarning, UnmatchedIdsWarning

QRELS = {"a": {"x": 1, "y": 1}, "b": {"x": 0}, "c": {"z": 1}}
RUN = {"a": {"x": 0.9, "y": 0.9, "z": 0.1}, "b": {"x": 0.5, "y": 0.5}}
PREFIXED = {f"p_{user}": items for user, items in RUN.items()}

#: (options, run, what is said) of each check
CASES = {
    "missing_users": ({"missing_users": "error"}, RUN, InputValidationError),
    "empty_users": ({"empty_users": "error", "missing_users": "skip"}, RUN, InputValidationError),
    "unmatched_ids": ({}, PREFIXED, InputValidationError),
    "exclude": ({"exclude": {"zz": ["q"]}}, RUN, UnmatchedIdsWarning),
    "ties": ({"profile": "recbole"}, RUN, TieOrderWarning),
}


def _said(call, category) -> str:
    """The message of ``call``'s error, or of its one warning, of ``category``."""
    if issubclass(category, Warning):
        with pytest.warns(category) as caught:
            call()
        (message,) = [str(w.message) for w in caught if issubclass(w.category, category)]
        return message
    with pytest.raises(category) as info:
        call()
    return str(info.value)


@pytest.mark.parametrize("whole_groups", [False, True])
@pytest.mark.parametrize("case", sorted(CASES))
def test_an_accumulator_names_itself_where_evaluate_names_evaluate(case, whole_groups):
    # compute's messages named evaluate, which the user never called
    options, run, category = CASES[case]
    want = _said(lambda: receval.evaluate(QRELS, run, ["ndcg@10"], **options), category)
    acc = receval.metric("ndcg@10", whole_groups=whole_groups, **options).update(QRELS, run)
    got = _said(acc.compute, category)
    assert want.startswith("evaluate")
    assert got == "receval.metric('ndcg@10')" + want.removeprefix("evaluate")


@pytest.mark.parametrize("case", sorted(CASES))
def test_compute_names_itself_where_evaluate_names_evaluate(case):
    # compute ran the accumulator's definition, whose checks named receval.metric
    options, run, category = CASES[case]
    want = _said(lambda: receval.evaluate(QRELS, run, ["ndcg@10"], **options), category)
    got = _said(lambda: receval.compute("ndcg@10", QRELS, run, **options), category)
    assert want.startswith("evaluate")
    assert got == "receval.compute('ndcg@10')" + want.removeprefix("evaluate")


def test_a_window_names_compute_window():
    # it said receval.metric('ndcg@10'), whose compute the caller did not call
    acc = receval.metric("ndcg@10", window=2, missing_users="error").update(QRELS, RUN)
    with pytest.raises(InputValidationError) as info:
        acc.compute_window()
    assert str(info.value).startswith("Accumulator.compute_window of 'ndcg@10': 1 qrels user ")


def test_compute_names_itself_for_a_bad_qrels_or_run(tmp_path):
    # they named Accumulator.update, the update of the accumulator compute ran
    from receval.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError) as info:
        receval.compute("ndcg@10", QRELS, 5)
    assert str(info.value) == (
        "The 'run' parameter of receval.compute('ndcg@10') must be a Run, a dict {user: "
        "{item: score}}, a DataFrame or a file path. Got int instead."
    )
    path = tmp_path / "qrels"
    path.write_text("user,item,grade\nu1,a,1\n")
    with pytest.raises(InputValidationError) as info:
        receval.compute("ndcg@10", path, RUN)
    assert str(info.value).startswith(
        f"receval.compute('ndcg@10'): qrels: cannot tell the format of {str(path)!r}; "
    )


def test_compute_names_itself_for_an_option():
    from receval.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError) as info:
        receval.compute("ndcg@10", QRELS, RUN, gain="cubic")
    assert str(info.value).startswith("The 'gain' parameter of receval.compute('ndcg@10') must ")
    with pytest.raises(InvalidParameterError) as info:
        receval.compute("gauc", [1, 0], [0.5, 0.2], groups=[1, 1], eps=1e-3)
    assert str(info.value).startswith("receval.compute('gauc') takes no option 'eps'; ")


# two users, three items; items 0 and 1 tie for user 0
USERS = np.array([[1.0, 0.0], [0.0, 1.0]])
ITEMS = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
JUDGED = {0: {1: 1}, 1: {2: 1}}

#: (options, qrels, what is said) of each check of evaluate_embeddings
EMBEDDING_CASES = {
    "missing_users": ({"missing_users": "error"}, {**JUDGED, 7: {2: 1}}, InputValidationError),
    "empty_users": ({"empty_users": "error"}, {**JUDGED, 1: {2: 0}}, InputValidationError),
    "ties": ({"profile": "recbole"}, JUDGED, TieOrderWarning),
}


@pytest.mark.parametrize("case", sorted(EMBEDDING_CASES))
def test_evaluate_embeddings_names_itself_where_evaluate_names_evaluate(case):
    options, qrels, category = EMBEDDING_CASES[case]
    lists = receval.retrieve(USERS, ITEMS, k=3)  # every item: no tie cut at the k-th
    want = _said(lambda: receval.evaluate(qrels, lists, ["ndcg@3"], **options), category)
    got = _said(
        lambda: receval.evaluate_embeddings(qrels, USERS, ITEMS, ["ndcg@3"], **options), category
    )
    assert want.startswith("evaluate")
    assert got == "evaluate_embeddings" + want.removeprefix("evaluate")


def test_the_setup_checks_name_the_accumulator():
    # "pass qrels to evaluate" and the popularity checks named evaluate
    from receval.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError) as info:
        receval.metric("ndcg@3").update(None, RUN).compute()
    assert str(info.value).startswith(
        "receval.metric('ndcg@3'): metric 'ndcg@3' needs relevance judgments; pass qrels "
    )
    with pytest.raises(InputValidationError, match=r"^receval.metric\('arp@3'\): popularity"):
        receval.metric("arp@3", popularity={"x": -1})


@pytest.mark.parametrize("backend", ["pandas", "polars", "pyarrow"])
def test_a_qrels_frame_without_grades_holds_judged_pairs_everywhere(backend):
    # evaluate refused it ("pass grade='<column name>'", a keyword it does not take)
    # while the popularity and overlap metrics read it as grades of 1: one reading now
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    columns = {"user": ["u1", "u1", "u2"], "item": ["a", "b", "c"]}
    frame = {"pandas": pd.DataFrame, "polars": pl.DataFrame, "pyarrow": pa.table}[backend](columns)
    run = {"u1": {"a": 0.9, "x": 0.5}, "u2": {"y": 0.8, "c": 0.1}}
    graded = {"u1": {"a": 1, "b": 1}, "u2": {"c": 1}}
    assert receval.evaluate(frame, run, ["ndcg@2", "mrr"]).mean == (
        receval.evaluate(graded, run, ["ndcg@2", "mrr"]).mean
    )


@pytest.mark.parametrize(
    ("qrels", "run", "said"),
    [
        ({}, RUN, "evaluate: qrels: users is empty; "),
        (QRELS, {"a": 5}, "evaluate: run: the value of user 'a' must be a mapping "),
        (QRELS, {"a": {"x": float("nan")}}, "evaluate: run: scores contains NaN or infinity"),
        ({"a": {"x": "high"}}, RUN, "evaluate: qrels: grades must be numeric. "),
    ],
)
def test_a_bad_qrels_or_run_names_evaluate_and_its_argument(qrels, run, said):
    # they named the container the argument was read into ("Run.from_dict: ...",
    # "Qrels: users is empty"), which the caller never called
    with pytest.raises(InputValidationError) as info:
        receval.evaluate(qrels, run, ["ndcg@10"])
    assert str(info.value).startswith(said)


def test_a_bad_qrels_frame_names_evaluate_and_its_argument():
    import pandas as pd

    frame = pd.DataFrame({"user": ["a"], "item": ["x"], "grade": ["high"]})
    with pytest.raises(InputValidationError, match=r"^evaluate: qrels: grades must be numeric"):
        receval.evaluate(frame, RUN, ["ndcg@10"])


@pytest.mark.parametrize(
    ("call", "func"),
    [
        (lambda q, r: receval.evaluate(q, r, ["ndcg@10"]), "evaluate"),
        (lambda q, r: receval.compute("ndcg@10", q, r), "receval.compute('ndcg@10')"),
        (lambda q, r: receval.metric("ndcg@10").update(q, r), "Accumulator.update of 'ndcg@10'"),
    ],
)
def test_a_frame_without_its_column_names_a_fix_the_caller_takes(call, func):
    # evaluate takes no score= (nor user=, item=, grade=): the frame's reader does
    pd = pytest.importorskip("pandas")
    qrels = pd.DataFrame({"user": ["a"], "item": ["x"], "grade": [1]})
    run = pd.DataFrame({"user": ["a", "a"], "item": ["x", "y"], "prob": [0.9, 0.2]})
    with pytest.raises(InputValidationError) as info:
        call(qrels, run)
    assert str(info.value) == (
        f"{func}: run: the data has no column 'score' (the score column). Got columns "
        f"['user', 'item', 'prob']; pass run=receval.Run.from_frame(run, score='<column name>')."
    )
    with pytest.raises(InputValidationError) as info:
        call(qrels.rename(columns={"user": "uid"}), run.rename(columns={"prob": "score"}))
    assert str(info.value).endswith(
        "; pass qrels=receval.Qrels.from_frame(qrels, user='<column name>')."
    )
    fixed = receval.Run.from_frame(run, score="prob")  # the fix named: it runs
    call(qrels, fixed)


def _sampled_report(**options):
    sets = receval.Candidates.from_dict({u: ["x", "y", "z"] for u in QRELS}, catalog_size=10)
    return receval.sampled_report(QRELS, RUN, ["ndcg@1"], candidates=sets, corrections="bv",
                                  **options)  # fmt: skip


def _metric_at_k_figure(**options):
    from receval.report.interactive import metric_at_k_figure

    return metric_at_k_figure(QRELS, {"A": RUN}, metrics=["ndcg"], ks=[1], **options)


def _gate(**options):
    rule = {"metric": "ndcg@1", "rule": "non_inferiority", "margin": 0.1}
    return receval.gate({"A": RUN}, {"B": RUN}, [rule], qrels=QRELS, **options)


#: the public functions that evaluate runs through evaluate, each called with ``options``
CALLERS = {
    "compare": lambda **options: receval.compare(
        QRELS, {"A": RUN, "B": RUN}, ["ndcg@1"], **options
    ),
    "compare_by_segment": lambda **options: receval.compare_by_segment(
        QRELS, {"A": RUN, "B": RUN}, ["ndcg@1"], by={u: "s" for u in QRELS}, **options
    ),
    "gate": _gate,
    "metric_at_k_figure": _metric_at_k_figure,
    "sampled_report": _sampled_report,
}


@pytest.mark.parametrize("caller", sorted(CALLERS))
def test_a_function_that_evaluates_names_itself_where_evaluate_names_evaluate(caller):
    # compare, gate, sampled_report, ... said "evaluate: 1 qrels user is absent ..."
    options = {"missing_users": "error"}
    want = _said(lambda: receval.evaluate(QRELS, RUN, ["ndcg@1"], **options), InputValidationError)
    got = _said(lambda: CALLERS[caller](**options), InputValidationError)
    assert want.startswith("evaluate: ")
    assert got == caller + want.removeprefix("evaluate")


@pytest.mark.parametrize("caller", sorted(CALLERS))
def test_a_bad_option_of_evaluate_names_the_function_called(caller):
    # "The 'min_match' parameter of evaluate ..." (compare_by_segment takes no min_match)
    from receval.exceptions import InvalidParameterError

    if caller == "compare_by_segment":
        options, said = {"ties": "bogus"}, "The 'ties' parameter of compare_by_segment must be"
    else:
        options, said = {"min_match": 2.0}, f"The 'min_match' parameter of {caller} must be"
    with pytest.raises(InvalidParameterError) as info:
        CALLERS[caller](**options)
    assert str(info.value).startswith(said)


def test_compare_names_itself_for_a_bad_tie_rule():
    from receval.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError) as info:
        receval.compare(QRELS, {"A": RUN, "B": RUN}, ["ndcg@1"], ties="bogus")
    assert str(info.value) == (
        "The 'ties' parameter of compare must be one of ['average', 'id_ascending', "
        "'id_descending', 'input', 'trec', 'worst']. Got 'bogus' instead."
    )


def test_a_metric_function_names_itself_where_evaluate_names_evaluate():
    # ndcg_at_k said "evaluate: metric 'ndcg@1' has empty_users='error', ..."
    with pytest.raises(InputValidationError) as info:
        receval.ndcg_at_k([["x", "y"], ["x"]], [["x"], []], k=1, empty_users="error")
    assert str(info.value).startswith("ndcg_at_k: metric 'ndcg@1' has empty_users='error'")


def test_the_plot_of_metrics_at_k_names_itself():
    pytest.importorskip("matplotlib")
    from receval.exceptions import InvalidParameterError
    from receval.plot import metric_at_k

    with pytest.raises(InvalidParameterError) as info:
        metric_at_k(QRELS, {"A": RUN}, metrics=["ndcg"], ks=[1], min_match=2.0)
    assert str(info.value).startswith("The 'min_match' parameter of metric_at_k must be")


def test_evaluate_embeddings_names_itself_for_an_unknown_option():
    # evaluate raised a raw TypeError: "evaluate() got an unexpected keyword argument"
    from receval.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError) as info:
        receval.evaluate_embeddings(JUDGED, USERS, ITEMS, ["ndcg@3"], tiess="average")
    assert str(info.value) == (
        "evaluate_embeddings: got an unknown keyword argument 'tiess'; expected one of "
        "['allow_unmatched', 'ap_normalizer', 'candidates', 'catalog_size', 'correction', "
        "...]. "
        "Did you mean 'ties'?"
    )


def test_evaluate_embeddings_names_itself_for_a_keyword_named_as_an_argument():
    # it was a raw TypeError: "evaluate_as() got multiple values for argument 'func'"
    from receval.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError) as info:
        receval.evaluate_embeddings(JUDGED, USERS, ITEMS, ["ndcg@3"], func="f")
    assert str(info.value).startswith(
        "evaluate_embeddings: got an unknown keyword argument 'func'; expected one of "
    )
