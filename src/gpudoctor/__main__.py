"""`python -m gpudoctor`: the same entry point as the console script."""

from gpudoctor.cli import main

if __name__ == "__main__":
    main()
