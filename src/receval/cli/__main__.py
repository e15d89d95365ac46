"""``python -m receval.cli``: the same as the ``receval`` command."""

from receval.cli import main

if __name__ == "__main__":  # pragma: no branch
    main()
