"""OpenROAD: runs the same OpenSTA Tcl inside `openroad`, where that binary is installed."""

from __future__ import annotations

from hdlrl.eda.sta.opensta import OpenStaAnalyzer


class OpenRoadAnalyzer(OpenStaAnalyzer):
    """OpenROAD embeds OpenSTA, so only the binary and its flags differ."""

    name = "openroad"
    binary = "openroad"
    arguments = ("-no_init", "-no_splash", "-exit")
