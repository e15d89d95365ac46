"""Evaluate two CTR models on the bundled synthetic impression log.

Run: python examples/ctr_report.py
"""

import time

import receval
from receval.datasets import make_impressions


def main() -> None:
    log = make_impressions(n_users=20_000, seed=0)
    y, users = log["click"], log["user"]
    print(f"{len(y):,} impressions, {len(set(users)):,} users, CTR {y.mean():.4f}\n")
    header = (
        f"{'model':<8} {'auc':>8} {'gauc':>8} {'logloss':>8} {'pcoc':>8} "
        f"{'ap':>8} {'pr_auc':>8} {'bep':>8} {'ece':>8} {'seconds':>8}"
    )
    print(header)
    print("-" * len(header))
    for model in ("model_a", "model_b"):
        p = log[model]
        start = time.perf_counter()
        report = receval.group_auc(y, p, groups=users)
        row = [
            receval.roc_auc_score(y, p),
            report.score,
            receval.log_loss(y, p),
            receval.pcoc(y, p),
            receval.average_precision_score(y, p),
            receval.pr_auc_score(y, p),
            receval.break_even_point(y, p),
            receval.expected_calibration_error(y, p, n_bins=20),
        ]
        elapsed = time.perf_counter() - start
        print(f"{model:<8} " + " ".join(f"{v:8.4f}" for v in row) + f" {elapsed:8.3f}")
    print(
        f"\nGAUC skipped {report.n_groups_skipped:,} of {report.n_groups:,} users "
        f"({report.n_rows_skipped:,} impressions) with a single class."
    )


if __name__ == "__main__":
    main()
