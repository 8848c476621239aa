import jax
import jax.numpy as jnp


@jax.custom_jvp
def log1pexp(x):
    return jnp.log1p(jnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return log1pexp(x), t * jax.nn.sigmoid(x)


def loss(x):
    return jax.grad(lambda y: log1pexp(y).sum())(x) + log1pexp(x)
