"""A second check of the tiny models' golden vectors, against Hugging Face's own models.

`clip_reference.py` and `siglip_reference.py` (NumPy) made `clip_tiny_golden.json` and
`siglip_tiny_golden.json`; this loads the same tiny checkpoint into `transformers.CLIPModel` or
`transformers.SiglipModel` (every tensor name must match, none left over; CLIP's `logit_scale`,
which cairn never reads, may be absent) and prints
how far its vectors are from the golden ones. It needs PyTorch and transformers, which CI does
not install (the PyPI wheels with their CUDA libraries are several GB), so it is run by hand
when a tiny model or a reference changes:

    CAIRN_SIGLIP_TINY_OUT=DIR cargo test -p cairn-memory-embed --test siglip tiny
    python3 crates/embed/tests/transformers_check.py siglip DIR crates/embed/tests/siglip_tiny_golden.json
    CAIRN_CLIP_TINY_OUT=DIR cargo test -p cairn-memory-embed --test clip tiny
    python3 crates/embed/tests/transformers_check.py clip DIR crates/embed/tests/clip_tiny_golden.json
"""

import json
import sys

import torch
from safetensors.torch import load_file
from transformers import CLIPConfig, CLIPModel, SiglipConfig, SiglipModel

from clip_reference import test_pixels


def model_of(kind, cfg):
    cfg = {k: v for k, v in cfg.items() if k != "model_type"}
    if kind == "clip":
        # The text tower pools at the end-of-text id: the vocabulary's last.
        text = dict(cfg.get("text_config", {}))
        text.setdefault("eos_token_id", text["vocab_size"] - 1)
        return CLIPModel(CLIPConfig(**{**cfg, "text_config": text}))
    return SiglipModel(SiglipConfig(**cfg))


def main(kind, directory, golden_path):
    with open(f"{directory}/config.json") as f:
        cfg = json.load(f)
    model = model_of(kind, cfg)
    loaded = model.load_state_dict(load_file(f"{directory}/model.safetensors"), strict=False)
    missing = set(loaded.missing_keys) - {"logit_scale"}
    if missing or loaded.unexpected_keys:
        sys.exit(f"tensors missing: {sorted(missing)}; not in the model: {loaded.unexpected_keys}")
    model.eval()
    with open(golden_path) as f:
        golden = json.load(f)

    def unit(features):
        features = getattr(features, "pooler_output", features)[0]
        return features / features.norm()

    worst = 0.0
    side = cfg["vision_config"]["image_size"]
    with torch.no_grad():
        for text in golden["texts"]:
            vector = unit(model.get_text_features(input_ids=torch.tensor([text["ids"]])))
            worst = max(worst, float((vector - torch.tensor(text["vector"])).abs().max()))
        for image in golden["images"]:
            pixels = torch.tensor(test_pixels(image["image"], side), dtype=torch.float32)[None]
            vector = unit(model.get_image_features(pixel_values=pixels))
            worst = max(worst, float((vector - torch.tensor(image["vector"])).abs().max()))
    print(f"{kind}: largest difference from the golden vectors: {worst:.2e}")
    sys.exit(0 if worst < 1e-4 else 1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
