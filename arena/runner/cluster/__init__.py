"""Games on a Dask cluster: the executor that sends them to workers, the worker that plays
them, how bots are shipped to and checked on workers, and connecting to a cluster."""
