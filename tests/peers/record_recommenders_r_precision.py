"""Record Microsoft Recommenders' ``r_precision_at_k`` where it answers 0.0 or nan.

``r_precision_at_k`` averages, over the users with a relevant item in their top k,
the relevant items in the top min(R, k) over R, leaving out (nan) a user whose
relevant items all lie below rank R: 0.0 when no user has a relevant item in the top
k, nan when every such user is left out. These small cases (one to four users, few
relevant items, short lists) hit those branches often; ``record_recbole_recommenders.py``
records the metric on larger cases. The test suite reads
``data/recorded_recommenders_r_precision.json`` (``test_profiles.py``). pytest
collects no test from this file; ``--doctest-modules`` imports it, which needs only
the standard library. It does not import receval.

Regenerate (from the repository root)::

    python3 -m venv /tmp/rc-venv
    /tmp/rc-venv/bin/pip install "pandas==2.2.3" numpy scikit-learn
    /tmp/rc-venv/bin/pip install --no-deps "recommenders==1.2.1"
    /tmp/rc-venv/bin/python tests/peers/record_recommenders_r_precision.py

Each case: ``true`` rows [user, item] (every row relevant, as in Recommenders),
``pred`` rows [user, item, prediction] with distinct predictions (no tie), and
``r_precision_at_k`` for k in ``KS`` (null for nan).
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "data" / "recorded_recommenders_r_precision.json"
KS = (1, 2, 3, 5)
SEEDS = range(40)
# sha256 of recommenders/evaluation/python_evaluation.py at tag 1.2.1 (5c862afa)
SOURCE_SHA256 = "6b13fdbd86db06fa46f93f817867b265b32c5d1f0251edd228ce4d663a7eab3d"
# the case of the report: one relevant item, at rank 2 of the list
FIXED = {"id": "one_user_hit_below_r", "true": [[1, 10]], "pred": [[1, 20, 0.9], [1, 10, 0.5]]}


def make_case(seed: int) -> dict:
    import numpy as np

    rng = np.random.default_rng(seed)
    true: list[list] = []
    pred: list[list] = []
    for user in range(1, int(rng.integers(1, 5)) + 1):
        relevant = rng.choice(np.arange(1, 13), size=int(rng.integers(1, 4)), replace=False)
        true += [[user, int(i)] for i in relevant]
        if user > 1 and rng.random() < 0.15:
            continue  # a user absent from the predictions (never the first)
        items = rng.choice(np.arange(1, 13), size=int(rng.integers(1, 7)), replace=False)
        scores = rng.permutation(len(items)) + 1  # distinct
        pred += [[user, int(i), float(s)] for i, s in zip(items, scores, strict=True)]
    return {"id": f"seed_{seed}", "seed": seed, "true": true, "pred": pred}


def record(case: dict) -> dict:
    import pandas as pd
    from recommenders.evaluation.python_evaluation import r_precision_at_k

    true = pd.DataFrame(case["true"], columns=["userID", "itemID"]).assign(rating=1.0)
    pred = pd.DataFrame(case["pred"], columns=["userID", "itemID", "prediction"])
    values = {}
    for k in KS:
        value = float(r_precision_at_k(true, pred, k=k))
        values[str(k)] = None if math.isnan(value) else value
    return {**case, "r_precision_at_k": values}


def main() -> None:
    import numpy as np
    import pandas as pd
    import recommenders
    from recommenders.evaluation import python_evaluation

    digest = hashlib.sha256(Path(python_evaluation.__file__).read_bytes()).hexdigest()
    if digest != SOURCE_SHA256:
        raise SystemExit(f"python_evaluation.py is not the 1.2.1 release (sha256 {digest})")
    cases = [record(FIXED)] + [record(make_case(seed)) for seed in SEEDS]
    data = {
        "about": (
            "Microsoft Recommenders' r_precision_at_k on small cases, recorded from the real "
            "library by tests/peers/record_recommenders_r_precision.py (see its docstring); "
            "read by tests/test_profiles.py."
        ),
        "source": {
            "repo": "recommenders-team/recommenders",
            "tag": "1.2.1",
            "commit": "5c862afa751f53559b5ad98b92e098760f530ad8",
            "path": "recommenders/evaluation/python_evaluation.py",
        },
        "versions": {
            "python": sys.version.split()[0],
            "recommenders": recommenders.__version__,
            "pandas": pd.__version__,
            "numpy": np.__version__,
            "platform": platform.platform(),
        },
        "ks": list(KS),
        "cases": cases,
    }
    text = json.dumps(data, indent=1)
    OUT.write_text(text + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
