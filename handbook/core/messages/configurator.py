"""The configurator's and the command doctor's wording: their pages, docs/assets/doctor.js
and `python -m handbook configure`. Each entry is (zh, en)."""

MESSAGES: dict[str, tuple[str, str]] = {
    # the form (kb:configurator)
    "cfg-gpus": ("每节点 GPU 数", "GPUs per node"),
    "cfg-context": ("需要的上下文（token）", "Context needed (tokens)"),
    "cfg-precision-none": ("（知识库中没有）", "(none in this KB)"),
    "cfg-model": ("模型", "Model"),
    "cfg-gpu": ("加速卡", "Accelerator"),
    "cfg-precision": ("权重精度", "Weight precision"),
    "cfg-goal": ("目标", "Goal"),
    "cfg-goals-strategies": ("策略（第 06 章）", "Strategies (chapter 06)"),
    "cfg-goals-scenarios": ("场景（第 07 章）", "Scenarios (chapter 07)"),
    "cfg-nodes": ("可用节点数", "Nodes available"),
    "cfg-pd": ("PD 分离", "PD disaggregation"),
    "cfg-pd-unavailable": (
        "知识库只有 {models} 的 PD 分离命令",
        "The KB has PD-disaggregation commands for {models} only",
    ),
    "cfg-loading": ("正在加载配置器数据…", "Loading the configurator's data…"),
    "cfg-load-failed": (
        "无法加载配置器数据（{url}）。请通过 HTTP 访问本站，而不是直接打开本地文件。",
        "The configurator's data could not be loaded ({url}). Serve the site over HTTP instead of opening the files directly.",
    ),
    "cfg-noscript": (
        "配置器需要 JavaScript；命令行 python -m handbook configure 给出同样的命令。",
        "The configurator needs JavaScript; the command line python -m handbook configure prints the same commands.",
    ),
    "cfg-share": ("本配置的链接", "Link to this configuration"),
    "cfg-copy": ("复制", "Copy"),
    "cfg-copied": ("已复制", "Copied"),
    "cfg-invalid-param": (
        "链接中的 {name}={value} 无效，已改用 {fallback}。",
        "The link's {name}={value} is not valid; {fallback} is used instead.",
    ),
    # goals
    "cfg-goal-low-latency": ("Low-Latency（低延迟）", "Low-Latency"),
    "cfg-goal-balanced": ("Balanced（均衡）", "Balanced"),
    "cfg-goal-high-throughput": ("High-Throughput（高吞吐）", "High-Throughput"),
    # the verdict
    "cfg-status-recipe": (
        "这是本手册自己的命令（{title}），原样给出，连同它的说明与更正。",
        "This is the handbook's own command ({title}), as published, with its notes and corrections.",
    ),
    "cfg-status-recipe-goal": (
        "由本站组合：以本手册的命令（{title}）为底，加上第 07 章“{goal}”的参数。源稿没有这条命令。",
        "Composed by this site: the handbook's command ({title}) with chapter 07's flags for “{goal}”. The source does not give this command.",
    ),
    "cfg-status-composed": (
        "由本站根据知识库组合，不是源稿中的命令：规划器选的 TP、模型的解析器和所选目标的参数，每个参数都注明了来由。",
        "Composed by this site from the knowledge base, not a command from the source: the planner's TP, the model's parsers and the goal's flags, each flag with its reason.",
    ),
    "cfg-status-refused": (
        "知识库支持不了这个组合，所以这里不给命令：",
        "The knowledge base cannot support this combination, so no command is given:",
    ),
    # why a combination is refused
    "cfg-refused-memory": (
        "知识库没有 {gpu} 的显存数据（{fields}），无法规划",
        "The KB has no memory figure for {gpu} ({fields}), so nothing can be planned",
    ),
    "cfg-refused-weights": (
        "知识库没有 {model} 的参数量（{fields}），无法估算权重",
        "The KB has no parameter count for {model} ({fields}), so the weights cannot be sized",
    ),
    "cfg-refused-none-fits": (
        "放不下：直到 TP 64，{model} 的 {precision} 权重加一条 {context} token 的请求都放不进 {gpu}（--mem-fraction-static 取 SGLang 按卡与 TP 给出的默认值，或目标给出的值）",
        "Nothing fits: up to TP 64, {model}'s {precision} weights plus one {context}-token request do not fit in {gpu} (at SGLang's default --mem-fraction-static for each GPU and TP, or the goal's)",
    ),
    "cfg-refused-layout": (
        "{nodes} 个节点共 TP {tp}，SGLang 不接受：{model} 的 {heads} 个注意力 head（或 KV head）与 TP {tp} 不能整除",
        "{nodes} nodes make TP {tp}, which SGLang refuses: {model}'s {heads} attention heads (or its KV heads) and TP {tp} do not divide",
    ),
    "cfg-refused-context": (
        "“{goal}”的 --context-length {context} 超过 {model} 原生的 {native} token；知识库没有为这个组合给出扩展上下文的方法（见模型一节）",
        "“{goal}” sets --context-length {context}, beyond {model}'s native {native} tokens, and the KB gives no way to extend the context for this combination (see the model's section)",
    ),
    "cfg-refused-settings": (
        "规划器无法按“{goal}”的 {lines} 计算显存（知识库中没有这个取值），所以无从规划",
        "The planner cannot size memory with “{goal}”'s {lines} (the KB has no such value), so nothing can be planned",
    ),
    "cfg-refused-not-listed": (
        "本知识库中没有来源给出 {model} 在 {gpu} 上的任何精度（{file} 的 precisions[].runs_on）：不在本知识库中，并不表示没有人发布过",
        "Not in this KB: no source of this KB names any precision of {model} on {gpu} ({file}, precisions[].runs_on); that is not to say nobody published one",
    ),
    "cfg-refused-no-listed-hardware": (
        "本知识库没有来源给出 {model} 在任何加速卡上的精度",
        "No source of this KB names a precision of {model} on any accelerator",
    ),
    "cfg-alternative-gpu": (
        "最接近的可选组合：{gpu}（知识库中有 {model} 来源的加速卡：{listed}）",
        "The nearest supported choice: {gpu} (the accelerators this KB has a source for {model} on: {listed})",
    ),
    "cfg-refused-gpus": (
        "{context} token 的上下文需要 TP {tp}（每个实例 {tp} 张 GPU，共 {instances} 个实例），而你有 {nodes} 个节点 × {gpus} 张 {gpu}：需要 {need} 个节点",
        "A {context}-token context needs TP {tp} ({tp} GPUs per server instance, {instances} instance(s)), and you have {nodes} node(s) × {gpus} {gpu}: it needs {need} node(s)",
    ),
    "cfg-refused-context-recipe": (
        "{context} token 超过 {model} 原生的 {native}；本手册扩展上下文的命令是“{title}”，它不适用于这个组合（精度、加速卡、GPU 数或放不下）",
        "{context} tokens is beyond {model}'s native {native}; the handbook's command that extends it is “{title}”, which does not serve this choice (its precision, accelerator or GPUs, or it does not fit)",
    ),
    "cfg-why-checkpoint-listed": (
        "{precision} checkpoint；在 {gpu} 上给出它的来源：{sources}",
        "the {precision} checkpoint; the sources that name it on {gpu}: {sources}",
    ),
    "cfg-why-context-needed": (
        "你需要的上下文 {context} token（模型原生 {native}）",
        "the context you need, {context} tokens (the model's native context is {native})",
    ),
    "cfg-why-context-needed-no-native": (
        "你需要的上下文 {context} token",
        "the context you need, {context} tokens",
    ),
    "cfg-why-running-capped": (
        "目标给出 {given}，但这个 KV 池上 SGLang 最多同时运行 {engine} 个请求（kv_cache_configurator.py resolve_max_num_reqs）",
        "the goal gives {given}, but on this KV pool SGLang runs at most {engine} requests at once (kv_cache_configurator.py resolve_max_num_reqs)",
    ),
    "cfg-note-running-capped": (
        "目标的 --max-running-requests {given} 改为 {engine}：引擎在这个 KV 池上不会运行更多请求，命令与下面的规划一致",
        "The goal's --max-running-requests {given} becomes {engine}: the engine runs no more on this KV pool, so the command says what the plan below says",
    ),
    "cfg-note-idle-replicas": (
        "一个实例只用 {used} / {total} 张 GPU：其余 GPU 可各跑一个同样的实例（共 {replicas} 个，每个 TP {tp}），放在 sglang_router 之后做数据并行；或者在一个实例里用注意力 DP（--attn-dp-size <dp-size>）占满它们",
        "One server instance uses {used} of your {total} GPUs: run {replicas} identical instances (TP {tp} each) behind sglang_router for data parallelism, or fill them within one instance with attention DP (--attn-dp-size <dp-size>)",
    ),
    "cfg-note-idle": (
        "一个实例只用 {used} / {total} 张 GPU；其余的 GPU 不够再跑一个实例，可用注意力 DP（--attn-dp-size <dp-size>）在实例内使用它们",
        "One server instance uses {used} of your {total} GPUs; the rest cannot hold another instance, but attention DP (--attn-dp-size <dp-size>) can use them within it",
    ),
    "cfg-note-unverified": (
        "在 {gpu} 上给出 {precision} 的来源把这一格标为未验证（verified: false）",
        "The source that names {precision} on {gpu} marks that cell unverified (verified: false)",
    ),
    "cfg-note-recipe-unnamed": (
        "本手册的命令“{title}”没有指明加速卡；这里给出它，是因为来源给出了这个精度在 {gpu} 上的配置，且规划器算得下权重与一条请求",
        "The handbook's command “{title}” names no accelerator; it is given here because a source names this precision on {gpu} and the planner fits its weights and one request",
    ),
    "cfg-sources": ("给出该精度在这张卡上的来源", "Sources naming this precision on this accelerator"),
    "cfg-source-unverified": ("（来源标为未验证）", "(the source marks it unverified)"),
    "cfg-alternative": ("改用最接近的可选组合", "Switch to the nearest supported choice"),
    "cfg-refused-checker": (
        "组合出的命令没有通过检查器（{role}）：{message}",
        "The composed command fails the checker ({role}): {message}",
    ),
    # why each flag is there
    "cfg-why-recipe": ("本手册的命令“{title}”", "the handbook's command “{title}”"),
    "cfg-why-tp": (
        "规划器：能放下权重、且每卡 KV 池还能容纳一条 {context} token 请求的最小 TP",
        "the planner: the smallest TP that holds the weights and, on each GPU, a KV pool for one {context}-token request",
    ),
    "cfg-why-tp-weights-only": (
        "规划器：能放下权重的最小 TP（本 KB 没有 KV 字段，未计 KV 余量）",
        "the planner: the smallest TP that holds the weights (the KV fields are not in this KB, so no KV headroom)",
    ),
    "cfg-why-tp-nodes": (
        "{context} token 的上下文一个节点放不下：一个实例跨 {nodes} 个节点 × 每节点 {gpus} 张 GPU",
        "one node cannot hold a {context}-token context: the instance spans {nodes} nodes × {gpus} GPUs each",
    ),
    "cfg-why-rule": ("检查器规则 {rule} 对该模型的要求", "what the checker's rule {rule} asks of this model"),
    "cfg-why-tool-parser": ("模型的工具调用解析器（第 06 章）", "the model's tool-call parser (chapter 06)"),
    "cfg-why-reasoning-parser": ("模型的推理解析器（第 06 章）", "the model's reasoning parser (chapter 06)"),
    "cfg-why-goal": ("第 07 章“{scenario}”：{reason}", "chapter 07, “{scenario}”: {reason}"),
    "cfg-why-nnodes": ("每个服务实例跨 {nodes} 个节点", "each server instance spans {nodes} nodes"),
    "cfg-why-node-rank": (
        "每个节点各跑一次，<node-rank> 依次填 0 到 {last}",
        "run on every node, with <node-rank> 0 to {last}",
    ),
    "cfg-why-dist-init-addr": (
        "{master} 换成该实例 0 号节点的地址；端口 5000 同第 05 章的示例",
        "replace {master} with the address of the instance's node 0; port 5000 as in chapter 05's example",
    ),
    "cfg-why-pd-mode": ("PD 分离中的角色", "the server's role in PD disaggregation"),
    "cfg-why-pd-ib": (
        "<ib-device> 换成本机的 RDMA 网卡（手册示例用 mlx5_0、mlx5_roce0）",
        "replace <ib-device> with this machine's RDMA device (the handbook's examples use mlx5_0, mlx5_roce0)",
    ),
    "cfg-why-pd-host": (
        "{host} 换成本机地址，Router 通过它访问该实例",
        "replace {host} with this machine's address, where the router reaches the server",
    ),
    "cfg-why-pd-port": ("端口同第 05 章的 PD 示例", "the port of chapter 05's PD example"),
    "cfg-why-router": ("第 05 章 PD 示例的 Router 参数", "the router flags of chapter 05's PD example"),
    # the composer's notes
    "cfg-note-replaced": (
        "“{goal}”把本手册命令中的 {old} 换成了 {new}",
        "“{goal}” replaces the handbook command's {old} with {new}",
    ),
    "cfg-note-kept": (
        "本手册命令中的 {old} 与“{goal}”的 {new} 写在同一行，保留手册的写法",
        "The handbook command's {old} shares a line with other flags, so it is kept instead of “{goal}”'s {new}",
    ),
    "cfg-note-balanced": (
        "源稿把 Balanced 描述为“TP + DP，中等并发”，但没有给出取值；本站不为它添加参数",
        "The source describes Balanced as “TP + DP, medium concurrency” but gives no values, so the site adds no flags for it",
    ),
    "cfg-note-high-throughput": (
        "源稿的 High-Throughput 还加 --attn-dp-size，但没有给出该模型的取值；本站不添加",
        "The source's High-Throughput also adds --attn-dp-size, without a value for this model; the site does not add it",
    ),
    "cfg-note-speculative": (
        "第 07 章低延迟场景还建议 EAGLE/MTP 投机解码；是否可用取决于 checkpoint 有没有 MTP 头，本站不添加，见模型一节",
        "Chapter 07's low-latency scenario also suggests EAGLE/MTP speculative decoding; whether it works depends on the checkpoint having MTP heads, so the site does not add it (see the model's section)",
    ),
    "cfg-note-concurrency": (
        "本手册的命令标为 High-Concurrency（中间一档），这里作为 Balanced 给出",
        "The handbook's command is the High-Concurrency tier (the middle one), shown here for Balanced",
    ),
    "cfg-note-key-flags": (
        "第 06 章速查表为该模型列出的关键参数：{flags}（{layout}）；它们取决于加速卡，本站不自动添加",
        "Chapter 06's quick reference lists these key flags for this model: {flags} ({layout}); which apply depends on the accelerator, so the site does not add them",
    ),
    "cfg-note-multi-node": (
        "多节点：同一条命令在每个节点上各运行一次，只有 <node-rank> 不同",
        "Multi-node: run the same command on every node, changing only <node-rank>",
    ),
    "cfg-note-pd": (
        "PD 分离：Prefill 与 Decode 各是一个服务实例，Router 可在任一机器上运行；占位符 <prefill-ip>、<decode-ip> 为两实例的地址",
        "PD disaggregation: prefill and decode are one server instance each, and the router runs on any machine; <prefill-ip> and <decode-ip> are the two instances' addresses",
    ),
    "cfg-note-weights-only": (
        "知识库没有 {model} 计算 KV 所需的字段：TP 只按权重选，KV 池与并发无法计算",
        "The KB lacks the fields {model}'s KV needs: the TP fits the weights only, and the KV pool and concurrency cannot be computed",
    ),
    "cfg-note-plan-defaults": (
        "命令未指定时，规划按 SGLang 的做法：KV 精度 {kv}，--mem-fraction-static 与页大小取引擎按卡和 TP 给出的默认值",
        "Where the command does not say, the plan does as SGLang does: KV in {kv}, and the engine's own --mem-fraction-static and page size for this GPU and TP",
    ),
    # roles and figures
    "cfg-role-standalone": ("启动命令", "Launch command"),
    "cfg-role-prefill": ("Prefill 实例", "Prefill server"),
    "cfg-role-decode": ("Decode 实例", "Decode server"),
    "cfg-role-router": ("Router", "Router"),
    "cfg-section": ("手册中的位置", "In the handbook"),
    "cfg-why-heading": ("每个参数的来由", "Why each flag"),
    "cfg-corrections": ("本手册对源稿的更正", "The handbook's corrections to the source"),
    "cfg-correction": (
        "源稿写 {stated}，本手册写 {published}：{why}",
        "The source says {stated}; the handbook publishes {published}: {why}",
    ),
    "cfg-notes": ("说明", "Notes"),
    "cfg-related": ("本手册中该模型的其他命令", "The handbook's other commands for this model"),
    "cfg-checked": ("检查器的结论", "The checker's verdict"),
    "cfg-checked-clean": (
        "对照 sglang {version} 检查：无问题",
        "Checked against sglang {version}: no problems",
    ),
    "cfg-plan": ("单卡显存与容量（规划器）", "One GPU's memory and capacity (the planner)"),
    "cfg-plan-open": ("在规划器中打开", "Open in the planner"),
    # the command doctor (kb:doctor)
    "doc-input": ("粘贴一条命令", "Paste a command"),
    "doc-placeholder": (
        "python -m sglang.launch_server --model-path … （支持续行、环境变量前缀、docker run、torchrun、bash -c）",
        "python -m sglang.launch_server --model-path … (continuations, variable prefixes, docker run, torchrun and bash -c are understood)",
    ),
    "doc-check": ("检查", "Check"),
    "doc-example": ("示例：带拼写错误的命令", "Example: a command with a typo"),
    "doc-private": (
        "命令只在你的浏览器里检查，不会发送到任何地方。",
        "The command is checked in your browser and is sent nowhere.",
    ),
    "doc-noscript": (
        "命令诊断需要 JavaScript；命令行 python -m handbook check 给出同样的结论。",
        "The command doctor needs JavaScript; the command line python -m handbook check gives the same findings.",
    ),
    "doc-loading": ("正在加载检查器数据…", "Loading the checker's data…"),
    "doc-load-failed": (
        "无法加载检查器数据（{url}）。请通过 HTTP 访问本站，而不是直接打开本地文件。",
        "The checker's data could not be loaded ({url}). Serve the site over HTTP instead of opening the files directly.",
    ),
    "doc-checking": ("正在检查…", "Checking…"),
    "doc-failed": (
        "检查器在这段文本上出错（{error}），没有结论；这段文本不会在重新载入时恢复。",
        "The checker failed on this text ({error}) and gives no verdict; the text will not come back on a reload.",
    ),
    "doc-clear": ("清空", "Clear"),
    "doc-more": (
        "……另有 {count} 条未列出（上面的计数包括它们）",
        "… and {count} more, not listed (the count above includes them)",
    ),
    "doc-line": ("第 {line} 行", "line {line}"),
    "doc-explained": ("说明", "Explained"),
    # the doctor's accelerator select (sizing with the planner)
    "doc-gpu": (
        "加速卡（可选：用规划器按它估算显存）",
        "Accelerator (optional: the planner sizes the command on it)",
    ),
    "doc-gpu-none": ("不估算", "None: do not size"),
    "doc-planner-failed": (
        "无法加载规划器数据（{url}），命令没有按加速卡估算。",
        "The planner's data could not be loaded ({url}); the command was not sized.",
    ),
    # the benchmarks page (kb:benchmarks)
    "cfg-bench-page": (
        "{page} 页及其加载的全部文件（gzip）：{parts}",
        "The {page} page with everything it loads (gzip: {parts})",
    ),
    "cfg-bench-check": (
        "命令诊断检查一条 {flags} 个参数的命令（{runs} 次的中位数，chromium）",
        "The command doctor checks a {flags}-flag command (median of {runs}, chromium)",
    ),
    "cfg-bench-update": (
        "配置器在表单改动后更新（{runs} 次的中位数，chromium）",
        "The configurator updates after a change of its form (median of {runs}, chromium)",
    ),
    # python -m handbook configure
    "cfg-cli-what-model": ("模型", "model"),
    "cfg-cli-what-gpu": ("加速卡", "accelerator"),
    "cfg-cli-what-precision": ("权重精度", "precision"),
    "cfg-cli-what-goal": ("目标", "goal"),
    "cfg-cli-what-nodes": ("节点数", "number of nodes"),
    "cfg-cli-what-gpus": ("每节点 GPU 数", "GPUs per node"),
    "cfg-cli-what-context": ("上下文", "context"),
    "cfg-cli-no-pd": (
        "知识库没有 {model} 的 PD 分离命令（有的模型：{models}）",
        "the KB has no PD-disaggregation command for {model} (it has them for: {models})",
    ),
}
