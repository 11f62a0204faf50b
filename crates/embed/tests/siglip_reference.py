"""An independent SigLIP forward pass in NumPy, for the golden vectors of the tiny model.

Written from Hugging Face's SiglipModel, not from candle: pre-norm transformer layers with the
tanh approximation of GELU and layer norms of epsilon 1e-6; the text tower attends both ways,
reads its last position after the final layer norm, then its head (a linear layer with bias);
the image tower embeds 16-pixel patches by a convolution with bias, adds position embeddings
(no class token), and pools through its head: a learned probe attends over the patches
(PyTorch's MultiheadAttention, one packed input projection), then a residual MLP after a layer
norm. Both vectors are unit length.

It reads a SigLIP directory that `CAIRN_SIGLIP_TINY_OUT=DIR cargo test -p cairn-memory-embed --test
siglip tiny` wrote (config.json, model.safetensors, and inputs.json: the texts, their ids, how
many test images) and prints the golden JSON the test compares with. Needs only NumPy.

    python3 crates/embed/tests/siglip_reference.py DIR > crates/embed/tests/siglip_tiny_golden.json
"""

import sys

import numpy as np

# The safetensors reader, the unit vector, and the golden file's making (its inputs, its test
# images, its layout) are the CLIP reference's.
from clip_reference import main as golden
from clip_reference import read_safetensors, unit

EPS = 1e-6


def layer_norm(x, w, prefix):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * w[prefix + ".weight"] + w[prefix + ".bias"]


def linear(x, w, prefix):
    return x @ w[prefix + ".weight"].T + w[prefix + ".bias"]


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def heads_attention(q, k, v, heads):
    """Scaled dot-product attention of queries q over keys k and values v, per head."""
    d = q.shape[1] // heads
    out = np.zeros((q.shape[0], v.shape[1]))
    for h in range(heads):
        cols = slice(h * d, (h + 1) * d)
        scores = q[:, cols] @ k[:, cols].T * d**-0.5
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        out[:, cols] = scores @ v[:, cols]
    return out


def mlp(x, w, prefix):
    return linear(gelu_tanh(linear(x, w, prefix + ".fc1")), w, prefix + ".fc2")


def encoder(x, w, prefix, layers, heads):
    for i in range(layers):
        at = f"{prefix}.layers.{i}"
        h = layer_norm(x, w, at + ".layer_norm1")
        a = at + ".self_attn"
        attended = heads_attention(linear(h, w, a + ".q_proj"), linear(h, w, a + ".k_proj"), linear(h, w, a + ".v_proj"), heads)
        x = x + linear(attended, w, a + ".out_proj")
        x = x + mlp(layer_norm(x, w, at + ".layer_norm2"), w, at + ".mlp")
    return x


def text_vector(ids, w, cfg):
    t = cfg["text_config"]
    x = w["text_model.embeddings.token_embedding.weight"][ids]
    x = x + w["text_model.embeddings.position_embedding.weight"][: len(ids)]
    x = encoder(x, w, "text_model.encoder", t["num_hidden_layers"], t["num_attention_heads"])
    x = layer_norm(x, w, "text_model.final_layer_norm")
    return unit(linear(x[-1], w, "text_model.head"))


def image_vector(pixels, w, cfg):
    v = cfg["vision_config"]
    p = v["patch_size"]
    grid = v["image_size"] // p
    kernel = w["vision_model.embeddings.patch_embedding.weight"]
    bias = w["vision_model.embeddings.patch_embedding.bias"]
    patches = []
    for gy in range(grid):
        for gx in range(grid):
            patch = pixels[:, gy * p : (gy + 1) * p, gx * p : (gx + 1) * p]
            patches.append(np.tensordot(kernel, patch, axes=([1, 2, 3], [0, 1, 2])) + bias)
    x = np.array(patches) + w["vision_model.embeddings.position_embedding.weight"]
    heads = v["num_attention_heads"]
    x = encoder(x, w, "vision_model.encoder", v["num_hidden_layers"], heads)
    x = layer_norm(x, w, "vision_model.post_layernorm")
    # The pooling head: nn.MultiheadAttention(probe, x, x), then a residual MLP.
    head = "vision_model.head"
    width = x.shape[1]
    packed_w, packed_b = w[head + ".attention.in_proj_weight"], w[head + ".attention.in_proj_bias"]
    project = lambda y, i: y @ packed_w[i * width : (i + 1) * width].T + packed_b[i * width : (i + 1) * width]
    probe = w[head + ".probe"].reshape(1, width)
    attended = heads_attention(project(probe, 0), project(x, 1), project(x, 2), heads)
    pooled = linear(attended, w, head + ".attention.out_proj")
    pooled = pooled + mlp(layer_norm(pooled, w, head + ".layernorm"), w, head + ".mlp")
    return unit(pooled[0])


if __name__ == "__main__":
    golden(sys.argv[1], text_vector, image_vector)
