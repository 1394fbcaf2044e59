"""actgrad.ge: GE's Python graph API (the `ge` package of hicann/ge) on the CPU twin.

The same modules, classes, functions and arguments as GE's, so a GE script runs here once `from ge.X import Y` reads
`from actgrad.ge.X import Y`: es (GraphBuilder, TensorHolder, the operator functions in es.actgrad and es.all), graph
(Graph, Node, Tensor, DataType, Format, DumpFormat), session (Session) and ge_global (GeApi). A Session runs each
actgrad node as its kernel on the twin and the GE built-ins on the host with torch. docs/graph.md has the details.
"""
