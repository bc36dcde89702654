"""Write a tiny random-weight LLaMA as GGUF, for llama.cpp's server in the real-engine tests.

Run with the engine venv's Python (tests/engines/llama_venv.py: it holds ``gguf`` and numpy, the
project's venv does not): ``python tiny_gguf.py OUT.gguf < words.json``, the words the prompts are
made of as a JSON list on stdin.

The layout is what llama.cpp's LLaMA loader reads (the ``llama.*`` keys and tensor names of gguf's
constants.py, MODEL_ARCH.LLAMA; shapes as in llama.cpp's convert_hf_to_gguf.py, numpy order
(rows, columns) = ggml's (ne1, ne0)). The vocabulary is SentencePiece style
(``tokenizer.ggml.model = llama``: ``<unk>``, ``<s>``, ``</s>``, the 256 byte tokens ``<0xXX>``,
then pieces with the ``▁`` word-start mark). llama.cpp's SPM tokenizer merges adjacent pieces
only into pieces of the vocabulary, best score first, so every prefix of ``▁word`` is a piece,
scored by its length: each probe word is then exactly one token, and anything else (the chat
template's brackets) falls back to bytes. Two layers, 256 wide: about 4 MB, loaded in
milliseconds, and a 1,100-token prefill takes tens of milliseconds on one core, enough for the
prefix cache to be seen in the timings.
"""

from __future__ import annotations

import json
import sys

import gguf  # type: ignore[import-not-found]
import numpy as np

N_EMBD, N_FF, N_LAYERS, N_HEAD, N_CTX = 256, 512, 2, 4, 4096
NORMAL, UNKNOWN, CONTROL, BYTE = 1, 2, 3, 6  # SentencePiece token types (gguf.TokenType)


def vocabulary(words: list[str]) -> tuple[list[str], list[float], list[int]]:
    """Return tokens, scores and types: specials, bytes, then every prefix of each ``▁word``."""
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    types = [UNKNOWN, CONTROL, CONTROL] + [BYTE] * 256
    pieces = {"▁"} | {chr(c) for c in range(ord("a"), ord("z") + 1)}
    for word in words:
        piece = "▁" + word
        pieces |= {piece[:i] for i in range(2, len(piece) + 1)}
    ordered = sorted(pieces, key=lambda p: (len(p), p))
    scores = [0.0] * len(tokens) + [float(len(p)) for p in ordered]
    return tokens + ordered, scores, types + [NORMAL] * len(ordered)


def write(path: str, words: list[str]) -> None:
    """Write the model to ``path``."""
    rng = np.random.default_rng(0)
    tokens, scores, types = vocabulary(words)
    out = gguf.GGUFWriter(path, "llama")
    out.add_context_length(N_CTX)
    out.add_embedding_length(N_EMBD)
    out.add_block_count(N_LAYERS)
    out.add_feed_forward_length(N_FF)
    out.add_head_count(N_HEAD)
    out.add_head_count_kv(N_HEAD)
    out.add_rope_dimension_count(N_EMBD // N_HEAD)
    out.add_rope_freq_base(10000.0)
    out.add_layer_norm_rms_eps(1e-5)
    out.add_file_type(0)  # all F32
    out.add_vocab_size(len(tokens))
    out.add_tokenizer_model("llama")
    out.add_token_list(tokens)
    out.add_token_scores(scores)
    out.add_token_types(types)
    out.add_unk_token_id(0)
    out.add_bos_token_id(1)
    out.add_eos_token_id(2)

    def weight(name: str, *shape: int) -> None:
        out.add_tensor(name, (rng.standard_normal(shape) * 0.02).astype(np.float32))

    weight("token_embd.weight", len(tokens), N_EMBD)
    out.add_tensor("output_norm.weight", np.ones(N_EMBD, dtype=np.float32))
    weight("output.weight", len(tokens), N_EMBD)
    for i in range(N_LAYERS):
        out.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        out.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        for part in ("attn_q", "attn_k", "attn_v", "attn_output"):
            weight(f"blk.{i}.{part}.weight", N_EMBD, N_EMBD)
        weight(f"blk.{i}.ffn_gate.weight", N_FF, N_EMBD)
        weight(f"blk.{i}.ffn_up.weight", N_FF, N_EMBD)
        weight(f"blk.{i}.ffn_down.weight", N_EMBD, N_FF)
    out.write_header_to_file()
    out.write_kv_data_to_file()
    out.write_tensors_to_file()
    out.close()


if __name__ == "__main__":
    write(sys.argv[1], json.load(sys.stdin))
