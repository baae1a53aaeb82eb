"""Quality gates over the sources and the built site: links, translation parity, the performance budget."""
