"""`hdlrl optimize`: per-design PPA optimisation by test-time training, a job of `hdlrl.ttt.loop`
(design states, the gate's verdicts as rewards, the embedded rewrite policy and its prompt)."""
