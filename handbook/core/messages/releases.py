"""The wording of what differs between releases: what a release ships to run it (handbook/checker/entrypoints.py:
modules that are not in the checked release, modules without a parser, where ``sglang serve`` sends a model)
and rules whose engine behaviour is not established for the checked release. Each entry is (zh, en)."""

MESSAGES: dict[str, tuple[str, str]] = {
    "check-engine-where-pinned": ("{where}（{pinned} 中的位置）", "{where} (where {pinned} has it)"),
    "check-env-direct": (
        "{name} 不在 sglang {version} 的变量注册表里，但 {file} 直接读取它：取值类型没有检查",
        "{name} is not in the variable registry of sglang {version}, but {file} reads it directly, so its value type is not checked",
    ),
    "check-rule-unestablished": (
        "{rule}。本站查证过引擎对此的处理的是 sglang {releases}，不是 {version}：这里不下结论。",
        "{rule}. What the engine does about it was established for sglang {releases}, not {version}: not judged here.",
    ),
    "check-module-absent": (
        "sglang {version} 里没有 python -m {module}（存有快照的版本中它在 {releases}），Python 会报 No module named {module}{hint}",
        "python -m {module} is not in sglang {version} (of the stored releases, {releases} ship it), so Python stops with No module named {module}{hint}",
    ),
    "check-module-instead": ("；请改用 python -m {module}", "; run python -m {module}"),
    "check-module-alias": ("；它是 python -m {module} 的弃用别名", "; it is a deprecated alias of python -m {module}"),
    "check-module-unchecked": (
        "python -m {module} 在 sglang {version} 里存在，但引擎快照没有它的参数解析器：它的参数没有检查{hint}",
        "python -m {module} exists in sglang {version}, but the engine snapshot holds no parser of it: its flags were not checked{hint}",
    ),
    "check-serve-model-type": (
        "sglang {version} 的 sglang serve 不接受 {flag} {value}（可用：{values}），启动即报错",
        "sglang serve of sglang {version} does not take {flag} {value} (it takes {values}) and stops with an error",
    ),
    "check-serve-why-model-type": ("（{flag} diffusion）", "({flag} diffusion)"),
    "check-serve-why-registry": (
        "（sglang {version} 的扩散模型注册表里有这个模型）",
        "(a model the diffusion registry of sglang {version} names)",
    ),
    "check-serve-diffusion": (
        "sglang serve 把 {model} 交给扩散模型服务（sglang.multimodal_gen）{why}：那边的参数由另一个解析器读取，本检查器没有它，这些参数没有检查",
        "sglang serve sends {model} to the diffusion server (sglang.multimodal_gen) {why}; its flags are read by another parser, which the checker does not hold, so they were not checked",
    ),
}
