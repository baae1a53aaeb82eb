import sys

from handbook.cli import main

sys.exit(main())
