"""`hdlrl summarize`: checked, hierarchical summaries of HDL modules, refined by a search over summary
edits that runs on the one loop of `hdlrl.ttt.loop`."""
