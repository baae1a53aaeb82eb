"""The planner's wording: the page (kb:planner), its script (docs/assets/planner.js) and `python -m handbook plan`. Each entry is (zh, en)."""

MESSAGES: dict[str, tuple[str, str]] = {
    # kb:planner (docs/*/planner.md), docs/assets/planner.js and `python -m handbook plan`
    "planner-model": ("模型", "Model"),
    "planner-gpu": ("加速卡", "Accelerator"),
    "planner-tp": ("GPU 数（TP）", "GPUs (TP)"),
    "planner-tp-auto": ("自动", "auto"),
    "planner-ep": ("EP（专家并行）", "EP (expert parallelism)"),
    "planner-weights-dtype": ("权重精度", "Weights precision"),
    "planner-kv-dtype": ("KV 缓存精度", "KV cache dtype"),
    "planner-mem-fraction": ("--mem-fraction-static", "--mem-fraction-static"),
    "planner-context": ("上下文长度（token）", "Context length (tokens)"),
    "planner-advanced": ("更多参数", "More settings"),
    "planner-page-size": ("--page-size", "--page-size"),
    "planner-max-total-tokens": (
        "--max-total-tokens（留空：不设上限）",
        "--max-total-tokens (empty: no cap)",
    ),
    "planner-swa-ratio": (
        "--swa-full-tokens-ratio（仅滑窗模型）",
        "--swa-full-tokens-ratio (sliding-window models only)",
    ),
    "planner-budget": ("单卡显存预算", "One GPU's memory budget"),
    "planner-legend-weights": ("权重", "Weights"),
    "planner-legend-kv": ("KV 池", "KV pool"),
    "planner-legend-rest": ("CUDA graph 与激活", "CUDA graphs and activations"),
    "planner-legend-over": ("超出预算的权重", "Weights over the budget"),
    "planner-figures": ("计算结果", "Figures"),
    "planner-fig-gpu": ("单卡显存", "GPU memory"),
    "planner-fig-static": ("静态预算（权重 + KV 池）", "Static budget (weights + KV pool)"),
    "planner-fig-rest": ("预算之外（CUDA graph 与激活）", "Outside the budget (CUDA graphs and activations)"),
    "planner-fig-weights": ("权重：全模型", "Weights: whole model"),
    "planner-fig-weights-gpu": ("权重：每卡", "Weights: per GPU"),
    "planner-fig-kv-pool": ("每卡 KV 池", "KV pool per GPU"),
    "planner-fig-kv-token": ("每 token KV：全模型", "KV per token: whole model"),
    "planner-fig-kv-token-gpu": ("每 token KV：每卡", "KV per token: per GPU"),
    "planner-fig-max-tokens": ("最大 token 数（KV 池容量）", "Maximum tokens (KV pool capacity)"),
    "planner-fig-swa-tokens": ("SWA 池 token 数", "SWA pool tokens"),
    "planner-fig-requests": (
        "同时容纳的满长请求（{context} token）",
        "Full-length requests at once ({context} tokens)",
    ),
    "planner-notes": ("说明", "Notes"),
    "planner-command": ("建议的启动命令", "Suggested launch command"),
    "planner-share": ("本规划的链接", "Link to this plan"),
    "planner-not-published-fields": ("未公开（{fields}）", "not published ({fields})"),
    "planner-not-applicable": ("—", "—"),
    "planner-loading": ("正在加载规划器数据…", "Loading the planner's data…"),
    "planner-load-failed": (
        "无法加载规划器数据（{url}）。请通过 HTTP 访问本站，而不是直接打开本地文件。",
        "The planner's data could not be loaded ({url}). Serve the site over HTTP instead of opening the files directly.",
    ),
    "planner-noscript": (
        "规划器需要 JavaScript；命令行 python -m handbook plan 给出同样的数字。",
        "The planner needs JavaScript; the command line python -m handbook plan gives the same figures.",
    ),
    "planner-invalid-param": (
        "链接中的 {name}={value} 无效，已改用默认值 {fallback}。",
        "The link's {name}={value} is not valid; the default {fallback} is used instead.",
    ),
    "planner-invalid-input": (
        "{name} 的取值 {value} 无效，已改用 {fallback}。",
        "{value} is not a valid {name}; {fallback} is used instead.",
    ),
    "planner-weights-do-not-fit": (
        "权重放不下：每卡需要 {weights}，而 --mem-fraction-static {fraction} 只给 {budget}，差 {short}。",
        "The weights do not fit: each GPU needs {weights}, but --mem-fraction-static {fraction} gives {budget}, {short} short.",
    ),
    "planner-no-room": (
        "权重之后的 KV 池连一页（{page} token）都放不下，SGLang 会以 “Not enough memory” 拒绝启动。",
        "After the weights, the KV pool cannot hold one page ({page} tokens); SGLang refuses to start with “Not enough memory”.",
    ),
    "planner-auto-headroom": (
        "自动：TP {tp} 是能放下权重、且每卡 KV 池还能容纳一条 {context} token 请求的最小 2 的幂。",
        "Auto: TP {tp} is the smallest power of two that holds the weights and, on each GPU, a KV pool for one {context}-token request.",
    ),
    "planner-auto-weights-only": (
        "自动：TP {tp} 是能放下权重的最小 2 的幂（KV 未公开，未计 KV 余量）。",
        "Auto: TP {tp} is the smallest power of two that holds the weights (the KV is not published, so no KV headroom is counted).",
    ),
    "planner-auto-none-fits": (
        "自动：直到 TP 64 都放不下（含一条 {context} token 请求的余量），这里显示 SGLang 接受的最大 TP {tp}。",
        "Auto: no TP up to 64 fits (with room for one {context}-token request); the largest TP SGLang accepts, {tp}, is shown.",
    ),
    "planner-auto-unknown": (
        "自动：权重或显存未公开，无法选择 TP，这里显示 TP {tp}。",
        "Auto: the weights or the memory are not published, so no TP can be chosen; TP {tp} is shown.",
    ),
    "planner-path-recipe": (
        "checkpoint 取自源稿中同精度的启动命令。",
        "The checkpoint is taken from one of the source's commands in this precision.",
    ),
    "planner-path-recipe-unstated-precision": (
        "源稿未给出 {dtype} 的 checkpoint；这里用源稿命令中的 {path}，源稿未注明它的精度。",
        "The source names no {dtype} checkpoint; this uses {path} from the source's commands, whose precision it does not state.",
    ),
    "planner-path-none": (
        "源稿未给出 {dtype} 的 checkpoint：请把 <model> 换成实际路径。",
        "The source names no {dtype} checkpoint: replace <model> with the real path.",
    ),
    "planner-multi-node": (
        "TP 组大于一台机器的 GPU 数时，还需 --nnodes、--node-rank 与 --dist-init-addr（见第 05 章）。",
        "A TP group larger than one machine's GPUs also needs --nnodes, --node-rank and --dist-init-addr (chapter 05).",
    ),
    "planner-basis": (
        "按 SGLang {version} 的公式计算，显存按厂商标称值；实际以启动日志中的 max_total_num_tokens 为准。",
        "Computed with SGLang {version}'s formulas from the vendor's nominal memory; the startup log's max_total_num_tokens is the final word.",
    ),
    "planner-note-kv-heads-replicated": (
        "TP {tp} 大于 KV head 数 {kv_heads}：每卡各保留 1 个 KV head（复制），每卡 KV 不再随 TP 减少。",
        "TP {tp} exceeds the {kv_heads} KV heads: each GPU keeps one KV head (replicated), so the per-GPU KV stops shrinking with TP.",
    ),
    "planner-note-mla-replicated": (
        "MLA 的潜向量不按 head 切分：每张卡都存完整的每 token KV。",
        "The MLA latent is not split by heads: every GPU stores the whole per-token KV.",
    ),
    "planner-note-swa-pool": (
        "{sliding} 层滑窗注意力另有 SWA 池，token 数为全注意力池的 {ratio} 倍（--swa-full-tokens-ratio）；两池共用 KV 预算。",
        "The {sliding} sliding-window layers have their own SWA pool holding {ratio} × the full pool's tokens (--swa-full-tokens-ratio); both pools share the KV budget.",
    ),
    "planner-note-linear-state": (
        "线性注意力层的循环状态（每请求常数大小）在单独的状态池里，SGLang 先从同一预算中划出它；知识库没有计算其大小所需的字段，这里未扣除，实际 token 数会更少。",
        "The linear-attention layers keep a constant-size recurrent state per request in a separate pool that SGLang carves out of the same budget first; the KB lacks the fields to size it, so it is not deducted here and the real token count is lower.",
    ),
    "planner-note-sparse-indexer": (
        "DSA 索引器（top-{topk}）另有每 token 的索引缓存，其大小（index_head_dim）未公开，未计入；实际 token 数会更少。",
        "The DSA indexer (top-{topk}) keeps its own per-token cache, whose size (index_head_dim) is not published and not counted; the real token count is lower.",
    ),
    "planner-note-dsa-fp8-layout": (
        "DSA 模型用 FP8 KV 时，部分后端每 128 个元素另存 4 字节缩放、并以 BF16 存 RoPE 部分；这里按原始布局（kv_lora_rank + qk_rope_head_dim）计算。",
        "With FP8 KV on a DSA model some backends also store a 4-byte scale per 128 elements and keep the RoPE part in BF16; this uses the raw layout (kv_lora_rank + qk_rope_head_dim).",
    ),
    "planner-note-heads-indivisible": (
        "TP {tp} 不能整除 {heads} 个注意力 head，SGLang 会拒绝启动。",
        "TP {tp} does not divide the {heads} attention heads; SGLang refuses to start.",
    ),
    "planner-note-kv-heads-indivisible": (
        "TP {tp} 与 {kv_heads} 个 KV head 互不整除，SGLang 会拒绝启动。",
        "TP {tp} and the {kv_heads} KV heads do not divide one another; SGLang refuses to start.",
    ),
    "planner-note-context-over-native": (
        "上下文 {context} 超过模型原生的 {native}：需要 RoPE 扩展（如 YaRN），见第 06 章。",
        "The context of {context} exceeds the model's native {native}: it needs RoPE scaling (such as YaRN); see chapter 06.",
    ),
    "planner-note-capped": (
        "--max-total-tokens 低于显存能容纳的 token 数，KV 池按它截断。",
        "--max-total-tokens is below what the memory holds; the pool is cut to it.",
    ),
    "planner-cli-unknown": (
        "未知的{what} “{value}”{hint}。可选：{choices}",
        "unknown {what} '{value}'{hint}. Choose one of: {choices}",
    ),
    "planner-cli-did-you-mean": ("（是否指 “{close}”？）", " (did you mean '{close}'?)"),
    "planner-cli-range": ("{flag} 须{rule}，收到 {value}", "{flag} must be {rule}, got {value}"),
    "planner-cli-rule-fraction": ("大于 0 且小于 1", "greater than 0 and less than 1"),
    "planner-cli-rule-ratio": ("大于 0 且不超过 1", "greater than 0 and at most 1"),
    "planner-cli-rule-positive": ("至少为 1", "at least 1"),
    "planner-cli-rule-ep": ("整除 --tp（{tp}）", "a divisor of --tp ({tp})"),
    "planner-cli-what-model": ("模型", "model"),
    "planner-cli-what-gpu": ("加速卡", "accelerator"),
    "planner-cli-what-weights-dtype": ("权重精度", "weights dtype"),
    "planner-cli-what-kv-dtype": ("KV 精度", "KV dtype"),
    "planner-cli-plan": (
        "{model} · {gpu} × {tp}（TP {tp}{ep}）· 权重 {weights} · KV {kv} · --mem-fraction-static {fraction} · 上下文 {context}",
        "{model} · {gpu} × {tp} (TP {tp}{ep}) · weights {weights} · KV {kv} · --mem-fraction-static {fraction} · context {context}",
    ),
    "planner-cli-smallest-tp": ("能放下的最小 TP 是 {tp}。", "The smallest TP that fits is {tp}."),
}
