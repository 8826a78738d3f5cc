"""Train the fist / open palm / pointing model on the real keypoints and write its weights.

    .venv/bin/python scripts/train_hand_shapes.py [--out PATH] [--check]

Reads $MAFVAR_SHARED/data/hands/keypoints/keypoint.csv (default
<repo>/../shared; the data stay there), fits vision.hands.shape_model on every
row and writes vision/hands/shape_model.json. Deterministic on one machine:
the same data give the same file; another CPU may differ in the last digits
(scripts/shape_model_noise.py measures by how much). --check writes nothing
and exits 1 when the committed file differs from what training gives now by
more than that noise. Honest accuracy (rows the model
did not train on) is scripts/eval_hands.py's cross-validated figure.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.hands.evaluate import keypoints_csv, load_shape_training_rows  # noqa: E402
from vision.hands.shape_model import MODEL_PATH  # noqa: E402
from vision.training.shape_fit import train_shape_model, weights_disagreement  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=MODEL_PATH, help=f"where to write the weights (default {MODEL_PATH})")
    parser.add_argument("--check", action="store_true", help="compare with the committed weights instead of writing")
    args = parser.parse_args(argv)
    try:
        landmarks, labels = load_shape_training_rows()
    except (FileNotFoundError, OSError) as exc:
        print(f"train_hand_shapes: error: {exc} (set MAFVAR_SHARED)", file=sys.stderr)
        return 2
    model = train_shape_model(landmarks, labels)
    if args.check:
        committed = json.loads(MODEL_PATH.read_text())
        why = weights_disagreement(json.loads(json.dumps(model.to_dict())), committed)
        print(f"{MODEL_PATH}: " + ("reproduced (within the training's float noise across CPUs)" if why is None
                                   else f"DIFFERS from a fresh training ({why})"))
        return 0 if why is None else 1
    model.save(args.out)
    print(f"trained on {model.trained_rows} rows of {keypoints_csv()} (l2 {model.l2}); wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
