"""`hdlrl pdk list|install`."""

from __future__ import annotations

import argparse

from hdlrl.errors import HdlrlError
from hdlrl.pdk import KNOWN_PDKS, cache_dir, get_pdk
from hdlrl.pdk.install import install_pdk


def run_pdk(arguments: argparse.Namespace) -> int:
    if arguments.pdk_command == "install":
        if arguments.name == "generic":
            print(f"generic is embedded: {get_pdk('generic').liberty}")
            return 0
        path = install_pdk(arguments.name, arguments.dest or cache_dir(), arguments.url)
        print(f"installed {arguments.name}: {path}")
        return 0
    for name in KNOWN_PDKS:
        try:
            print(f"{name:10} {get_pdk(name).liberty}")
        except HdlrlError as error:
            print(f"{name:10} not available: {error}")
    return 0
