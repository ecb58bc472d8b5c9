"""What Azure NetApp Files and the client VMs allow: service levels and quotas, VM network and NFS
client limits, the least of them for a setup (:mod:`~anfperf.models.limits.predict`), the planner
(:mod:`~anfperf.models.limits.plan`) and list prices. Their public functions are offered by
:mod:`anfperf.models`."""
