"""mafvar: video-assisted refereeing for sport Mafia."""

__version__ = "0.1.0"
