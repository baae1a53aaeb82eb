"""The wording of the pages that set the site beside every stored SGLang release (option history, the
upgrading page, the compatibility matrix) and of the engine's own replay of each command. Each entry is
(zh, en)."""

MESSAGES: dict[str, tuple[str, str]] = {
    # one change of an option or variable between two releases
    "versions-since": ("{version} 起", "since {version}"),
    "versions-span": ("{first}–{last}", "{first}–{last}"),
    "versions-span-count": ("{first}–{last} 共 {count} 个版本", "the {count} releases {first}–{last}"),
    "versions-added": ("{version}：新增", "{version}: added"),
    "versions-removed": ("{version}：移除", "{version}: removed"),
    "versions-default": ("{version}：默认值", "{version}: default"),
    "versions-type": ("{version}：类型", "{version}: type"),
    "versions-nargs": ("{version}：参数个数", "{version}: number of values"),
    "versions-action": ("{version}：argparse action", "{version}: argparse action"),
    "versions-spellings": ("{version}：写法", "{version}: spellings"),
    "versions-env-aliases": ("{version}：旧名", "{version}: deprecated names"),
    "versions-choices": ("{version}：可选值", "{version}: choices"),
    "versions-choices-now-free": ("{version}：不再限定可选值", "{version}: no longer limited to a list"),
    "versions-choices-now-listed": ("{version}：限定为", "{version}: limited to"),
    "versions-choices-reordered": ("顺序调整", "reordered"),
    "versions-deprecated": ("{version}：标为弃用{instead}", "{version}: deprecated{instead}"),
    "versions-use-instead": ("，改用 {replacement}", "; use {replacement}"),
    "versions-undeprecated": ("{version}：不再标为弃用", "{version}: no longer deprecated"),
    "versions-required": ("{version}：改为必填", "{version}: now required"),
    "versions-optional": ("{version}：不再必填", "{version}: no longer required"),
    # the option reference
    "versions-history-caption": (
        "“版本变化”一栏对照已存的 {count} 个版本（{oldest}–{newest}）：写出首次出现的版本（早于 {oldest} 的不再细分），"
        "以及默认值、可选值或类型变化的每个版本；“—”表示这些版本都有该参数且三者未变。",
        "The “Across releases” column compares the {count} stored releases ({oldest}–{newest}): the first "
        "release that has the option (anything older than {oldest} is not told apart) and each release "
        "where its default, choices or type changed; “—” means every one of them has it, unchanged.",
    ),
    "versions-col-history": ("版本变化", "Across releases"),
    "versions-caption-join": ("。", ". "),
    "versions-removed-col-releases": ("存在于", "In releases"),
    "versions-removed-col-changes": ("移除前的变化", "Changes before removal"),
    "versions-removed-caption": (
        "{command}：{oldest} 以来移除、{pinned} 已没有的 {count} 个参数（--help 为最后一个版本的原文）",
        "{command}: {count} options removed since {oldest}, not in {pinned} (the --help text of the "
        "last release that had each)",
    ),
    "versions-removed-none": (
        "{command}：{oldest} 以来没有移除任何参数。",
        "{command}: no option was removed since {oldest}.",
    ),
    # the releases table
    "versions-releases-col-version": ("版本", "Release"),
    "versions-releases-col-uploaded": ("上传 PyPI", "On PyPI since"),
    "versions-releases-col-options": ("参数数（服务 / Router / 压测）", "Options (server / router / benchmark)"),
    "versions-releases-col-env": ("环境变量", "Env vars"),
    "versions-releases-col-router": ("同时解析的 sglang-router", "sglang-router dumped with it"),
    "versions-releases-pinned": ("本手册对应的版本", "the handbook's release"),
    "versions-router-pairing": (
        "sglang-router 的配对只依据上传日期：这些版本的 wheel 都没有声明依赖哪个 sglang-router，而 {router} "
        "是 PyPI 上最后一个 sglang-router 版本（{uploaded} 上传），早于以上每个 SGLang 版本，所以每个版本都与它一起解析。"
        "上游从未声明过这种配对。",
        "The router pairing rests on upload dates only: no wheel of these releases names an sglang-router "
        "release, and {router} is the last sglang-router on PyPI (uploaded {uploaded}), older than every "
        "SGLang release above, so each was dumped with it. Upstream never declared this pairing.",
    ),
    "versions-post-releases": (
        "post 版本 {versions} 也解析过：解析器与环境变量表都与对应正式版相同，所以不单独存储。",
        "The post releases {versions} were dumped too: their parsers and env-var registry equal their base "
        "release's, so none is stored.",
    ),
    # the upgrading page
    "versions-upgrade-heading": ("从 {old} 升级到 {new}", "From {old} to {new}"),
    "versions-upgrade-released": ("{new} 于 {uploaded} 上传 PyPI。", "{new} reached PyPI on {uploaded}."),
    "versions-upgrade-count": (
        "本站用到的参数或环境变量中有 {count} 个有变化：",
        "Flags or variables the site uses that changed ({count}):",
    ),
    "versions-upgrade-nothing": (
        "本站用到的参数与环境变量都没有变化。",
        "Nothing changed in a flag or variable the site uses.",
    ),
    "versions-col-flag-or-variable": ("参数 / 变量", "Flag / variable"),
    "versions-col-change": ("变化", "Change"),
    "versions-col-used": ("本站用在", "Used on the site by"),
    "versions-used-documented": ("参数说明", "the parameter reference"),
    "versions-used-rule": ("检查规则", "a checker rule"),
    "versions-used-env": ("附录的环境变量表", "the appendix's variables"),
    # the compatibility matrix
    "versions-compat-col-command": ("命令", "Command"),
    "versions-compat-col-first": ("最早可用", "First accepted"),
    "versions-compat-col-older": ("更早的版本为何不行", "Why older releases reject it"),
    "versions-compat-clean": ("无问题", "clean"),
    "versions-compat-warnings": ("{count} 个警告", "warnings: {count}"),
    "versions-compat-errors": ("{count} 个问题，含错误", "problems: {count}, errors among them"),
    "versions-compat-never": ("所有已存版本都报错", "rejected by every stored release"),
    "versions-compat-all": ("{oldest} 或更早", "{oldest} or earlier"),
    "versions-compat-legend": (
        "✔ 无问题　⚠ 只有警告　✖ 有错误。每格都用该版本的解析器和本站的规则检查；规则是对照 {pinned} 确立的，"
        "对更早的版本原样套用。鼠标悬停可看第一条问题。",
        "✔ clean, ⚠ warnings only, ✖ errors. Each cell is checked with that release's parsers and the "
        "site's rules; the rules were established against {pinned} and are applied to older releases as "
        "they are. Hover a cell for its first problem.",
    ),
    # python -m handbook check --engine
    "versions-cli-engine-unknown": (
        "引擎版本 {got!r} 不是本站存有快照的版本；已存：{stored}",
        "engine release: got {got!r}, expected a release the site has a snapshot of: {stored}",
    ),
    "versions-cli-flag-elsewhere": ("{flag} 存在于 sglang {releases}", "{flag} is in sglang {releases}"),
    # the replay of each launch recipe through the engine's startup resolution
    "replay-mode-cpu": ("CPU", "a CPU"),
    "replay-mode-emulated": ("CPU，模拟 {accelerator}", "a CPU emulating {accelerator}"),
    "replay-summary": (
        "SGLang {version} 启动时的参数解析（在 {mode} 上重放）：{outcome}",
        "SGLang {version}'s startup resolution (replayed on {mode}): {outcome}",
    ),
    "replay-summary-stand-in": (
        "SGLang {version} 启动时的参数解析，在替身模型上（{mode}）",
        "SGLang {version}'s startup resolution on a stand-in model ({mode})",
    ),
    "replay-accepted": ("接受", "accepted"),
    "replay-raised": ("启动失败，{at} 抛出 {error}", "refused ({error} at {at})"),
    "replay-stopped-cpu": (
        "在 CPU 上的重放停在 {at}（{error}）",
        "stopped in the CPU replay ({error} at {at})",
    ),
    "replay-filled": (
        "命令与解析器都没给值、引擎自己补上的 {count} 个默认值：",
        "Defaults the engine filled in where neither the command nor the parser gave a value ({count}):",
    ),
    "replay-adjusted-one": ("，引擎调整了 {count} 个值", ", {count} value adjusted by the engine"),
    "replay-adjusted-count": ("，引擎调整了 {count} 个值", ", {count} values adjusted by the engine"),
    # the replay in a few words, on the status line under a command
    "cmd-replay": ("启动重放：{outcome}", "startup replay: {outcome}"),
    "cmd-replay-both": (
        "启动重放：本站写法{published}；源稿写法{source}",
        "startup replay: the published command {published}; the source's command {source}",
    ),
    "cmd-replay-same": (
        "启动重放：{outcome}（本站写法与源稿写法相同）",
        "startup replay: {outcome} (the same for the source's command)",
    ),
    "cmd-replay-accepted": ("通过", "accepted"),
    "cmd-replay-refused": ("启动失败（{error}）", "refused ({error})"),
    "cmd-replay-cpu": ("在 CPU 上中途停下（{error}）", "stopped partway on the CPU ({error})"),
    "cmd-replay-adjusted-one": ("，调整 {count} 个值", ", {count} value adjusted"),
    "cmd-replay-adjusted": ("，调整 {count} 个值", ", {count} values adjusted"),
    "cmd-replay-not-replayable": ("未重放（本 KB 没有模型配置）", "not replayed (the model's config is not in this KB)"),
    "cmd-replay-stale": ("重放已过期", "replay out of date"),
    "cmd-replay-missing": ("尚未重放", "not replayed yet"),
    "replay-col-field": ("字段", "Field"),
    "replay-col-change": ("调整", "Change"),
    "replay-col-by": ("引擎的函数与日志", "The engine's function and log line"),
    "replay-explicit": ("覆盖了命令给的值", "overrides the value the command gives"),
    "replay-warnings": ("引擎另外记录的警告：", "Other warnings the engine logged:"),
    "replay-defaults": (
        "引擎读了、但知识库没有收录的 config 字段（取 config 类的默认值）：",
        "Config fields the engine read that the KB does not record (the config class's defaults):",
    ),
    "replay-both": ("源稿的写法{source}；本站发布的写法{published}", "the source's command {source}; the command published here {published}"),
    "replay-variant-source": ("源稿的写法", "The source's command"),
    "replay-variant-published": ("本站发布的写法", "The command published here"),
    "replay-not-replayable": (
        "未用引擎重放：本 KB 没有 {fields}（知识库不猜）{also}",
        "Not replayed through the engine: {fields} not in this KB (it does not guess){also}",
    ),
    "replay-also-unknown": ("；知识库还标记 {fields} 未知", "; the KB also marks {fields} unknown"),
    "replay-stand-in": (
        "改在替身模型上重放（一个小的稠密模型 config，Qwen2 架构，只检验与模型无关的检查）：",
        "Replayed on a stand-in model instead (a small dense config, Qwen2 architecture, that exercises the model-independent "
        "checks only):",
    ),
    "replay-stand-in-short": ("替身模型上", "on a stand-in model"),
    "replay-stale": (
        "引擎重放已过期：命令、其模型字段或硬件在重放之后改过。重跑：{command}",
        "The engine replay is out of date: the command, its model's fields or its hardware changed since. "
        "Rerun: {command}",
    ),
    "replay-missing": ("尚未用引擎重放。运行：{command}", "Not replayed through the engine yet. Run: {command}"),
    "replay-note-emulated": (
        "模拟加速器时，计算能力是假设值，显存取知识库的数字，所以依赖显存的默认值是近似的。",
        "When an accelerator is emulated its compute capability is an assumption and its memory the KB's "
        "figure, so memory-derived defaults are approximate.",
    ),
    "replay-note-cpu": (
        "命令没有指定加速器，只在 CPU 上重放：依赖平台的检查与默认值都是 CPU 的。",
        "The command names no accelerator, so it was replayed on a CPU only: platform checks and defaults "
        "are the CPU's.",
    ),
    "replays-col-mode": ("重放于", "Replayed on"),
    "replays-col-outcome": ("结果", "Outcome"),
    "replays-col-adjusted": ("引擎调整的值", "Values adjusted"),
    "replays-caption": (
        "SGLang {version}：{replayed} 条命令已重放（其中 {rejected} 条没能通过），{blocked} 条因本 KB 缺字段不能重放，"
        "{stale} 条待重放",
        "SGLang {version}: {replayed} commands replayed ({rejected} of them did not get through), "
        "{blocked} not replayable because fields are not in this KB, {stale} waiting for a replay",
    ),
}
