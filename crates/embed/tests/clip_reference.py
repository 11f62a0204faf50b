"""An independent CLIP forward pass in NumPy, for the golden vectors of the tiny model.

Written from Hugging Face's CLIPModel (pre-norm transformer layers, quick_gelu, causal text
attention pooled at the end-of-text token, the image pooled at the class token after the last
layer norm, both projected without bias), not from candle. It reads a CLIP directory that
`CAIRN_CLIP_TINY_OUT=DIR cargo test -p cairn-memory-embed --test clip tiny` wrote (config.json,
model.safetensors, and inputs.json: the texts, their ids, how many test images) and prints the
golden JSON the test compares with. Needs only NumPy.

    python3 crates/embed/tests/clip_reference.py DIR > crates/embed/tests/clip_tiny_golden.json
"""

import json
import struct
import sys

import numpy as np


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    body = data[8 + length :]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "F32", (name, info["dtype"])
        start, end = info["data_offsets"]
        tensors[name] = np.frombuffer(body[start:end], dtype="<f4").reshape(info["shape"]).astype(np.float64)
    return tensors


def layer_norm(x, w, prefix, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w[prefix + ".weight"] + w[prefix + ".bias"]


def linear(x, w, prefix, bias=True):
    y = x @ w[prefix + ".weight"].T
    return y + w[prefix + ".bias"] if bias else y


def attention(x, w, prefix, heads, causal):
    n, width = x.shape
    d = width // heads
    q = linear(x, w, prefix + ".q_proj") * d**-0.5
    k = linear(x, w, prefix + ".k_proj")
    v = linear(x, w, prefix + ".v_proj")
    out = np.zeros_like(x)
    for h in range(heads):
        cols = slice(h * d, (h + 1) * d)
        scores = q[:, cols] @ k[:, cols].T
        if causal:
            scores = np.where(np.tri(n, n, dtype=bool), scores, -np.inf)
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        out[:, cols] = scores @ v[:, cols]
    return linear(out, w, prefix + ".out_proj")


def encoder(x, w, prefix, layers, heads, causal):
    for i in range(layers):
        at = f"{prefix}.layers.{i}"
        x = x + attention(layer_norm(x, w, at + ".layer_norm1"), w, at + ".self_attn", heads, causal)
        h = linear(layer_norm(x, w, at + ".layer_norm2"), w, at + ".mlp.fc1")
        h = h * (1.0 / (1.0 + np.exp(-1.702 * h)))  # quick_gelu
        x = x + linear(h, w, at + ".mlp.fc2")
    return x


def unit(v):
    return v / np.linalg.norm(v)


def text_vector(ids, w, cfg):
    t = cfg["text_config"]
    x = w["text_model.embeddings.token_embedding.weight"][ids]
    x = x + w["text_model.embeddings.position_embedding.weight"][: len(ids)]
    x = encoder(x, w, "text_model.encoder", t["num_hidden_layers"], t["num_attention_heads"], True)
    x = layer_norm(x, w, "text_model.final_layer_norm")
    end = ids.index(t["vocab_size"] - 1)  # <|endoftext|>, the last id
    return unit(x[end] @ w["text_projection.weight"].T)


def image_vector(pixels, w, cfg):
    v = cfg["vision_config"]
    p = v["patch_size"]
    grid = v["image_size"] // p
    kernel = w["vision_model.embeddings.patch_embedding.weight"]
    patches = []
    for gy in range(grid):
        for gx in range(grid):
            patch = pixels[:, gy * p : (gy + 1) * p, gx * p : (gx + 1) * p]
            patches.append(np.tensordot(kernel, patch, axes=([1, 2, 3], [0, 1, 2])))
    x = np.vstack([w["vision_model.embeddings.class_embedding"][None, :], np.array(patches)])
    x = x + w["vision_model.embeddings.position_embedding.weight"]
    x = layer_norm(x, w, "vision_model.pre_layrnorm")
    x = encoder(x, w, "vision_model.encoder", v["num_hidden_layers"], v["num_attention_heads"], False)
    pooled = layer_norm(x[0], w, "vision_model.post_layernorm")
    return unit(pooled @ w["visual_projection.weight"].T)


def test_pixels(k, side):
    c, y, x = np.meshgrid(np.arange(3), np.arange(side), np.arange(side), indexing="ij")
    return np.sin(0.3 * (c + 1.0) + 0.17 * y - 0.05 * x * (k + 1.0))


def main(directory, text_vector=text_vector, image_vector=image_vector):
    """Prints the golden JSON of the model in `directory`, by the given towers (CLIP's unless
    another reference passes its own)."""
    with open(f"{directory}/config.json") as f:
        cfg = json.load(f)
    with open(f"{directory}/inputs.json") as f:
        inputs = json.load(f)
    w = read_safetensors(f"{directory}/model.safetensors")
    texts = [
        {"text": text, "ids": ids, "vector": [round(float(x), 7) for x in text_vector(ids, w, cfg)]}
        for text, ids in zip(inputs["texts"], inputs["ids"])
    ]
    side = cfg["vision_config"]["image_size"]
    images = [
        {"image": k, "vector": [round(float(x), 7) for x in image_vector(test_pixels(k, side), w, cfg)]}
        for k in range(inputs["images"])
    ]
    print(json.dumps({"texts": texts, "images": images}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
