"""The remediation texts the deploy-check rules share (each in the engine's own flags)."""

from __future__ import annotations

from assess.deploy.view import NodeView


def fix_pool(node: NodeView, limit: int | None) -> str:
    """The fix for a pool short of the context: lower the context to ``limit`` (the tokens that
    fit; None: no figure) or give the pool more memory, in the engine's own flags."""
    most = f" to at most {limit:,}" if limit else ""
    if node.log.engine == "vllm":
        return (
            f"Lower --max-model-len{most}, or give the KV cache more memory "
            "(--gpu-memory-utilization, more GPUs, lighter weights) until 'GPU KV cache size' "
            "is at least the context length. Recheck after every change."
        )
    return (
        f"Lower --context-length{most}, or give the KV pool more memory "
        "(--mem-fraction-static, more GPUs, lighter weights or quantization) until "
        "max_total_num_tokens is at least context_len on every prefill and decode node. "
        "Recheck after every change of weights, quantization, parallelism or memory fraction."
    )


def fix_no_kv_memory(ctx: int | None) -> str:
    """The fix for vLLM's 'No available memory for the cache blocks': what its own message and
    the page it links (docs.vllm.ai .../configuration/conserving_memory/) say."""
    context = f" ({ctx:,} tokens)" if ctx else ""
    return (
        "Raise --gpu-memory-utilization, as vLLM's message says: the weights and the start-up "
        "profiling run took all the GPU memory it allows, and none was left for the KV cache "
        "(check that no other process holds memory on the GPU). If it cannot go higher, need less "
        "memory, as vLLM's 'Conserving memory' page lists: a lower --max-model-len or "
        "--max-num-seqs, a smaller or quantized model, or more GPUs (--tensor-parallel-size). "
        f"Then check that 'GPU KV cache size' is at least the context length{context}. Recheck "
        "after every change."
    )
