from functools import partial

import jax
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"))


@partial(
    jax.jit,
    in_shardings=(NamedSharding(mesh, P("data", None)), NamedSharding(mesh, P(None, "model"))),
    out_shardings=NamedSharding(mesh, P("data", None)),
)
def sharded_mlp(x, w):
    h = jax.nn.gelu(x @ w)
    return h @ w.T
