"""How long a query and a request may be: shared by the routes and by `faq serve`, whose supervisor of several
workers imports this module alone (importing the web modules cost it 67 MB)."""

from __future__ import annotations

MAX_QUERY_LENGTH = 4000  # characters of a search sent in the address
# The longest request target a reader can need: the longest query, every character four UTF-8 bytes
# percent-encoded (12 bytes each), and room for the other parameters. Anything longer is refused (414).
MAX_REQUEST_TARGET = 12 * MAX_QUERY_LENGTH + 2048
# What the server buffers of a request's head before it answers 400: that target and the 16 KB h11 allows by
# default for the headers. h11's 16 KB alone refused a 2,000-character Chinese query arriving in network-sized
# pieces (on loopback a head comes whole, and any length passed).
MAX_REQUEST_HEAD = MAX_REQUEST_TARGET + 16 * 1024
