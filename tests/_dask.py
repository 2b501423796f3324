"""One way for the tests to start a local Dask cluster."""
import distributed


def local_cluster(**kwargs):
    """A `distributed.LocalCluster` on 127.0.0.1 whose scheduler's HTTP routes take a free port.

    `dashboard_address=None` only turns the dashboard off: the scheduler still serves its HTTP
    routes on port 8787, so two clusters started at once (two xdist workers) collide there, and
    distributed's "Port 8787 is already in use" warning is an error in this suite."""
    kwargs.setdefault("host", "127.0.0.1")
    return distributed.LocalCluster(dashboard_address=None, scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                                    **kwargs)
