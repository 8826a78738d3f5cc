"""Hands: MediaPipe hand landmarks and hand-state classification from them.

detector.HandDetector finds hands in RGB images; classify.classify_hand turns
21 landmarks into a HandState, a finger count and a confidence.
"""
from vision.hands.classify import (
    HandClassification,
    HandState,
    classify_hand,
    count_fingers,
    fingertip_down,
    is_upright_thumb_fist,
    palm_flat,
    shape_scores,
    upright_thumb_fist_score,
)
from vision.hands.detector import DEFAULT_FRAMINGS, Framing, HandDetector, HandObservation, detect_hands, load_rgb

__all__ = [
    "DEFAULT_FRAMINGS",
    "Framing",
    "HandClassification",
    "HandDetector",
    "HandObservation",
    "HandState",
    "classify_hand",
    "count_fingers",
    "detect_hands",
    "fingertip_down",
    "is_upright_thumb_fist",
    "load_rgb",
    "palm_flat",
    "shape_scores",
    "upright_thumb_fist_score",
]
