"""The doctor's wording beyond single findings: abbreviations that hold in every release, one finding for
one cause, corrected commands, and a command sized on the reader's accelerator. Each entry is (zh, en)."""

MESSAGES: dict[str, tuple[str, str]] = {
    "check-flag-abbreviation-stable": (
        "{flag} 是 {full} 的前缀缩写（argparse 前缀匹配）：在存有快照的 {count} 个版本（{releases}）里它都只匹配 {full}，所以能用；写全 {full} 更稳妥",
        "{flag} is an abbreviation of {full} (argparse prefix matching): in each of the {count} stored releases ({releases}) it matches {full} alone, so it works; writing {full} in full is safer",
    ),
    "check-dp-attention-old-spelling": (
        "{dp} {value} 加 {enable} 是注意力 DP 的旧写法（{enable} 已弃用）：sglang {version} 把它读作 --attn-dp-size {value}（--dp-size 取 1）。请写 --attn-dp-size {value}，并去掉 {dp} 与 {enable}：逐条照“改用”的提示改会同时留下 --dp-size {value} 与 --attn-dp-size {value}，而这两者不能同时使用",
        "{dp} {value} with {enable} is the old spelling of attention DP ({enable} is deprecated): sglang {version} reads it as --attn-dp-size {value} (with --dp-size 1). Write --attn-dp-size {value} and drop {dp} and {enable}; replacing each flag on its own would leave --dp-size {value} beside --attn-dp-size {value}, which cannot be combined",
    ),
    "check-cli-gpu-unknown": ("{option}：没有 {got}，可用的有 {known}", "{option}: got {got}, expected one of {known}"),
    "check-corrected": ("改正后的命令（第 {line} 行起）：", "Corrected command (from line {line}):"),
    # a command sized on the reader's accelerator (handbook/checker/sizing.py)
    "sizing-what": ("{gpu} 上的 {model} {dtype}（TP {tp}、EP {ep}，KV {kv}）", "{model} {dtype} on {gpu} (TP {tp}, EP {ep}, KV {kv})"),
    "sizing-bound": ("（有的数字是上界，原因见规划器页）", " (some figures are upper bounds; the planner page says why)"),
    "sizing-weights": (
        "{what}：每卡权重 {weights}，超过静态预算 {static}（加载前空闲 {free} × --mem-fraction-static {fraction}）：SGLang 拒绝启动（kv_cache_configurator.py _profile_available_bytes 抛出 ValueError）。需要更大的 TP、显存更大的卡或更小的精度{bound}",
        "{what}: the weights take {weights} per GPU, more than the static budget of {static} (free before loading {free} × --mem-fraction-static {fraction}), so SGLang refuses to start (ValueError in kv_cache_configurator.py _profile_available_bytes); it needs a larger TP, GPUs with more memory or a smaller precision{bound}",
    ),
    "sizing-refused": (
        "{what}：扣除每卡权重 {weights} 与状态池之后，KV 池一点不剩：SGLang 拒绝启动（pool_configurator.py 抛出 RuntimeError：Not enough memory）{bound}",
        "{what}: after the weights ({weights} per GPU) and the state pool, nothing is left for the KV pool, so SGLang refuses to start (RuntimeError in pool_configurator.py: Not enough memory){bound}",
    ),
    "sizing-kv": (
        "{what}：每卡 KV 池 {pool}，只容 {tokens} 个 token，装不下一个满长请求（{context} token）：SGLang 会打 WARNING 并把单个请求限制在池的容量内（tp_worker.py get_worker_info），更长的请求会被拒绝或截断{bound}",
        "{what}: the KV pool gets {pool} per GPU, {tokens} tokens, fewer than one full request ({context} tokens); SGLang logs a WARNING and caps each request at the pool (tp_worker.py get_worker_info), so longer requests are refused or truncated{bound}",
    ),
    "sizing-fits": (
        "{what}：每卡权重 {weights}，每卡 KV 池 {pool}，共 {tokens} 个 token，可同时容纳 {requests} 个满长请求（{context} token）{bound}",
        "{what}: weights {weights} per GPU, KV pool {pool} per GPU, {tokens} tokens: {requests} full requests of {context} tokens at once{bound}",
    ),
    "sizing-fits-weights": (
        "{what}：每卡权重 {weights} 放得进静态预算 {static}；开了注意力 DP 时不评 KV 池（规划器按注意力 TP = TP 计算）{bound}",
        "{what}: the weights ({weights} per GPU) fit the static budget of {static}; the KV pool is not judged under attention DP (the planner keeps attention TP = TP){bound}",
    ),
    "sizing-kv-unpublished": (
        "{what}：每卡权重 {weights} 放得进静态预算 {static}；KV 池未估算：知识库缺 {fields}{bound}",
        "{what}: the weights ({weights} per GPU) fit the static budget of {static}; the KV pool is not sized: the knowledge base lacks {fields}{bound}",
    ),
    "sizing-fraction": (
        "{gpu} 上 TP {tp} 时，--mem-fraction-static {given} 只在静态预算之外留下每卡 {rest} 给 CUDA Graph 与激活，少于引擎自己的默认值（{default}）留出的 {reserve}：引擎不检查这一点，本站建议不要超过默认值，除非实测过负载",
        "--mem-fraction-static {given} on {gpu} at TP {tp} leaves {rest} per GPU outside the static budget for CUDA graphs and activations, less than the {reserve} the engine's own default ({default}) keeps; the engine does not check this, and this site advises staying at or below the default unless the load has been measured",
    ),
    "sizing-no-model": (
        "{gpu}：未估算显存：--model-path 不是本知识库列出的 checkpoint",
        "{gpu}: not sized: --model-path is not a checkpoint this knowledge base lists",
    ),
    "sizing-placeholder": (
        "{gpu}：未估算显存：规划器要用的值被占位符挡住了",
        "{gpu}: not sized: a placeholder hides a value the planner needs",
    ),
    "sizing-too-large": ("{gpu}：未估算显存：有取值超过 {limit}", "{gpu}: not sized: a size is above {limit}"),
    "sizing-pipeline": (
        "{gpu}：未估算显存：规划器不计算流水并行（--pp-size）",
        "{gpu}: not sized: the planner does not model pipeline parallelism (--pp-size)",
    ),
    "sizing-kv-unknown": (
        "{gpu}：未估算显存：规划器没有 --kv-cache-dtype {kv} 对应的 KV 精度",
        "{gpu}: not sized: the planner has no KV precision for --kv-cache-dtype {kv}",
    ),
    "sizing-impossible": ("{gpu}：未估算显存：规划器不接受这些取值（{why}）", "{gpu}: not sized: the planner refuses these sizes ({why})"),
    "sizing-unpublished": ("{what}：未估算显存：知识库缺 {fields}", "{what}: not sized: the knowledge base lacks {fields}"),
}
