"""review package."""
