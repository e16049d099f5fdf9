"""The head of the distribution: the most-reported messages, each with a real paste and what it should decide."""
