#!/usr/bin/env bash
# What benchmarks/run_all.py needs beyond this checkout's environment, made once on a
# machine (each part only where it is absent; about 8 GB of downloads the first time,
# torch's CUDA libraries twice):
#
#   DIR/torchrec  a Python with TorchRec 1.9.2 beside torch 2.14.1 (the training-loop
#                 section says why not beside this checkout's torch)
#   DIR/recbole   a Python with RecBole 1.2.1 (the retrieval section's RecBole row)
#   DIR/before    this repository at 39c7363 (before the redesign), its compiled core
#                 built, for the revisions section; DIR/before.label names it there
#
#   bash benchmarks/peer_pythons.sh [DIR]     # DIR default: .cache/peers
#   python benchmarks/run_all.py              # finds them in .cache/peers (or --peers DIR)
#
# Messages go to stderr; stdout gets DIR.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:-$root/.cache/peers}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
py="${PYTHON:-$root/.venv/bin/python}"  # the checkout's (its pip builds the old core)
before=39c7363

made() {  # made NAME MODULE: whether DIR/NAME is a Python that imports MODULE
    [ -x "$dir/$1/bin/python" ] && "$dir/$1/bin/python" -c "import $2" 2>/dev/null
}

if ! made torchrec torchrec; then
    echo "== $dir/torchrec: torch 2.14.1, fbgemm-gpu-cpu 1.9.0, torchmetrics 1.0.3, torchrec 1.9.2" >&2
    rm -rf "$dir/torchrec"
    "$py" -m venv "$dir/torchrec"
    "$dir/torchrec/bin/pip" install -q torch==2.14.1 fbgemm-gpu-cpu==1.9.0 torchmetrics==1.0.3 \
        tensordict tqdm pyre-extensions numpy pyarrow >&2
    # torchrec requires the CUDA fbgemm-gpu: the CPU build above stands in for it
    "$dir/torchrec/bin/pip" install -q --no-deps torchrec==1.9.2 >&2
    made torchrec torchrec || { echo "$dir/torchrec: torchrec does not import" >&2; exit 1; }
fi

if ! made recbole recbole; then
    echo "== $dir/recbole: torch 2.14.1, recbole 1.2.1" >&2
    rm -rf "$dir/recbole"
    "$py" -m venv "$dir/recbole"
    "$dir/recbole/bin/pip" install -q torch==2.14.1 recbole==1.2.1 pyarrow >&2
    made recbole recbole || { echo "$dir/recbole: recbole does not import" >&2; exit 1; }
fi

if [ ! -f "$dir/before/src/receval/_core.abi3.so" ]; then
    echo "== $dir/before: $before, its compiled core built (a few minutes)" >&2
    rm -rf "$dir/before" "$dir/wheel"
    mkdir -p "$dir/before"
    git -C "$root" archive "$before" | tar -x -C "$dir/before"
    "$py" -m pip wheel -q --no-deps -w "$dir/wheel" "$dir/before" >&2
    "$py" - "$dir" <<'PY'
import glob, sys, zipfile

out = sys.argv[1]
(wheel,) = glob.glob(f"{out}/wheel/receval-*.whl")
with zipfile.ZipFile(wheel) as z:
    (core,) = [n for n in z.namelist() if n.startswith("receval/_core") and n.endswith(".so")]
    with open(f"{out}/before/src/receval/_core.abi3.so", "wb") as fh:
        fh.write(z.read(core))
PY
    rm -rf "$dir/wheel"
    echo "$before (before the redesign)" > "$dir/before.label"
fi
echo "$dir"
