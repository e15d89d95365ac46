#!/usr/bin/env bash
# Build trec_eval 10.0 (usnistgov/trec_eval at tag v10.0) for the benchmarks and the
# parity scripts: prints the path of the binary.
#
#   bash benchmarks/build_trec_eval.sh [DIR]     # DIR default: .cache/trec_eval
#   python benchmarks/bench_core.py --trec-eval "$(bash benchmarks/build_trec_eval.sh)"
set -euo pipefail
dir="${1:-$(dirname "$0")/../.cache/trec_eval}"
commit=f4253652c8efd0d86ddffd0d163cc0a0f813111a  # v10.0
if [ ! -x "$dir/trec_eval" ]; then
    rm -rf "$dir"
    git clone --quiet https://github.com/usnistgov/trec_eval.git "$dir" >&2
    git -C "$dir" checkout --quiet "$commit"
    make -C "$dir" --quiet >&2
fi
echo "$(cd "$dir" && pwd)/trec_eval"
