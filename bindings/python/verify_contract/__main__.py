import sys

from verify_contract.cli import main

sys.exit(main())
