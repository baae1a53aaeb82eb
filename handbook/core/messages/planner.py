"""The planner's wording: the page (kb:planner), its script (docs/assets/planner.js) and `python -m handbook plan`. Each entry is (zh, en)."""

MESSAGES: dict[str, tuple[str, str]] = {
    # kb:planner (docs/*/planner.md), docs/assets/planner.js and `python -m handbook plan`
    "planner-model": ("模型", "Model"),
    # planner.md's opening paragraph (render/planner.py planner_common_context)
    "planner-opening-unpublished": (
        "本 KB 没有原生上下文（context.native 或 config.max_position_embeddings）的模型（{models}）以规划器的默认值 "
        "{tokens} token 打开，请改成你实际服务的上下文。",
        "A model whose native context is not in this KB (context.native or config.max_position_embeddings) "
        "({models}) opens on the planner's default of {tokens} tokens: change it to the context you serve.",
    ),
    "planner-gpu": ("加速卡", "Accelerator"),
    "planner-tp": ("GPU 数（TP）", "GPUs (TP)"),
    "planner-tp-auto": ("自动", "auto"),
    "planner-ep": ("EP（专家并行）", "EP (expert parallelism)"),
    "planner-weights-dtype": ("权重精度", "Weight precision"),  # the configurator's cfg-precision
    "planner-kv-dtype": ("KV Cache 精度", "KV cache dtype"),
    "planner-mem-fraction": (
        "--mem-fraction-static（留空：引擎的默认值）",
        "--mem-fraction-static (empty: the engine's default)",
    ),
    "planner-free-gib": (
        "加载前空闲显存，GiB（留空：设备上报的全部显存）",
        "Free memory before loading, GiB (empty: all the device reports)",
    ),
    "planner-context": ("上下文长度（token）", "Context length (tokens)"),
    "planner-context-max": ("改用模型的最大上下文：{native}", "Use the model's maximum: {native}"),
    "planner-advanced": ("更多参数", "More settings"),
    "planner-page-size": ("--page-size（留空：引擎的选择）", "--page-size (empty: the engine's choice)"),
    "planner-max-running-requests": (
        "--max-running-requests（留空：引擎的估算）",
        "--max-running-requests (empty: the engine's estimate)",
    ),
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
    "planner-legend-state": ("状态池与多模态预留", "State pool and multimodal reserve"),
    "planner-legend-rest": ("CUDA Graph 与激活", "CUDA graphs and activations"),
    "planner-legend-over": ("超出预算的权重", "Weights over the budget"),
    "planner-figures": ("计算结果", "Figures"),
    "planner-fig-gpu": ("单卡显存（设备上报）", "GPU memory (as the device reports it)"),
    "planner-fig-free": ("加载前空闲显存", "Free before loading"),
    "planner-fig-fraction": ("--mem-fraction-static（定池所用）", "--mem-fraction-static (as the pool is sized)"),
    "planner-fig-static": ("静态预算（权重 + 各池）", "Static budget (weights + pools)"),
    "planner-fig-rest": ("预算之外（CUDA Graph 与激活）", "Outside the budget (CUDA graphs and activations)"),
    "planner-fig-weights": ("权重：全模型", "Weights: whole model"),
    "planner-fig-weights-gpu": ("权重：每卡", "Weights: per GPU"),
    "planner-fig-budget": ("每卡扣除权重后的余量", "Left after the weights, per GPU"),
    "planner-fig-state": ("每卡线性注意力状态池", "Linear-attention state pool per GPU"),
    "planner-fig-kv-pool": ("每卡 KV 池", "KV pool per GPU"),
    "planner-fig-kv-token": ("每 token KV：全模型", "KV per token: whole model"),
    "planner-fig-kv-token-gpu": ("每 token KV：每卡", "KV per token: per GPU"),
    "planner-fig-page": ("页大小（token）", "Page size (tokens)"),
    "planner-fig-max-tokens": ("最大 token 数（KV 池容量）", "Maximum tokens (KV pool capacity)"),
    "planner-fig-swa-tokens": ("SWA 池 token 数", "SWA pool tokens"),
    "planner-fig-requests": (
        "同时容纳的满长请求（{context} token）",
        "Full-length requests at once ({context} tokens)",
    ),
    "planner-fig-running": ("SGLang 的 max_running_requests", "SGLang's max_running_requests"),
    "planner-gpu-reported": ("{size}（设备上报 {mib} MiB；厂商标称 {gb} GB）", "{size} ({mib} MiB as reported; vendor: {gb} GB)"),
    "planner-gpu-bound": ("{size}（厂商标称 {gb} GB 按 GiB 计）", "{size} (the vendor's {gb} GB read as GiB)"),
    "planner-fraction-default": ("{value}：引擎对本卡、TP {tp} 的默认值", "{value}: the engine's default for this GPU at TP {tp}"),
    "planner-fraction-given": ("{value}：给定", "{value}: given"),
    "planner-fraction-aiter": ("{value} = {base} × 0.85（aiter，上下文超过 8,192）", "{value} = {base} × 0.85 (aiter, context above 8,192)"),
    "planner-weights-formula": ("{size}（{params} 个参数，按架构字段计算）", "{size} ({params} parameters, from the architecture fields)"),
    "planner-state-text": ("{size}：{slots} 个槽 × 每请求 {per_request}", "{size}: {slots} slots × {per_request} per request"),
    "planner-page-engine": ("{page}（引擎为 {backend} 所设）", "{page} (the engine's, for {backend})"),
    "planner-page-given": ("{page}（给定）", "{page} (given)"),
    "planner-indexer": ("索引器", "indexer"),
    "planner-sep-reasons": ("；", "; "),
    "planner-bound": ("≤ {value}（上限：{reasons}）", "≤ {value} (upper bound: {reasons})"),
    "planner-bounded-range": ("≤ {value}（上限：{reasons}。{looseness}）", "≤ {value} (upper bound: {reasons}; {looseness})"),
    "planner-loose-within": (
        "引擎的数字在 {lower} 到 {value} 之间：此上限至多比它高 {percent}%",
        "the engine's figure lies between {lower} and {value}: this bound is at most {percent} % above it",
    ),
    "planner-loose-beyond": (
        "引擎的数字在 {lower} 到 {value} 之间：此上限可比它高出 {percent}%，超过 {stated}%{because}；{exact}",
        "the engine's figure lies between {lower} and {value}: this bound can be up to {percent} % above it, more than {stated} %{because}; {exact}",
    ),
    "planner-loose-refuse": (
        "引擎的数字在 0 到 {value} 之间：在另一端引擎拒绝启动{because}；{exact}",
        "the engine's figure lies between 0 and {value}: at the other extreme the engine refuses to start{because}; {exact}",
    ),
    "planner-loose-unknown": (
        "比引擎的数字高出多少无法算出{because}：引擎代码与本 KB 都给不出它的另一端；{exact}",
        "how far above the engine's figure it lies cannot be computed{because}: neither the engine's code nor this KB bounds it from the other side; {exact}",
    ),
    "planner-loose-exact": ("本 KB 补上 {fields} 即可算准", "{fields} in this KB would make it exact"),
    # only where the bound has other reasons too: which of them the sentence is about
    "planner-loose-because": ("，因为{why}", ", because {why}"),
    "planner-loose-exact-platform": (
        "只有为这种加速卡的引擎路径建模才能算准",
        "only a model of this accelerator's engine path would make it exact",
    ),
    "planner-note-bounds": (
        "标 ≤ 的数字是上限（≈ 为由上限算出的近似值），因为{reasons}。",
        "Figures marked ≤ are upper bounds (≈: computed from them), because {reasons}.",
    ),
    "planner-bound-reported-memory": ("本 KB 没有本卡的设备上报显存", "this GPU's device-reported memory is not in this KB"),
    "planner-bound-vision-config": ("本 KB 没有视觉编码器的 vision_config", "the vision encoder's vision_config is not in this KB"),
    "planner-bound-kv-heads": ("本 KB 没有 KV 头数（它决定 AMD 上是否用 aiter）", "the KV heads are not in this KB (they decide aiter on AMD)"),
    "planner-bound-architecture": ("本 KB 没有模型架构（引擎按模型的覆盖）", "the architecture (the engine's per-model overrides) is not in this KB"),
    "planner-bound-platform": ("引擎在这种加速卡上的后端选择未建模", "the engine's backend choices on this accelerator are not modelled"),
    "planner-bound-indexer": ("本 KB 没有 DSA 索引器的宽度或层分布", "the DSA indexer's width or layer schedule is not in this KB"),
    "planner-bound-state-dtype": ("本 KB 没有循环状态的 dtype（mamba_ssm_dtype）", "the recurrent state's dtype (mamba_ssm_dtype) is not in this KB"),
    "planner-bound-state-shape": ("本 KB 没有循环状态的形状（linear_* 字段）", "the recurrent state's shape (the linear_* fields) is not in this KB"),
    "planner-notes": ("说明", "Notes"),
    "planner-command": ("建议的启动命令", "Suggested launch command"),
    "planner-share": ("本规划的链接", "Link to this plan"),
    "planner-not-published-fields": ("本 KB 没有（{fields}）", "not in this KB ({fields})"),
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
    "planner-state-no-room": (
        "权重之后的余量放不下线性注意力状态池（连一个请求的槽都没有），SGLang 会拒绝启动。",
        "After the weights there is no room for the linear-attention state pool (not one request's slot); SGLang refuses to start.",
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
        "自动：TP {tp} 是能放下权重的最小 2 的幂（本 KB 没有 KV 字段，未计 KV 余量）。",
        "Auto: TP {tp} is the smallest power of two that holds the weights (the KV fields are not in this KB, so no KV headroom is counted).",
    ),
    "planner-auto-none-fits": (
        "自动：直到 TP 64 都放不下（含一条 {context} token 请求的余量），这里显示 SGLang 接受的最大 TP {tp}。",
        "Auto: no TP up to 64 fits (with room for one {context}-token request); the largest TP SGLang accepts, {tp}, is shown.",
    ),
    "planner-auto-unknown": (
        "自动：本 KB 没有权重或显存，无法选择 TP，这里显示 TP {tp}。",
        "Auto: the weights or the memory are not in this KB, so no TP can be chosen; TP {tp} is shown.",
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
    "planner-command-aiter": (
        "SGLang 会把这条命令的 --mem-fraction-static（未设时为引擎的默认值）再乘 0.85（aiter，上下文超过 8,192），上面的数字已按此计算。",
        "SGLang multiplies this command's --mem-fraction-static (the engine's default where it sets none) by 0.85 (aiter, context above 8,192); the figures above already do.",
    ),
    "planner-basis": (
        "按 SGLang {version} 自身的定池规则计算，显存按设备上报值；实际以启动日志中的 max_total_num_tokens 为准。",
        "Computed with SGLang {version}'s own sizing rules from the device-reported memory; the startup log's max_total_num_tokens is the final word.",
    ),
    "planner-note-default-fraction": (
        "--mem-fraction-static 取引擎对本卡、TP {tp} 的默认值 {default}（按设备上报显存分档，arg_groups/memory_hook.py）；可在上方改写。",
        "--mem-fraction-static is the engine's default for this GPU at TP {tp}, {default} (tiered by the device-reported memory, arg_groups/memory_hook.py); set your own above.",
    ),
    "planner-note-vlm-fraction": (
        "多模态模型：引擎把默认值再乘 0.95 × 视觉编码器系数（0.8～1.05）。",
        "A multimodal model: the engine multiplies its default by 0.95 × a vision-encoder factor (0.8 to 1.05).",
    ),
    "planner-note-aiter": (
        "AMD 上用 aiter 后端且上下文超过 8,192 时，SGLang 把 --mem-fraction-static（包括给定的值）乘以 0.85：这里按 {fraction} 计算。",
        "With the aiter backend on AMD and a context above 8,192, SGLang multiplies --mem-fraction-static by 0.85, a given value too: the figures use {fraction}.",
    ),
    "planner-note-free-assumed": (
        "加载前空闲显存按设备上报的全部显存计（假设卡上别无占用）；CUDA 上下文与 NCCL 会先占去一些（SGLang 文档的启动日志里，80 GB 级的卡在 TP 1 时约 0.8 GiB），实际的池会略小。要与日志对齐，把日志中 Load weight begin 的 avail mem 填作加载前空闲显存。",
        "Free memory before loading is taken as all the memory the device reports (nothing else resident); the CUDA context and NCCL take some first (about 0.8 GiB on an 80 GB-class card at TP 1 in SGLang's documented startup log), so the real pool is a little smaller. To match a log, enter its Load weight begin avail mem as the free memory.",
    ),
    "planner-note-memory-bound": (
        "本 KB 没有本卡的设备上报显存：这里把厂商标称的 {nominal} GB 按 GiB 读作上限，依赖它的数字都是上限。",
        "This GPU's device-reported memory is not in this KB: the vendor's {nominal} GB is read as GiB for an upper bound, and every figure that depends on it is an upper bound.",
    ),
    "planner-note-weights-formula": (
        "本 KB 没有参数量，按架构字段计算：{formula} = {params}。",
        "The parameter count is not in this KB; it follows from the architecture fields: {formula} = {params}.",
    ),
    "planner-note-weights-mixed": (
        "权重按架构和量化配置计算：量化配置量化的专家矩阵按 MXFP4 计（每个元素半字节，另加每 32 个元素一个 E8M0 缩放字节），其余（它不量化的模块，以及 norm、sink 和专家偏置）按引擎加载的 BF16 计：{formula} 字节。没有计入 MoE 后端在部分加速卡上对专家维度的填充和重排（Blackwell 上 FlashInfer 的 MXFP4 路径、AMD 上的 aiter、Hopper 上的 triton_kernels）：在这些卡上实际权重更大，KV 池和 token 数比这里给出的小。",
        "The weights follow from the architecture and the quantization config: the experts' matrices it quantizes count as MXFP4 (half a byte per element plus one E8M0 scale byte per 32), the rest (the modules it leaves unquantized, and the norms, sinks and expert biases) as the BF16 the engine loads them in: {formula} bytes. Not counted: the padding and re-layout of the experts that the MoE backend does on some accelerators (FlashInfer's MXFP4 path on Blackwell, aiter on AMD, triton_kernels on Hopper); there the real weights are larger, and the KV pool and tokens smaller, than shown.",
    ),
    "planner-note-ple-offload": (
        "CUDA 上 SGLang 默认把 Qwen4 架构的 N-gram embedding 留在显存之外（--ple-offload-embedding）；这里的权重仍按全部参数计，实际的 KV 池更大。",
        "On CUDA SGLang keeps the Qwen4 architecture's N-gram embedding off the GPU by default (--ple-offload-embedding); the weights here still count every parameter, so the real KV pool is larger.",
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
        "{linear} 层线性注意力的循环状态在单独的状态池里：SGLang 先把余量的 {mamba_ratio}/(1 + {mamba_ratio}) 划给它（--mamba-full-memory-ratio {mamba_ratio}），每请求一个槽，另加一个填充槽。",
        "The {linear} linear-attention layers keep a recurrent state per request in a pool of its own: SGLang first gives it {mamba_ratio}/(1 + {mamba_ratio}) of what is left (--mamba-full-memory-ratio {mamba_ratio}), one slot per request plus one padding slot.",
    ),
    "planner-note-state-capped": (
        "SGLang 的 max_running_requests 受状态池限制：{slots} 个槽 ÷ 5（每请求 3 个槽 + 2 个跟踪槽）。",
        "SGLang's max_running_requests is capped by the state pool: {slots} slots ÷ 5 (3 per request + 2 tracking slots).",
    ),
    "planner-note-multimodal-reserve": (
        "多模态模型：SGLang 先从预算中留出 {mm} MiB（SGLANG_VLM_CACHE_SIZE_MB）。",
        "A multimodal model: SGLang first reserves {mm} MiB of the budget (SGLANG_VLM_CACHE_SIZE_MB).",
    ),
    "planner-note-sparse-indexer": (
        "DSA 索引器（top-{topk}）在自己计算 top-k 的 {indexer_layers} 层上另存每 token 的索引缓存（FP8 键 + 缩放），每卡每 token {indexer} 字节，已计入。",
        "The DSA indexer (top-{topk}) keeps its own per-token cache (FP8 keys + scales) on the {indexer_layers} layers that compute their own top-k, {indexer} bytes per token on each GPU, counted.",
    ),
    "planner-note-dsa-fp8-layout": (
        "Hopper 上 DSA 模型用 FP8 KV 时，默认后端（flashmla_kv）每层存 {row} 字节：每 128 个元素另有 4 字节缩放，RoPE 部分为 BF16，已计入。",
        "With FP8 KV on a DSA model on Hopper, the default backend (flashmla_kv) stores {row} bytes per layer: a 4-byte scale per 128 elements and the RoPE part in BF16, counted.",
    ),
    "planner-note-qsa-indexer": (
        "QSA 压缩索引器每卡每 token 另存 {indexer} 字节（BF16 键，压缩比 {compress}），已计入。",
        "The QSA compressed indexer keeps {indexer} bytes per token on each GPU as well (BF16 keys, compressed {compress}×), counted.",
    ),
    "planner-note-page-size": (
        "SGLang 为 {backend} 后端把页大小设为 {page}，token 数按整页向下取整。",
        "SGLang sets the page size to {page} for the {backend} backend; the token count is rounded down to whole pages.",
    ),
    "planner-note-heads-indivisible": (
        "TP {tp} 不能整除 {heads} 个注意力 head，SGLang 会拒绝启动。",
        "TP {tp} does not divide the {heads} attention heads; SGLang refuses to start.",
    ),
    "planner-note-dsv4-pool": (
        "DeepSeek-V4 用自己的压缩 KV 池：{c4_layers} 层按 4:1 压缩（另存 C4 索引器的 FP8 键），{c128_layers} 层按 128:1 压缩，每层另在 SWA 池里保留最近 {window} 个 token（SWA 池的 token 数为全池的 {ratio} 倍）；每卡存整份 512 宽的 KV 头。128:1 层的压缩状态按请求槽（max_running_requests + 1，未指定时 SGLang 设为 {dsv4_running}）先从预算中划出，已计入。",
        "DeepSeek-V4 has a compressed KV pool of its own: {c4_layers} layers compressed 4:1 (with the C4 indexer's FP8 keys), {c128_layers} layers 128:1, and every layer keeps its last {window} tokens in the SWA pool ({ratio} × the full pool's tokens); each GPU holds the whole 512-wide KV head. The 128:1 layers' compress state is taken from the budget first, per request slot (max_running_requests + 1; SGLang sets {dsv4_running} when none is given), counted.",
    ),
    "planner-note-kv-dtype-refused": (
        "SGLang 0.5.23 对 DeepSeek-V4 只接受 --kv-cache-dtype 为 {accepted} 之一，这个 KV 精度的取值会让它拒绝启动；池的大小与取值无关（V4 布局），按同样的字节计算。",
        "SGLang 0.5.23 accepts only {accepted} as --kv-cache-dtype for DeepSeek-V4 and refuses to start with this KV dtype's value; the pool does not depend on it (the V4 layout), so its size is the same.",
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
    "planner-note-multi-node": (
        "TP {tp} 超过一台 {gpu} 服务器的 {per_node} 张卡：还需 --nnodes、--node-rank 与 --dist-init-addr（见第 05 章）。",
        "TP {tp} is more than one {gpu} server's {per_node} GPUs: it also needs --nnodes, --node-rank and --dist-init-addr (chapter 05).",
    ),
    "planner-note-multi-node-unknown": (
        "本 KB 没有这种加速卡每台服务器装几张：TP 组若跨机器，还需 --nnodes、--node-rank 与 --dist-init-addr（见第 05 章）。",
        "How many of these GPUs one server holds is not in this KB: if the TP group spans machines, it also needs --nnodes, --node-rank and --dist-init-addr (chapter 05).",
    ),
    "planner-cli-no-default-fraction": (
        "--tp：得到 {tp}，而引擎在 {gpu} 上对此 TP 的默认 --mem-fraction-static 是 {fraction}，不给模型留任何显存；请给更小的 --tp，或自己给出 --mem-fraction-static",
        "--tp: got {tp}, for which the engine's default --mem-fraction-static on {gpu} is {fraction}, leaving nothing for the model; give a smaller --tp or your own --mem-fraction-static",
    ),
    "planner-cli-range": ("{flag} 须{rule}，收到 {value}", "{flag} must be {rule}, got {value}"),
    "planner-cli-rule-fraction": ("大于 0 且小于 1", "greater than 0 and less than 1"),
    "planner-cli-rule-ratio": ("大于 0 且不超过 1", "greater than 0 and at most 1"),
    "planner-cli-rule-positive": ("至少为 1", "at least 1"),
    "planner-cli-rule-free": ("大于 0", "greater than 0"),
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
