"""Procedural table-camera renderer: scene, bodies, shading, frames, videos."""
