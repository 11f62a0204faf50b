"""A second check of the tiny SigLIP's golden vectors, against Hugging Face's own SiglipModel.

`siglip_reference.py` (NumPy) made `siglip_tiny_golden.json`; this loads the same tiny checkpoint
into `transformers.SiglipModel` (strictly: every tensor name must match, none left over) and
prints how far its vectors are from the golden ones. It needs PyTorch and transformers, which
CI does not install (the PyPI wheels with their CUDA libraries are several GB), so it is run by
hand when the tiny model or the reference changes:

    CAIRN_SIGLIP_TINY_OUT=DIR cargo test -p cairn-embed --test siglip tiny
    python3 crates/embed/tests/siglip_transformers_check.py DIR crates/embed/tests/siglip_tiny_golden.json
"""

import json
import sys

import torch
from safetensors.torch import load_file
from transformers import SiglipConfig, SiglipModel

from clip_reference import test_pixels


def main(directory, golden_path):
    with open(f"{directory}/config.json") as f:
        cfg = json.load(f)
    model = SiglipModel(SiglipConfig(**{k: v for k, v in cfg.items() if k != "model_type"}))
    model.load_state_dict(load_file(f"{directory}/model.safetensors"), strict=True)
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
    print(f"largest difference from the golden vectors: {worst:.2e}")
    sys.exit(0 if worst < 1e-4 else 1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
