"""The EDA bridge: tool discovery, a sandboxed runner, and one backend per file for lint,
simulation, synthesis and static timing/power analysis."""
