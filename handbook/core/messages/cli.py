"""The command line's help: the subcommands' one-line help and the options of the commands the site tells
readers to run (check, plan, configure), in the language of ``--lang`` or of the locale. Each entry is (zh, en).
Help text goes through argparse, which reads % as a format: write %% for a percent sign."""

MESSAGES: dict[str, tuple[str, str]] = {
    "cli-description": ("SGLang 部署手册的命令行工具。", "The SGLang deployment handbook's tools."),
    "cli-subcommands": ("子命令", "subcommands"),
    "cli-help-lang": (
        "输出语言（默认按本机 locale：{default}）",
        "output language (default, from the locale: {default})",
    ),
    "cli-help-kb": ("知识库目录（默认：kb/）", "the KB folder (default: kb/)"),
    # the subcommands, in the order --help lists them
    "cli-sub-validate": ("加载整个知识库并运行全部检查，一次报告所有问题", "load the whole KB and run every check; report all problems at once"),
    "cli-sub-build": ("把站点构建到 site/（严格模式，要么全成要么不写）", "build the site into site/ (strict; all-or-nothing)"),
    "cli-sub-generate": ("写出所有提交在库里的生成文件（--check：列出过期的）", "write every committed generated file (--check: list stale ones)"),
    "cli-sub-new": ("为新的命令、模型、加速卡、坑或检查规则写一个带注释的骨架", "write a commented skeleton for a new recipe, model, accelerator, pitfall or checker rule"),
    "cli-sub-check": ("对照固定版本的引擎与知识库规则检查一条 SGLang 命令", "check an SGLang command against the pinned engine and the KB's rules"),
    "cli-sub-plan": ("一个模型在一种加速卡上的显存预算、KV 池与启动命令", "one GPU's memory budget, KV pool and launch command for a model"),
    "cli-sub-configure": ("配置器对模型、加速卡、精度与目标给出的命令", "the configurator's command(s) for a model, accelerator, precision and goal"),
    "cli-sub-production": ("写出一条命令的 Kubernetes 清单、告警与 Grafana 看板（--check：运行这些工具）", "write one recipe's Kubernetes manifests, alerts and Grafana dashboards (--check: run the tools)"),
    "cli-sub-engine-diff": ("比较两个引擎快照：参数、默认值、取值", "compare two engine snapshots: options, defaults, choices"),
    "cli-sub-links": ("检查构建好的站点里每个内部链接与锚点", "check every internal link and anchor of the built site"),
    "cli-sub-translations": ("检查两种语言的页面，列出过期的译文", "check both languages' pages and list stale translations"),
    "cli-sub-bench": ("测量站点的性能预算（没达标也不算失败）", "measure the site's performance budget (never fails on a missed target)"),
    # check
    "cli-check-description": (
        "检查一条命令（写在 -- 之后，或从标准输入传入）：对照 SGLang 引擎快照与 kb/rules.yaml，按所选语言列出每个发现，再给一行汇总。--engine VERSION 改用站内存有快照的另一个版本（其他版本会被拒绝，并列出存有的版本）。退出码：0 无问题（只有提示），1 有警告，2 有错误（版本没有快照时也是 2）。",
        "Check a command (after --, or on stdin) against an engine snapshot and kb/rules.yaml. Prints every finding in the chosen language, then a summary. --engine VERSION checks against that stored release instead of the pinned one (only a version the site has a snapshot of; anything else is refused with the stored ones). Exit status: 0 clean (notes only), 1 with warnings, 2 with errors (and 2 for a version that names no snapshot).",
    ),
    "cli-check-engine": (
        "改用这个存有快照的 SGLang 版本检查：{versions}（默认：kb/handbook.yaml 固定的 {pinned}）",
        "check against this stored SGLang release: {versions} (default: {pinned}, as kb/handbook.yaml pins it)",
    ),
    "cli-check-command": ("要检查的命令；省略时从标准输入读取", "the command; omit it to read stdin"),
    "cli-check-gpu": (
        "用规划器按这张加速卡估算启动命令的显存，取值 {choices}",
        "size the launch command on this accelerator with the planner: {choices}",
    ),
    # plan
    "cli-plan-description": (
        "规划器页面对一个模型在一种加速卡上给出的数字。退出码：0 能跑，1 跑不了（权重放不下或一页 KV 都不剩），2 输入有误（未知的 id、超出范围的值）。",
        "The planner page's figures for one model on one accelerator. Exit status: 0 when the plan works, 1 when it cannot (the weights do not fit, or no KV page is left), 2 for bad input (an unknown id, a value out of range).",
    ),
    "cli-help-model": ("模型：id 或名称，取值 {choices}", "the model, by id or name: {choices}"),
    "cli-help-gpu": ("加速卡：id 或名称，取值 {choices}", "the accelerator, by id or name: {choices}"),
    "cli-help-tp": ("TP 组的 GPU 数（默认：放得下的最小值）", "GPUs in the TP group (default: the smallest that fits)"),
    "cli-help-ep": ("专家并行的大小，须整除 --tp（默认：1）", "the expert-parallel size, a divisor of --tp (default: 1)"),
    "cli-help-weights-dtype": (
        "权重精度，取该模型有的一种：{choices}（默认：该模型的第一种）",
        "the weight precision, one the model has: {choices} (default: the model's first)",
    ),
    "cli-help-kv-dtype": ("KV Cache 精度：{choices}（默认：{default}）", "the KV cache precision: {choices} (default: {default})"),
    "cli-help-mem-fraction": (
        "SGLang 的 --mem-fraction-static（默认：引擎按该卡与 TP 自己选的值）",
        "SGLang's --mem-fraction-static (default: the engine's own for the GPU and TP)",
    ),
    "cli-help-context": ("上下文长度，token 数（默认：模型的原生上下文）", "the context length in tokens (default: the model's native)"),
    "cli-help-free-gib": (
        "加载前空闲的显存，GiB，按 SGLang 日志写（Load weight begin. avail mem=…）；默认：设备上报的全部显存",
        "free GPU memory before loading, GiB, as SGLang logs it (Load weight begin. avail mem=…); default: all the memory the device reports",
    ),
    "cli-help-page-size": ("SGLang 的 --page-size（默认：引擎的选择）", "SGLang's --page-size (default: the engine's choice)"),
    "cli-help-max-total-tokens": ("SGLang 的 --max-total-tokens（默认：不设上限）", "SGLang's --max-total-tokens (default: no cap)"),
    "cli-help-max-running-requests": (
        "SGLang 的 --max-running-requests（默认：引擎的估算）",
        "SGLang's --max-running-requests (default: the engine's estimate)",
    ),
    "cli-help-swa-ratio": (
        "SGLang 的 --swa-full-tokens-ratio，用于滑窗模型（默认：引擎的值）",
        "SGLang's --swa-full-tokens-ratio, for sliding-window models (default: the engine's)",
    ),
    # configure
    "cli-configure-description": (
        "配置器页面对一次选择给出的答案：本手册的命令，或由知识库组合的命令（每个参数附来由），或知识库支持不了的原因；附检查器的结论与规划器的数字。--json 输出页面算出的全部结果。退出码：0 给出了命令，1 选择被拒绝，2 输入有误（未知的 id、没有 PD 命令的模型选了 PD）。",
        "The configurator page's answer for one choice: the handbook's command, or the command composed from the KB (each flag with its reason), or why the KB cannot support the choice; with the checker's verdict and the planner's figures. --json prints the whole result as the page computes it. Exit status: 0 with commands, 1 when the choice is refused, 2 for bad input (an unknown id, PD for a model without a PD command).",
    ),
    "cli-help-precision": (
        "权重精度，取来源给出该加速卡的一种（默认取第一种）：{choices}",
        "the weight precision, one a source names on the accelerator (the first by default): {choices}",
    ),
    "cli-help-goal": ("目标：{choices}", "the goal: {choices}"),
    "cli-help-nodes": ("可用的节点数：{choices}", "nodes available: {choices}"),
    "cli-help-gpus": (
        "每节点 GPU 数：{choices}（不超过知识库给出的节点规模；默认取最大）",
        "GPUs per node: {choices} (up to the node size the KB gives; the largest by default)",
    ),
    "cli-help-pd": ("PD 分离（仅限有 PD 命令的模型：{choices}）", "PD disaggregation (only models with a PD command: {choices})"),
    "cli-help-json": ("以 JSON 输出页面算出的全部结果", "the whole result as JSON, as the page has it"),
}
