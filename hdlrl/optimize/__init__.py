"""The test-time-training optimiser: a pool of design states, advantages and the KL budget."""
