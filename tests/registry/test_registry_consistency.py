"""The registry against every entry point: each name and alias means one row
everywhere, every row's string round-trips, its paths import and its definition
agrees with it."""

import inspect
import subprocess
import sys

import numpy as np
import pytest

import receval as rv
from receval.exceptions import InvalidParameterError
from receval.registry import ENTRIES, RANKING, definitions, list_metrics, load, resolve
from receval.registry.peers import SPELLINGS
from receval.registry.pointwise import pointwise_adapter

# every name goes through every entry point here, the deprecated ones too; what they
# warn is tested where they are defined (tests/metrics/beyond/test_popularity.py,
# tests/ranking/test_ranking.py)
pytestmark = [
    pytest.mark.filterwarnings("ignore:item_coverage is deprecated:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The metric name .* means success:FutureWarning"),
]

#: an example value of each required parameter, written in a metric string
REQUIRED = {"max_fpr": "0.5", "recall": "0.5", "mult": "1"}
#: interactions of training, for the accumulators of popularity metrics
TRAIN = (["u", "v"], ["a", "b"])


def _options(entry):
    """Keyword options an accumulator of the row needs (besides its string)."""
    opts = {"max_fpr": 0.5} if any(p.name == "max_fpr" for p in entry.params) else {}
    if any(p.name == "train" for p in entry.params):
        opts["train"] = TRAIN
    return opts


def _written(entry):
    """The shortest metric string of a row: its name, required parameters, a cut-off."""
    needed = [f"{p.name}={REQUIRED[p.name]}" for p in entry.params if p.required]
    return entry.name + (f"({','.join(needed)})" if needed else "")


def _names():
    """(name as typed, canonical name): every canonical name and literal alias."""
    pairs = [(e.name, e.name) for e in ENTRIES.values()]
    pairs += [(s.spelling, s.metric.split("(")[0].split("@")[0]) for s in SPELLINGS
              if not s.pattern]  # fmt: skip
    # a bare trec_eval family (P: P_5 ... P_1000) is several metrics; P@10 is one
    return [(t + "@10" if _family(t) else t, n) for t, n in pairs]


def _family(typed):
    try:
        return len(rv.parse_metrics(typed)) > 1
    except InvalidParameterError:  # a required parameter left out
        return False


def test_importing_the_registry_imports_no_metric_module():
    code = (
        "import sys, receval.registry\n"
        "receval.registry.list_metrics(); receval.registry.parse_metric('gauc(weighting=clicks)')\n"
        "bad = [m for m in sys.modules if m.startswith(('receval.metrics', 'receval.engine',"
        " 'receval.ranking.evaluation'))]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_no_name_means_two_metrics():
    seen: dict[str, str] = {}
    for typed, name in _names():
        assert seen.setdefault(typed.lower(), name) == name, typed
    for entry in ENTRIES.values():
        for alias in entry.aliases:
            assert seen.get(alias.lower(), entry.name) == entry.name


@pytest.mark.parametrize(("typed", "name"), _names())
def test_each_name_resolves_to_one_row_through_every_entry_point(typed, name):
    entry = ENTRIES[name]
    given = {p.name for p in entry.params if p.required}
    assert resolve(typed, supplied=given).name == name
    assert rv.metric_info(typed).name == name
    if not given:
        assert rv.parse_metric(typed).name == name
    if entry.kind is not None:  # evaluate's metric strings: the ranking kernel
        from receval.registry import ranking_spec

        assert ranking_spec(typed if not given else _written(entry)).name == name
    elif entry.definition_path:  # receval.metric and compute: the row's definition
        assert rv.metric(typed, **_options(entry)).definition.name == name
    else:  # no accumulator: refused, naming the function
        with pytest.raises(InvalidParameterError, match=f"use receval.{entry.function} "):
            rv.metric(typed)
        with pytest.raises(InvalidParameterError, match="ranking metric of evaluate"):
            rv.evaluate({"u": {"a": 1}}, {"u": {"a": 1.0}}, typed)
    if entry.family in ("pointwise", "grouped") and not given:
        adapter = pointwise_adapter(resolve(typed, family=("pointwise", "grouped")))
        assert adapter.description == entry.description


@pytest.mark.parametrize("entry", list(ENTRIES.values()), ids=list(ENTRIES))
def test_canonical_string_round_trips(entry):
    spec = rv.parse_metric(_written(entry))
    assert spec.name == entry.name
    assert rv.parse_metric(str(spec)) == spec
    if entry.accepts_k:
        at = rv.parse_metric(f"{_written(entry).upper()}@7")
        assert (at.k, rv.parse_metric(str(at))) == (7, at)


@pytest.mark.parametrize(
    "text",
    ["gauc", "gauc(weighting=clicks)", "log_loss(eps=1e-07)", "ndcg(gain=exponential)@10",
     "partial_auc(max_fpr=0.1)", "r2(force_finite=false)", "roc_auc(bins=1000)",
     "shannon_entropy@10", "ips(clip=10)",
     "expected_calibration_error(n_bins=20,strategy=quantile)"],
)  # fmt: skip
def test_every_family_takes_options_in_the_string(text):
    assert str(rv.parse_metric(text)) == text


@pytest.mark.parametrize("entry", list(ENTRIES.values()), ids=list(ENTRIES))
def test_paths_import_and_take_the_rows_parameters(entry):
    function = load(entry.function_path)
    assert callable(function) and entry.function == function.__name__
    assert getattr(rv, entry.function) is function  # the public name users have
    takes = set(inspect.signature(function).parameters)
    if entry.definition_path:
        defn = definitions()["ranking" if entry.kind is not None else entry.name]
        assert defn.module == entry.definition_path
        check = inspect.signature(defn.check_params).parameters
        if not any(p.kind is p.VAR_KEYWORD for p in check.values()):
            takes |= set(check)
        else:  # the definition checks its keys itself: every row parameter is one
            takes |= {p.name for p in entry.params}
    assert {p.name for p in entry.params} <= takes
    if entry.partitionings:
        assert entry.definition_path, f"{entry.name} is listed as mergeable without a definition"


def test_definitions_read_their_facts_from_their_rows():
    for name, defn in definitions().items():
        if name == "ranking":
            continue
        row = ENTRIES[name]
        assert (defn.family, defn.higher_is_better, defn.inputs, defn.description) == (
            row.family,
            row.higher_is_better,
            row.inputs,
            row.description,
        )
        assert defn.partitioning in row.partitionings
    assert ENTRIES["pcoc"].higher_is_better is None  # 1 is best: neither direction
    assert rv.metric("pcoc").definition.higher_is_better is None
    assert rv.metric_info("log_loss").inputs == rv.metric("logloss").definition.inputs


def test_every_metric_listed_as_mergeable_has_an_accumulator():
    from receval.registry import definition

    for entry in list_metrics():
        if not entry.partitionings:
            continue
        if entry.kind is not None:  # evaluate's definition, over whole users
            assert definition(_written(entry)).name == "ranking"
        else:
            acc = rv.metric(entry.name, **_options(entry))
            assert acc.definition.name == entry.name


def test_ranking_rows_are_the_kernel_rows():
    assert list(RANKING) == [n for n, e in ENTRIES.items() if e.kind is not None]
    assert {e.family for e in RANKING.values()} == {"ranking", "list"}


def test_ap_is_map_everywhere():
    y, s = np.array([1, 0, 1, 0]), np.array([0.9, 0.8, 0.3, 0.1])
    assert rv.parse_metric("ap@10") == rv.parse_metric("map@10")
    assert rv.metric_info("AP").name == "map"
    assert rv.metric("ap@10").definition.name == "ranking"
    report = rv.evaluate({"u": {"a": 1}}, {"u": {"a": 1.0, "b": 0.5}}, "ap")
    assert report.mean["ap"] == 1.0
    scores = "the average precision of scores is 'average_precision'"
    with pytest.raises(InvalidParameterError, match=scores):
        rv.by_segment(["ap"], y, s, by=[0, 0, 1, 1])
    with pytest.raises(InvalidParameterError, match=scores):
        resolve("ap", family=("pointwise", "grouped"), where="receval ctr -m")
    with pytest.raises(InvalidParameterError, match="'ap' is map, which it does not compare"):
        rv.compare_predictions(y, {"a": s, "b": s[::-1]}, metrics=["ap"])


def test_unknown_names_get_the_closest_of_the_whole_registry():
    message = "Unknown metric 'gaux'. Did you mean 'gauc'? See receval.list_metrics()."
    for call in (
        lambda: rv.parse_metric("gaux"),
        lambda: rv.metric_info("gaux"),
        lambda: rv.metric("gaux"),
        lambda: rv.compute("gaux", [1, 0], [0.5, 0.2]),
        lambda: rv.evaluate({"u": {"a": 1}}, {"u": {"a": 1.0}}, "gaux"),
        lambda: rv.by_segment(["gaux"], [1, 0], [0.5, 0.2], by=[0, 1]),
        lambda: rv.compare_predictions(
            [1, 0], {"a": [0.5, 0.2], "b": [0.1, 0.3]}, metrics=["gaux"]
        ),
    ):
        with pytest.raises(InvalidParameterError) as err:
            call()
        assert str(err.value) == message


def test_options_of_pointwise_metrics_in_the_string_or_as_keywords():
    y, s, g = [1, 0, 1, 0, 1], [0.9, 0.2, 0.6, 0.4, 0.3], ["a", "a", "b", "b", "b"]
    expected = rv.gauc_score(y, s, groups=g, weighting="clicks")
    assert rv.compute("gauc(weighting=clicks)", y, s, groups=g) == expected
    assert rv.compute("gauc", y, s, groups=g, weighting="clicks") == expected
    assert rv.metric("log_loss(eps=1e-7)").update(y, s).compute() == rv.log_loss(y, s, eps=1e-7)
    with pytest.raises(InvalidParameterError, match=r"unknown option 'wieghting' \(did you"):
        rv.parse_metric("gauc(wieghting=clicks)")
    with pytest.raises(InvalidParameterError, match=r"takes no option 'wieghting' \(did you mean"):
        rv.metric("gauc", wieghting="clicks")
    with pytest.raises(InvalidParameterError, match="must be one of"):
        rv.parse_metric("gauc(weighting=views)")
    with pytest.raises(InvalidParameterError, match="given both in the metric string"):
        rv.metric("gauc(weighting=clicks)", weighting="uniform")
    with pytest.raises(InvalidParameterError, match="pass it as the keyword argument"):
        rv.parse_metric("roc_auc(pos_label=1)")


def test_a_list_metric_with_choices_of_its_own_keeps_the_ties_restriction():
    # before: a list metric's own choices replaced the restriction of ties
    from receval.registry.ranking import LIST_TIES, _kernel

    gain = ("gain", ("linear", "binary"))
    row = _kernel("ils", "intra-list similarity", needs="similarity", choices=(gain,))
    assert row.choices == (gain, ("ties", LIST_TIES))
    assert _kernel("ndcg", "normalised DCG", choices=(gain,)).choices == (gain,)
