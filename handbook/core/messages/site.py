"""The wording of the site's pages that is not a KB fact: table headings, status lines, notes. Each entry is (zh, en)."""

MESSAGES: dict[str, tuple[str, str]] = {
    "recipe-notes": ("注意", "Note"),
    "drift-scenario": ("07 · 按场景的配方", "07 · Recipes by scenario"),
    "param-abbreviation": (
        "源稿另写作 {spellings}：只是前缀缩写，不是别名",
        "the source also writes {spellings}: an abbreviation, not an alias",
    ),
    "tp-table-note": (
        "TP 取 2 的幂中最小者，使每卡权重份额不超过 --mem-fraction-static {fraction} 的预算；“KV”是该预算扣除权重后每卡留给 KV 池的部分。",
        "TP is the smallest power of two whose per-GPU share of the weights fits the --mem-fraction-static {fraction} budget; “KV” is what that budget leaves for the KV pool on each GPU.",
    ),
    "tp-table-agreement": (
        "源稿（官方 Cookbook）给出的 {stated} 个 TP 中，{agreeing} 个与计算一致。",
        "Of the {stated} TP sizes the source (official Cookbook) gives, {agreeing} agree with the computation.",
    ),
    "tp-drift-why": (
        "--mem-fraction-static {fraction} 下能容纳权重的最小 TP",
        "the smallest TP that holds the weights at --mem-fraction-static {fraction}",
    ),
    # kb:kv-heads (chapter 02's MHA / GQA / MQA table)
    "kv-heads-layout": ("架构", "Architecture"),
    "kv-heads-share": ("相对 MHA 的 KV 量", "KV size relative to MHA"),
    "kv-heads-examples": ("例", "Examples"),
    # kb:topologies (chapter 05)
    "topology-settings": (
        "配置要点：{flags}（机制示例，须满足模型与硬件约束）。",
        "Key settings: {flags} (illustrates the mechanism; the model's and hardware's constraints must still be met).",
    ),
    "topology-basis": ("官方依据：{link}。", "Official source: {link}."),
    # kb:quick-reference (chapter 06.8)
    "quickref-branch": ("源码分支 {branch}", "source branch {branch}"),
    "layers-linear_attention": ("{count} 层线性注意力", "{count} linear-attention"),
    "layers-sliding_attention": ("{count} 层滑窗注意力", "{count} sliding-window"),
    "layers-elsewhere": (
        "（另有 {layers}：不计入，其 KV 或状态在单独的池里）",
        " (+ {layers}: not counted, their KV or state lives in a pool of its own)",
    ),
    "layers-dsa-indexer": (
        "；DSA 索引器（top-{topk}）的每 token 缓存另计，大小未公开",
        "; the DSA indexer (top-{topk}) keeps a per-token cache on top, size not published",
    ),
    "not-published": ("未公开", "not published"),
    "not-published-fields": ("未公开：{fields}", "not published: {fields}"),
    # kb:translation-status (the contributors' page translation-status.md)
    "lang-zh": ("中文", "Chinese"),
    "lang-en": ("英文", "English"),
    "translations-col-page": ("页面", "Page"),
    "translations-col-last-change": ("{lang}版最近一次修改", "{lang}: last change"),
    "translations-col-status": ("状态", "Status"),
    "translations-in-sync": ("✔ 同步", "✔ in sync"),
    "translations-stale": ("⚠ {lang}版落后 {behind} 次修改", "⚠ {lang} is {behind} change(s) behind"),
    "translations-uncommitted": ("尚未提交，未判断", "not committed yet, not judged"),
    "translations-summary": (
        "两种语言都有的页面共 {pages} 个，其中 {stale} 个译文过期。",
        "{pages} pages exist in both languages; {stale} translation(s) are stale.",
    ),
    "translations-no-history-title": ("未判断译文是否过期", "Stale translations not judged"),
    "translations-no-history": (
        "构建时读不到 git 历史（{reason}），因此无法比较两种语言的修改时间。",
        "The build could not read the git history ({reason}), so the two languages' changes could not be compared.",
    ),
    "translations-no-history-git-missing": ("未安装 git", "git is not installed"),
    "translations-no-history-not-a-checkout": ("不是 git 检出", "not a git checkout"),
    "translations-no-history-no-commits": ("还没有任何提交", "no commit yet"),
    "translations-no-history-shallow": ("浅克隆，历史不完整", "a shallow clone, whose history is incomplete"),
    "translations-no-history-git-failed": ("git 执行失败", "git failed"),
    # kb:benchmarks (the contributors' page benchmarks.md)
    "bench-taken": (
        "测量于 {date}（提交 <code>{commit}</code>），机器：{cpu}，{cores} 核，{memory} GiB 内存，{os}，Python {python}；开始与结束时的 1 分钟平均负载分别为 {load} 与 {load_end}。",
        "Measured on {date} (commit <code>{commit}</code>) on {cpu}, {cores} cores, {memory} GiB of memory, {os}, Python {python}; the 1-minute load average was {load} at the start and {load_end} at the end.",
    ),
    "bench-none-title": ("尚无测量结果", "No measurement yet"),
    "bench-none": (
        "仓库里还没有 <code>benchmarks/latest.json</code>：运行 <code>nox -s bench</code> 测量并提交它。",
        "The repository holds no <code>benchmarks/latest.json</code> yet: run <code>nox -s bench</code> and commit it.",
    ),
    "bench-col-measure": ("测量项", "Measure"),
    "bench-col-value": ("数值", "Value"),
    "bench-col-target": ("目标", "Target"),
    "bench-col-result": ("结果", "Result"),
    "bench-met": ("✔ 达标", "✔ met"),
    "bench-missed": ("✖ 未达标", "✖ missed"),
    "bench-cold-build": (
        "冷构建（<code>python -m handbook build</code>）",
        "Cold build (<code>python -m handbook build</code>)",
    ),
    "bench-warm-rebuild": (
        "修改知识库后的热重建（与 <code>mkdocs serve</code> 相同）",
        "Warm rebuild after a KB edit (as <code>mkdocs serve</code> does it)",
    ),
    "bench-hooks": (
        "冷构建中知识库钩子函数所占比例（{hooks} / {build}）",
        "Share of the KB hook functions in a cold build ({hooks} of {build})",
    ),
    "bench-hooks-import": (
        "同上，并计入导入 handbook 包的 {seconds}",
        "The same, counting the {seconds} of importing the handbook package",
    ),
    "bench-tests": ("测试套件（pytest）", "Test suite (pytest)"),
    "bench-site-size": ("站点大小（{files} 个文件）", "Site size ({files} files)"),
    "bench-heaviest-chapter": (
        "最重的章节页面 <code>{page}</code>（共 {pages} 个章节页面；gzip，不含搜索索引：{parts}）",
        "Heaviest chapter page <code>{page}</code> (of {pages} chapter pages; gzip, search index excluded: {parts})",
    ),
    "bench-heaviest-page": (
        "全站最重的页面 <code>{page}</code>（共测 {pages} 页；gzip，不含搜索索引：{parts}）",
        "Heaviest page of all <code>{page}</code> (of {pages}; gzip, search index excluded: {parts})",
    ),
    "bench-search-index": ("搜索索引（gzip）", "Search index (gzip)"),
    "bench-kind-other": ("其他", "other"),
    # the command checker (handbook/render/engine.py): status under each command, the drift page, the option reference
    "engine-why": ("为什么", "why"),
    "engine-checked": ("已对照 sglang {version} 检查", "Checked against sglang {version}"),
    "engine-required": ("必填", "required"),
    "engine-default-resolved": (
        "解析器不给默认值，由引擎在启动时决定；手册写的是其中一种结果，不是默认值。",
        "The parser has no default and the engine decides at start-up, so the handbook's figure is one possible outcome, not a default.",
    ),
    "engine-default-differs": ("手册写的不是引擎的默认值。", "The handbook's default is not the engine's."),
    "engine-default-agrees": ("与引擎一致。", "It agrees with the engine."),
    "engine-default-resolves": ("引擎的做法：{how}。", "What the engine does: {how}."),
    "engine-defaults-agree": (
        "另有 {count} 个参数的默认值与引擎一致：",
        "{count} more parameters state the engine's own default:",
    ),
    "engine-defaults-unstated": (
        "手册未写默认值的 {count} 个参数，引擎的默认值是：",
        "{count} parameters whose default the handbook does not state; the engine's defaults are:",
    ),
    "engine-choices-free": (
        "引擎解析器没有固定取值（启动时校验）",
        "no fixed choices in the engine's parser (checked at start-up)",
    ),
    "engine-alias-real": ("真正的别名", "a real alias"),
    "engine-alias-abbreviation": (
        "不是参数名，只是 {full} 的前缀缩写（argparse 前缀匹配，新增同前缀参数就会失效）",
        "not a spelling, only a prefix abbreviation of {full} (argparse prefix matching; a new option with that prefix breaks it)",
    ),
    "engine-rule-from-engine": ("引擎自身的规则（手册未写）", "the engine's own rule (not in the handbook)"),
    "engine-env-registered": (
        "已注册：{type}，默认 {default}（environ.py 第 {line} 行）",
        "registered: {type}, default {default} (environ.py line {line})",
    ),
    "engine-env-absent": ("不在注册表中", "not in the registry"),
    "engine-env-deprecated": ("注册表标为弃用", "marked deprecated in the registry"),
    "engine-switch": ("开关（不带取值）", "switch (no value)"),
    "engine-in-handbook": ("手册里的说明", "in the handbook"),
    "engine-deprecated": ("已弃用，改用 {replacement}。", "Deprecated; use {replacement}."),
    "engine-options-caption": (
        "{command} 的全部 {count} 个参数（sglang {version}）",
        "All {count} options of {command} (sglang {version})",
    ),
}
