"""Fitting the vision models: run by the training scripts and the evaluations, never by the analysis.

The runtime modules (vision.appearance, vision.hands.shape_model) hold a
model's features, its weights file and its use; the fitting that writes
those weights lives here.
"""
