"""Export PyTorch / Hugging Face / timm models to ONNX with both torch exporters.

Models are built from config classes with random weights (nothing is downloaded), batch 1,
static shapes, and exported twice: by `torch.onnx.export(dynamo=True)` (torch's default) and
by the TorchScript exporter (`dynamo=False`). Beside each `<model>.<exporter>.onnx` goes a
`.npz` of numpy arrays only: `in__<input name>` for each graph input and `out__<i>` for each
output as onnxruntime computes it (the reference the tests compare with). `--opset N` exports
at opset N instead of the exporter's default (`<model>.<exporter>.opsetN.onnx`): from 23 on,
torch emits `Attention` and `RMSNormalization`.

Two sizes: `tiny` configurations (a few hundred KB each; `tests/data/exported/` holds them and
`tests/frontends/test_exported_models.py` checks them) and `full` ones (BERT-base at seq 128,
GPT-2 small at seq 64, ViT-tiny, Swin-tiny, MobileNetV3-small, EfficientNet-B0,
ConvNeXt-atto, ...) for `benchmarks/exported.py`. Needs the `bench` extra (torch,
transformers, timm, onnxscript).

    python benchmarks/export_models.py tests/data/exported             # tiny, all models
    python benchmarks/export_models.py tests/data/exported bert llama --exporter dynamo --opset 23
    python benchmarks/export_models.py /tmp/full --size full bert gpt2
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import torch

EXPORTERS = ("dynamo", "torchscript")
Inputs = dict[str, torch.Tensor]
Builder = Callable[[bool], tuple[torch.nn.Module, Inputs]]


class Outputs(torch.nn.Module):
    """A Hugging Face model called with positional tensors (its keyword arguments `keys`, in
    order) whose named output fields come back as a plain tuple."""

    def __init__(self, model: torch.nn.Module, keys: tuple[str, ...], fields: tuple[str, ...]):
        super().__init__()
        self.model, self.keys, self.fields = model, keys, fields

    def forward(self, *args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        result = self.model(**dict(zip(self.keys, args, strict=True)))
        return tuple(getattr(result, f) for f in self.fields)


def hugging_face(
    model: torch.nn.Module, inputs: Inputs, fields: tuple[str, ...]
) -> tuple[torch.nn.Module, Inputs]:
    return Outputs(model.eval(), tuple(inputs), fields), inputs


def token_inputs(seq: int, vocab: int, mask: bool) -> Inputs:
    gen = torch.Generator().manual_seed(0)
    inputs = {"input_ids": torch.randint(0, vocab, (1, seq), generator=gen)}
    if mask:
        # Last quarter padded: the mask takes part in the numbers.
        attention = torch.ones(1, seq, dtype=torch.int64)
        attention[:, seq - seq // 4 :] = 0
        inputs["attention_mask"] = attention
    return inputs


def bert(full: bool) -> tuple[torch.nn.Module, Inputs]:
    from transformers import BertConfig, BertModel

    if full:
        config, seq = BertConfig(), 128
    else:
        config = BertConfig(
            vocab_size=100,
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=64,
            max_position_embeddings=32,
        )
        seq = 16
    model = BertModel(config)
    return hugging_face(
        model, token_inputs(seq, config.vocab_size, True), ("last_hidden_state", "pooler_output")
    )


def distilbert(full: bool) -> tuple[torch.nn.Module, Inputs]:
    from transformers import DistilBertConfig, DistilBertModel

    if full:
        config, seq = DistilBertConfig(), 128
    else:
        config = DistilBertConfig(
            vocab_size=100, dim=32, n_layers=2, n_heads=2, hidden_dim=64, max_position_embeddings=32
        )
        seq = 16
    return hugging_face(
        DistilBertModel(config), token_inputs(seq, config.vocab_size, True), ("last_hidden_state",)
    )


def gpt2(full: bool) -> tuple[torch.nn.Module, Inputs]:
    from transformers import GPT2Config, GPT2Model

    if full:
        config, seq = GPT2Config(use_cache=False), 64
    else:
        config = GPT2Config(
            vocab_size=100, n_embd=32, n_layer=2, n_head=2, n_positions=32, use_cache=False
        )
        seq = 16
    return hugging_face(
        GPT2Model(config), token_inputs(seq, config.vocab_size, True), ("last_hidden_state",)
    )


def t5_encoder(full: bool) -> tuple[torch.nn.Module, Inputs]:
    from transformers import T5Config, T5EncoderModel

    if full:
        config, seq = T5Config.from_dict({"use_cache": False}), 64  # t5-small's sizes
    else:
        config = T5Config(
            vocab_size=100, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2, use_cache=False
        )
        seq = 16
    return hugging_face(
        T5EncoderModel(config), token_inputs(seq, config.vocab_size, True), ("last_hidden_state",)
    )


def llama(full: bool) -> tuple[torch.nn.Module, Inputs]:
    """Llama: RMSNorm, rotary embeddings, SiLU gates, grouped-query attention (K/V heads
    shared by two query heads each)."""
    from transformers import LlamaConfig, LlamaModel

    if full:  # a small Llama (about 60M parameters)
        sizes = {"hidden_size": 512, "intermediate_size": 1408, "num_hidden_layers": 8}
        heads, seq, vocab = 8, 128, 32000
    else:
        sizes = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2}
        heads, seq, vocab = 4, 16, 100
    config = LlamaConfig(
        vocab_size=vocab,
        num_attention_heads=heads,
        num_key_value_heads=heads // 2,
        max_position_embeddings=2 * seq,
        use_cache=False,
        **sizes,
    )
    return hugging_face(LlamaModel(config), token_inputs(seq, vocab, True), ("last_hidden_state",))


class WhisperEncoder(torch.nn.Module):
    """Whisper's audio encoder (two 1-d convs and a transformer) on log-mel features."""

    def __init__(self, config: Any) -> None:
        super().__init__()
        from transformers.models.whisper.modeling_whisper import WhisperEncoder as Encoder

        self.encoder = Encoder(config)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.encoder(features).last_hidden_state


def whisper_encoder(full: bool) -> tuple[torch.nn.Module, Inputs]:
    from transformers import WhisperConfig

    if full:  # whisper-tiny's sizes on 30 s of audio
        config, frames = WhisperConfig(), 3000
    else:
        config = WhisperConfig(
            d_model=32,
            encoder_layers=2,
            encoder_attention_heads=2,
            encoder_ffn_dim=64,
            num_mel_bins=16,
            max_source_positions=16,
        )
        frames = 32
    gen = torch.Generator().manual_seed(0)
    features = torch.randn(1, config.num_mel_bins, frames, generator=gen)
    return WhisperEncoder(config), {"features": features}


def image(size: int) -> Inputs:
    gen = torch.Generator().manual_seed(0)
    return {"pixels": torch.randn(1, 3, size, size, generator=gen)}


def vit(full: bool) -> tuple[torch.nn.Module, Inputs]:
    import timm
    from timm.models.vision_transformer import VisionTransformer

    if full:
        return timm.create_model("vit_tiny_patch16_224"), image(224)
    model = VisionTransformer(
        img_size=32, patch_size=8, embed_dim=32, depth=2, num_heads=2, mlp_ratio=2, num_classes=10
    )
    return model, image(32)


def swin(full: bool) -> tuple[torch.nn.Module, Inputs]:
    """Swin: shifted-window attention (rolls, window partitions, relative position bias)."""
    import timm
    from timm.models.swin_transformer import SwinTransformer

    if full:
        return timm.create_model("swin_tiny_patch4_window7_224"), image(224)
    model = SwinTransformer(
        img_size=32,
        patch_size=2,
        window_size=4,
        embed_dim=16,
        depths=(1, 1),
        num_heads=(1, 2),
        num_classes=10,
    )
    return model, image(32)


def mobilenetv3(full: bool) -> tuple[torch.nn.Module, Inputs]:
    import timm
    from timm.models.mobilenetv3 import _gen_mobilenet_v3

    if full:
        return timm.create_model("mobilenetv3_small_100"), image(224)
    model = _gen_mobilenet_v3("mobilenetv3_small_100", channel_multiplier=0.25, num_classes=10)
    # The 1024-wide head holds most of the weights: a narrower one keeps the file small.
    model.conv_head = torch.nn.Conv2d(model.conv_head.in_channels, 128, 1)
    model.classifier = torch.nn.Linear(128, 10)
    return model, image(32)


def efficientnet(full: bool) -> tuple[torch.nn.Module, Inputs]:
    import timm
    from timm.models.efficientnet import _gen_efficientnet

    if full:
        return timm.create_model("efficientnet_b0"), image(224)
    model = _gen_efficientnet(
        "efficientnet_b0", channel_multiplier=0.125, depth_multiplier=0.34, num_classes=10
    )
    return model, image(32)


def convnext(full: bool) -> tuple[torch.nn.Module, Inputs]:
    import timm
    from timm.models.convnext import ConvNeXt

    if full:
        return timm.create_model("convnext_atto"), image(224)
    return ConvNeXt(depths=(1, 1, 1, 1), dims=(8, 16, 32, 64), num_classes=10), image(32)


def recurrent(kind: type[torch.nn.RNNBase]) -> Builder:
    """A 2-layer bidirectional `kind` (LSTM or GRU), batch_first, with initial states given."""

    class Net(torch.nn.Module):
        def __init__(self, width: int, hidden: int) -> None:
            super().__init__()
            self.rnn = kind(width, hidden, num_layers=2, bidirectional=True, batch_first=True)

        def forward(self, x: torch.Tensor, *state: torch.Tensor) -> Any:
            y, last = self.rnn(x, state if len(state) == 2 else state[0])
            return (y, *last) if isinstance(last, tuple) else (y, last)

    def build(full: bool) -> tuple[torch.nn.Module, Inputs]:
        width, hidden, seq = (256, 512, 64) if full else (8, 16, 6)
        gen = torch.Generator().manual_seed(0)
        inputs = {"x": torch.randn(1, seq, width, generator=gen)}
        inputs["h0"] = torch.randn(4, 1, hidden, generator=gen)
        if kind is torch.nn.LSTM:
            inputs["c0"] = torch.randn(4, 1, hidden, generator=gen)
        return Net(width, hidden), inputs

    return build


MODELS: dict[str, Builder] = {
    "bert": bert,
    "distilbert": distilbert,
    "gpt2": gpt2,
    "t5_encoder": t5_encoder,
    "llama": llama,
    "whisper_encoder": whisper_encoder,
    "vit": vit,
    "swin": swin,
    "mobilenetv3": mobilenetv3,
    "efficientnet": efficientnet,
    "convnext": convnext,
    "lstm": recurrent(torch.nn.LSTM),
    "gru": recurrent(torch.nn.GRU),
}


def export(
    model: torch.nn.Module, inputs: Inputs, exporter: str, path: Path, opset: int | None
) -> None:
    """`model` exported to `path` as one self-contained file (no external data), at the
    exporter's default opset unless `opset` is given."""
    args = tuple(inputs.values())
    names = list(inputs)
    quiet = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(quiet):
        warnings.simplefilter("ignore")
        if exporter == "dynamo":
            program = torch.onnx.export(
                model, args, dynamo=True, input_names=names, opset_version=opset
            )
            assert program is not None
            program.save(str(path), external_data=False)
            strip_metadata(path)
        else:
            torch.onnx.export(
                model, args, str(path), dynamo=False, input_names=names, opset_version=opset
            )


def strip_metadata(path: Path) -> None:
    """Drop the per-node metadata the dynamo exporter records (source stack traces, module
    names: a third of a small file); it carries no semantics."""
    model = onnx.load(str(path))
    for node in model.graph.node:
        del node.metadata_props[:]
        node.doc_string = ""
    onnx.save(model, str(path))


def reference(path: Path, inputs: Inputs) -> dict[str, np.ndarray]:
    """onnxruntime's outputs for `inputs` on the model at `path`, with the inputs, as .npz
    entries (only the inputs the exported graph kept: constant ones may be dropped)."""
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    given = {i.name: inputs[i.name].numpy() for i in session.get_inputs()}
    outputs = session.run(None, given)
    arrays = {f"in__{name}": value for name, value in given.items()}
    arrays.update({f"out__{i}": value for i, value in enumerate(outputs)})
    return arrays


def file_name(model: str, exporter: str, opset: int | None) -> str:
    """`<model>.<exporter>.onnx`, or `<model>.<exporter>.opset<N>.onnx` at a chosen opset."""
    return f"{model}.{exporter}" + (f".opset{opset}" if opset else "") + ".onnx"


def export_all(
    directory: Path,
    names: list[str],
    full: bool,
    exporters: tuple[str, ...] = EXPORTERS,
    opset: int | None = None,
) -> list[dict[str, Any]]:
    """Each of `names` through each of `exporters` into `directory`; one summary row per
    file."""
    directory.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in names:
        torch.manual_seed(0)
        model, inputs = MODELS[name](full)
        model.eval()
        for exporter in exporters:
            path = directory / file_name(name, exporter, opset)
            row: dict[str, Any] = {"file": path.name}
            try:
                with torch.no_grad():
                    export(model, inputs, exporter, path, opset)
                    np.savez(path.with_suffix(".npz"), **reference(path, inputs))
                proto = onnx.load(str(path), load_external_data=False)
                domains = ("", "ai.onnx")
                row["opset"] = next(o.version for o in proto.opset_import if o.domain in domains)
                row["KiB"] = path.stat().st_size // 1024
                row["ops"] = sorted({n.op_type for n in proto.graph.node})
            except Exception as error:  # one failing export must not stop the others
                row["error"] = f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def versions() -> dict[str, str]:
    import onnxruntime
    import onnxscript
    import timm
    import transformers

    return {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "timm": timm.__version__,
        "onnx": onnx.__version__,
        "onnxscript": onnxscript.__version__,
        "onnxruntime": onnxruntime.__version__,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("directory", type=Path, help="where the .onnx and .npz files go")
    parser.add_argument("models", nargs="*", default=list(MODELS), help=f"of {', '.join(MODELS)}")
    parser.add_argument("--size", choices=("tiny", "full"), default="tiny")
    parser.add_argument("--exporter", choices=EXPORTERS, help="only this exporter")
    parser.add_argument("--opset", type=int, help="export at this opset (in the file name)")
    args = parser.parse_intermixed_args()
    unknown = [m for m in args.models if m not in MODELS]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(MODELS)}")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    print(json.dumps(versions()))
    exporters = (args.exporter,) if args.exporter else EXPORTERS
    rows = export_all(args.directory, args.models, args.size == "full", exporters, args.opset)
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
