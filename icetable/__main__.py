import sys

from icetable.cli import main

sys.exit(main())
