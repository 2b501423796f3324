"""Paper L: data locality with heterogeneous servers (JSQ(d) on bipartite graphs)."""
