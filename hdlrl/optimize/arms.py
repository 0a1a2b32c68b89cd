"""The arms `hdlrl optimize-suite --arms` compares at the same budget of gate calls, and the
command-line settings each stands for (a module of its own so the argument parser can name
them without importing torch):
- `ttt`: the policy searches the pool and is updated at test time;
- `frozen`: the same search, never updated (`--no-update`);
- `best-of-n`: samples of the original design only, never updated (`--best-of-n`);
- `random`: random-action search, every concrete action equally likely (`--policy random`);
- `ttt-no-action-features`, `ttt-no-state-features`: ablations of the embedded policy (every
  action of a kind equally likely, always; kinds picked by a learned bias alone).
"""

ARMS: dict[str, dict] = {
    "ttt": {"no_update": False, "best_of_n": False},
    "frozen": {"no_update": True, "best_of_n": False},
    "best-of-n": {"no_update": False, "best_of_n": True},
    "random": {"policy": "random", "no_update": True, "best_of_n": False},
    "ttt-no-action-features": {"no_update": False, "best_of_n": False, "policy_option": ["action_features=false"]},
    "ttt-no-state-features": {"no_update": False, "best_of_n": False, "policy_option": ["state_features=false"]},
}
