import sys

from mafvar.cli import main

sys.exit(main())
