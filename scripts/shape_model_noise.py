"""How much the hand shape model's weights move when only float order changes.

    .venv/bin/python scripts/shape_model_noise.py

Retrains vision.hands.shape_model on the real keypoints (as
scripts/train_hand_shapes.py does) under several OpenBLAS kernels
(OPENBLAS_CORETYPE, what another CPU would pick), with one and two BLAS
threads, and on the rows in shuffled order, and prints for each the largest
change of the stored numbers against the committed file, absolute and
relative, and whether every prediction on the training rows stays the same.
The tolerance of tests/hands/test_hands_shape_model.py comes from these figures.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

ONE = r"""
import json, sys
import numpy as np
from vision.hands.evaluate import load_shape_training_rows
from vision.hands.shape_model import MODEL_PATH, ShapeModel
from vision.training.shape_fit import train_shape_model
land, lab = load_shape_training_rows()
order = np.arange(len(lab)) if sys.argv[1] == "-" else np.random.default_rng(int(sys.argv[1])).permutation(len(lab))
fresh = json.loads(json.dumps(train_shape_model(land[order], lab[order]).to_dict()))
committed = json.loads(MODEL_PATH.read_text())
flat = lambda d: np.concatenate([np.ravel(d[k]) for k in ("mean", "scale", "weights", "bias")])
a, b = flat(fresh), flat(committed)
same = (ShapeModel.from_dict(fresh).probabilities(land).argmax(1) == ShapeModel.from_dict(committed).probabilities(land).argmax(1)).all()
print(json.dumps({"abs": float(np.abs(a - b).max()), "rel": float((np.abs(a - b) / np.maximum(np.abs(b), 1e-12)).max()),
                  "same_predictions": bool(same)}))
"""


def run(coretype: str | None, threads: int, order: str) -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), PYTHONPATH=str(ROOT))
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    out = subprocess.run([sys.executable, "-c", ONE, order], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    rows = []
    for coretype in (None, "Haswell", "Sandybridge", "Nehalem", "Prescott"):
        for threads in (1, 2):
            for order in ("-", "1"):
                r = run(coretype, threads, order)
                rows.append(r)
                print(f"kernel {coretype or 'default':<11} threads {threads} rows {'file order' if order == '-' else 'shuffled':<10} "
                      f"max change {r['abs']:.2g} (relative {r['rel']:.2g}); predictions "
                      f"{'the same' if r['same_predictions'] else 'DIFFER'}")
    print(f"largest: {max(r['abs'] for r in rows):.2g} absolute, {max(r['rel'] for r in rows):.2g} relative; "
          f"predictions the same in {sum(r['same_predictions'] for r in rows)} of {len(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
