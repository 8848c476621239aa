import jax
import jax.numpy as jnp


def rnn(h0, xs, w):
    def step(h, x):
        h = jnp.tanh(h @ w + x)
        return h, h.sum()

    h, sums = jax.lax.scan(step, h0, xs)
    return h, sums
