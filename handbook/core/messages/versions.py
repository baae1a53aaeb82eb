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
        "{count} flag(s) or variable(s) the site uses changed:",
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
    "versions-compat-warnings": ("{count} 个警告", "{count} warning(s)"),
    "versions-compat-errors": ("{count} 个问题，含错误", "{count} problem(s), errors among them"),
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
        "--engine：{got!r} 不是本站存有快照的版本；已存：{stored}",
        "--engine: got {got!r}, expected a release the site has a snapshot of: {stored}",
    ),
    "versions-cli-flag-elsewhere": ("{flag} 存在于 sglang {releases}", "{flag} is in sglang {releases}"),
}
