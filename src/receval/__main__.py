"""``python -m receval``: the ``receval`` command."""

from receval.cli import main

if __name__ == "__main__":
    main()
