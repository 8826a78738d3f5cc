"""Faces: the mask over the eyes read from MediaPipe's face mesh (trained on
real people), and real faces with composited masks to train and measure it.

mesh.HeadMesh finds the face's 478 landmarks in a seat's head window;
mask_read turns what lies over the eyes, against the face's own skin, into
mask_on / mask_off / mask_lifted, or says why it cannot judge.
"""
