import sys
from pathlib import Path

# helpers live next to the tests (tests/ folders have no __init__)
sys.path.insert(0, str(Path(__file__).parent))
