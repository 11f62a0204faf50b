"""The golden vectors of the tiny MobileCLIP, computed by timm and OpenCLIP themselves.

It builds OpenCLIP's `CustomTextCLIP` from the directory's `open_clip_config.json` (its text
tower, pooling and projection as MobileCLIP has them, attending both ways), puts in its image
tower timm's `FastVit` with the MCi family's settings (`fastvit_mci*`: RepMixer stages, attention
with a conditional positional encoding in the last, squeeze-excitation in the last two
downsamplings, `lkc_use_act`) at the widths and depths the weights have, loads
`open_clip_model.safetensors` into it strictly (every tensor name and shape must match: this is
also the check of cairn's tensor list), and prints the unit vectors of the texts' ids and of the
test images. It needs PyTorch, timm and open_clip_torch (several GB with CUDA's libraries: run by
hand, not in CI):

    CAIRN_MOBILECLIP_TINY_OUT=DIR cargo test -p cairn-memory-embed --test mobileclip tiny
    python3 crates/embed/tests/mobileclip_reference.py DIR > crates/embed/tests/mobileclip_tiny_golden.json

With `--full NAME DIR` it checks instead that a full-size directory cairn wrote (`cairn-bench
clip --mobileclip --workdir W` leaves MobileCLIP-S2's in `W/mobileclip-s2-seeded`) loads
strictly into OpenCLIP's own `NAME` (`MobileCLIP-S2`): cairn's tensor list at the real sizes.
"""

import json
import sys
from functools import partial

import torch
from open_clip.model import CustomTextCLIP
from safetensors.torch import load_file
from timm.models.fastvit import FastVit, RepConditionalPosEnc

from clip_reference import test_pixels


def main(directory):
    with open(f"{directory}/open_clip_config.json") as f:
        cfg = json.load(f)["model_cfg"]
    with open(f"{directory}/inputs.json") as f:
        inputs = json.load(f)
    state = load_file(f"{directory}/open_clip_model.safetensors")
    width = state["visual.trunk.stem.0.conv_kxk.0.conv.weight"].shape[0]
    blocks = tuple(
        len({k.split(".")[4] for k in state if k.startswith(f"visual.trunk.stages.{i}.blocks.")})
        for i in range(4)
    )
    expansion = state["visual.trunk.stages.0.blocks.0.mlp.fc1.weight"].shape[0] // width
    model = CustomTextCLIP(cfg["embed_dim"], cfg["vision_cfg"], cfg["text_cfg"])
    model.visual.trunk = FastVit(
        layers=blocks,
        embed_dims=tuple(width << i for i in range(4)),
        mlp_ratios=(expansion,) * 4,
        se_downsamples=(False, False, True, True),
        pos_embs=(None, None, None, partial(RepConditionalPosEnc, spatial_shape=(7, 7))),
        token_mixers=("repmixer", "repmixer", "repmixer", "attention"),
        lkc_use_act=True,
        num_classes=cfg["embed_dim"],
    )
    model.load_state_dict(state, strict=True)
    model.eval()
    side = cfg["vision_cfg"]["image_size"]
    with torch.no_grad():
        texts = []
        for text, ids in zip(inputs["texts"], inputs["ids"]):
            vector = model.encode_text(torch.tensor([ids]), normalize=True)[0]
            texts.append({"text": text, "ids": ids, "vector": [round(float(x), 7) for x in vector]})
        images = []
        for k in range(inputs["images"]):
            pixels = torch.tensor(test_pixels(k, side), dtype=torch.float32)[None]
            vector = model.encode_image(pixels, normalize=True)[0]
            images.append({"image": k, "vector": [round(float(x), 7) for x in vector]})
    print(json.dumps({"texts": texts, "images": images}, indent=1))


def check_full(name, directory):
    import open_clip

    model = open_clip.create_model(name)
    state = load_file(f"{directory}/open_clip_model.safetensors")
    ours = {k: tuple(v.shape) for k, v in state.items()}
    theirs = {k: tuple(v.shape) for k, v in model.state_dict().items() if not k.endswith("num_batches_tracked")}
    missing = sorted(set(theirs) - set(ours))
    extra = sorted(set(ours) - set(theirs))
    misshapen = sorted(k for k in set(ours) & set(theirs) if ours[k] != theirs[k])
    print(f"{name}: {len(theirs)} tensors; missing {missing[:5]}, extra {extra[:5]}, misshapen {misshapen[:5]}")
    sys.exit(1 if missing or extra or misshapen else 0)


if __name__ == "__main__":
    if sys.argv[1] == "--full":
        check_full(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1])
