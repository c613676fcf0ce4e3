"""The simulated supplier web shops (quote pages, search, a catalogue for the URL map).

Stands in for suppliers' public websites: code outside ``sim/`` reaches it only over HTTP.
"""

from sim.suppliers.app import build_app
from sim.suppliers.settings import SuppliersSettings

__all__ = ["SuppliersSettings", "build_app"]
