import sys

from tokstudy.cli import main

sys.exit(main())
