"""The learning core of the paper, shared by every job: the PUCT pool, group advantages, the KL-budget
controller, the policy update and the one search loop (`loop`). Nothing here knows a job."""
