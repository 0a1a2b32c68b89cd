"""The evaluation pipeline: a cascade of bridge stages, a result cache, and executors."""
