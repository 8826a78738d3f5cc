"""sample_videos package."""
