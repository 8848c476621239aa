"""Writes a large optimized HLO dump from a real model: ``python gen_large_hlo.py OUT [--layers N]``.

The model is a decoder-only transformer (pre-LayerNorm, multi-head causal attention, GELU MLP)
whose layers are unrolled with a Python loop, and the dump is of one training step (loss,
gradients through every rematerialized layer, an Adam update), compiled for CPU. Unrolling keeps
every layer's instructions in one module, and the text grows faster than the layer count: 8
layers give 2.6 MB, 16 give 7.6 MB, the default 32 give 25 MB (about 50 s of CPU and 1.4 GB of
memory to compile; 48 layers take several minutes and over 3 GB). LLVM's expensive passes are
turned off, which halves the compile time and leaves the optimized HLO byte for byte the same.
Prints one JSON line: ``{path, bytes, lines, layers, compileSeconds}``, and a warning on stderr
when the dump is under ``--min-bytes`` (default 20 MB).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

#: Flags that make XLA:CPU's LLVM code generation cheaper without changing the optimized HLO.
CHEAP_CODEGEN = ("--xla_backend_optimization_level=0", "--xla_llvm_disable_expensive_passes=true")


def build_step(layers: int, d_model: int, heads: int, d_ff: int):
    """The training step ``(params, m, v, tokens) -> (loss, params, m, v)`` and the parameter shapes."""
    import jax
    import jax.numpy as jnp

    def layer_norm(x, scale):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(var + 1e-5) * scale

    def block(x, p):
        b, s, d = x.shape
        h = layer_norm(x, p["ln1"])
        qkv = jnp.einsum("bsd,de->bse", h, p["wqkv"]).reshape(b, s, 3, heads, d // heads)
        q, k, v = qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(d // heads).astype(x.dtype)
        mask = jnp.tril(jnp.ones((s, s), bool))
        scores = jnp.where(mask, scores, -1e9)
        attn = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, -1), v).reshape(b, s, d)
        x = x + attn @ p["wo"]
        h = layer_norm(x, p["ln2"])
        return x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]

    def loss_fn(params, tokens):
        x = params["embed"][tokens]
        for i in range(layers):
            # Rematerialized: the backward pass recomputes each block, as large models do.
            x = jax.checkpoint(block)(x, params["layers"][i])
        logits = layer_norm(x, params["ln_f"]) @ params["embed"].T
        logp = jax.nn.log_softmax(logits[:, :-1], -1)
        return -jnp.take_along_axis(logp, tokens[:, 1:, None], -1).mean()

    def step(params, m, v, tokens):
        loss, grads = jax.value_and_grad(loss_fn)(params, tokens)
        m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, grads)
        v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, grads)
        params = jax.tree.map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), params, m, v)
        return loss, params, m, v

    f32 = jnp.float32
    vocab = 512
    layer = {
        "ln1": jax.ShapeDtypeStruct((d_model,), f32),
        "wqkv": jax.ShapeDtypeStruct((d_model, 3 * d_model), f32),
        "wo": jax.ShapeDtypeStruct((d_model, d_model), f32),
        "ln2": jax.ShapeDtypeStruct((d_model,), f32),
        "w1": jax.ShapeDtypeStruct((d_model, d_ff), f32),
        "w2": jax.ShapeDtypeStruct((d_ff, d_model), f32),
    }
    params = {
        "embed": jax.ShapeDtypeStruct((vocab, d_model), f32),
        "ln_f": jax.ShapeDtypeStruct((d_model,), f32),
        "layers": [dict(layer) for _ in range(layers)],
    }
    return step, params


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--d-model", type=int, default=256)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--d-ff", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--min-bytes", type=int, default=20_000_000)
    opts = parser.parse_args(argv)

    # Read once by JAX at backend start, so set before the import. Codegen only, not HLO passes.
    os.environ["XLA_FLAGS"] = " ".join([os.environ.get("XLA_FLAGS", ""), *CHEAP_CODEGEN]).strip()

    import jax
    import jax.numpy as jnp

    step, params = build_step(opts.layers, opts.d_model, opts.heads, opts.d_ff)
    tokens = jax.ShapeDtypeStruct((opts.batch, opts.seq), jnp.int32)
    start = time.perf_counter()
    text = jax.jit(step).lower(params, params, params, tokens).compile().as_text()
    seconds = time.perf_counter() - start
    tmp = opts.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, opts.out)
    info = {
        "path": opts.out,
        "bytes": len(text.encode("utf-8")),
        "lines": text.count("\n"),
        "layers": opts.layers,
        "compileSeconds": round(seconds, 2),
    }
    print(json.dumps(info))
    if info["bytes"] < opts.min_bytes:
        print(f"gen_large_hlo: {info['bytes']} bytes is under --min-bytes {opts.min_bytes}; add layers", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
