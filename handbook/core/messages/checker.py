"""The command checker's wording: findings, the engine's verdicts, the CLI's summary. Each entry is (zh, en)."""

MESSAGES: dict[str, tuple[str, str]] = {
    # pieces that several findings end with
    "check-did-you-mean": ("；是不是 {name}？", "; did you mean {name}?"),
    "check-closest": ("；最接近的是 {name}", "; the closest is {name}"),
    "check-use-instead": ("，请改用 {replacement}", "; use {replacement}"),
    # the shell text itself (shell.py)
    "check-shell-syntax": ("shell 语法错误：{problem}", "shell syntax error: {problem}"),
    "check-shell-unterminated-single-quote": ("单引号没有闭合", "unterminated single quote"),
    "check-shell-unterminated-double-quote": ("双引号没有闭合", "unterminated double quote"),
    "check-shell-orphan-flags": (
        "这一行以参数 {flag} 开头，但上一条命令已经结束（上一行末尾没有 \\ 续行，或被注释截断）；shell 会把它当成一条新命令执行",
        "this line starts with the flag {flag} but the previous command has ended (no trailing \\ on the line before, or a comment cut it off); the shell runs it as a new command",
    ),
    "check-shell-unseen-program": (
        "这条命令在 {launcher} 后面运行 SGLang 程序，检查器看不透 {launcher}：命令里的参数一个都没有检查。请贴上 {launcher} 所运行的命令本身",
        "this command runs an SGLang program behind {launcher}, which the checker cannot see through, so none of its flags were checked; paste the command {launcher} runs",
    ),
    "check-shell-too-deep": (
        "SGLang 命令套在 {shell} 里，嵌套超过 {depth} 层 shell（bash -c、ssh、eval），检查器不再往里读：其参数没有检查",
        "the SGLang command inside {shell} is nested more than {depth} shells deep (bash -c, ssh, eval), and the checker reads no deeper: its flags were not checked",
    ),
    "check-shell-invisible": (
        "这一行有看不见的字符（{points}，下面写成 ⟨U+…⟩）：{shown}。屏幕上看到的不是 shell 实际执行的内容，请重新手打这一行",
        "the line holds characters you cannot see ({points}, written out here as ⟨U+…⟩): {shown}; what the shell runs is not what you see, so type the line again",
    ),
    "check-shell-invisible-more": (
        "从这一行到第 {last} 行，另有 {count} 行也有看不见的字符",
        "{count} more lines, from this one to line {last}, hold characters you cannot see too",
    ),
    "check-shell-no-program": (
        "文本里有参数（{flags}），但没有认出任何 SGLang 程序：这些参数没有被检查。请贴上完整命令（python -m sglang.launch_server …，或包在 docker run、timeout、srun 等里面的命令）",
        "the text has flags ({flags}) but no SGLang program the checker recognizes, so they were not checked; paste the whole command (python -m sglang.launch_server …, or one wrapped in docker run, timeout, srun and the like)",
    ),
    # python -m MODULE
    "check-module-unknown": (
        "python -m {module} 不在本检查器认识的模块之列（{known}），其参数未检查{hint}",
        "python -m {module} is not a module this checker knows ({known}); its flags were not checked{hint}",
    ),
    "check-module-deprecated": (
        "python -m {module} 在 sglang {version} 中已弃用，请改用 python -m {replacement}",
        "python -m {module} is deprecated in sglang {version}; use python -m {replacement}",
    ),
    # flags, as argparse reads them (argv.py)
    "check-flag-ambiguous": (
        "{flag} 是多个参数的前缀（{spellings}），argparse 会以 ambiguous option 退出；请写出完整参数名",
        "{flag} is a prefix of several options ({spellings}); argparse exits with 'ambiguous option': spell the option out",
    ),
    "check-flag-abbreviation": (
        "{flag} 不是 {program} 的参数名，只是 {full} 的前缀缩写（argparse 前缀匹配）；今后新增以 {flag} 开头的参数就会让它失效，请写 {full}",
        "{flag} is not an option of {program}, only an abbreviation of {full} (argparse prefix matching); any new option starting with {flag} breaks it: write {full}",
    ),
    "check-flag-wrong-program": (
        "{flag} 不是 {program} 的参数，而是 {owners} 的参数",
        "{flag} is not an option of {program}; it belongs to {owners}",
    ),
    "check-flag-unknown": (
        "{flag} 不是 {program} 的参数（sglang {version}）{hint}",
        "{flag} is not an option of {program} (sglang {version}){hint}",
    ),
    "check-flag-deprecated": (
        "{flag} 在 sglang {version} 中已弃用{instead}",
        "{flag} is deprecated in sglang {version}{instead}",
    ),
    "check-flag-repeated": (
        "{flag} 出现了两次（第 {line} 行的 {previous} 与此处）；argparse 只保留最后一次的取值",
        "{flag} is given twice ({previous} on line {line}, and here); argparse keeps only the last value",
    ),
    "check-switch-given-value": (
        "{flag} 是开关，不带取值；argparse 会报 ignored explicit argument '{value}'",
        "{flag} is a switch and takes no value; argparse fails with \"ignored explicit argument '{value}'\"",
    ),
    "check-switch-followed-by-value": (
        "{flag} 是开关，不带取值；其后的 {value} 会被 argparse 报为 unrecognized arguments",
        "{flag} is a switch and takes no value; argparse rejects the following {value} as an unrecognized argument",
    ),
    "check-args-unexpected": (
        "{program} 不接受位置参数，{word} 会被 argparse 报为 unrecognized arguments",
        "{program} takes no positional arguments; argparse rejects {word} as an unrecognized argument",
    ),
    "check-args-required": (
        "缺少必填参数 {flag}（argparse: the following arguments are required）",
        "{flag} is required (argparse: the following arguments are required)",
    ),
    # values: {argparse} is argparse's own English wording of the count, quoted in both languages
    "check-value-missing": (
        "{flag} 需要{count}（argparse: expected {argparse}）",
        "{flag} needs {count} (argparse: expected {argparse})",
    ),
    "check-count-one": ("一个取值", "one argument"),
    "check-count-at-least-one": ("至少一个取值", "at least one argument"),
    "check-count-n": ("{n} 个取值", "{n} arguments"),
    "check-value-type": ("{flag} 的取值 {value} 不合法：应为{expected}", "{flag} got {value}, expected {expected}"),
    "check-value-choice": (
        "{flag} 不接受 {value}（可选：{choices}）{hint}",
        "{flag} does not accept {value} (choices: {choices}){hint}",
    ),
    "check-value-placeholder": ("占位值未作类型检查：{values}", "Placeholders, not type-checked: {values}"),
    # what a value should have been (argparse types and the variable registry's parsers)
    "check-expect-integer": ("整数", "an integer"),
    "check-expect-number": ("数字", "a number"),
    "check-expect-human-int": (
        "整数，可带 SI 后缀（1k、1M）或 IEC 后缀（1Ki、1Mi）",
        "an integer, optionally with an SI (1k, 1M) or IEC (1Ki, 1Mi) suffix",
    ),
    "check-expect-iec-without-decimals": (
        "不带小数的 IEC 值（如 1{iec}）或 SI 值（如 {number}{si}）",
        "an IEC value without decimals (1{iec}) or an SI value ({number}{si})",
    ),
    "check-expect-positive": ("有限的正数", "a finite number > 0"),
    "check-expect-json": ("合法的 JSON", "valid JSON"),
    "check-expect-json-object": ("JSON 对象", "a JSON object"),
    "check-expect-goodput-slo": (
        "KEY:VALUE，KEY 为 {keys} 之一（VALUE 为毫秒）",
        "KEY:VALUE with KEY in {keys} (VALUE in milliseconds)",
    ),
    "check-expect-cuda-graph-backend": (
        "breakable、full 或 disabled（tc_piecewise 已移除）",
        "breakable, full or disabled (tc_piecewise was removed)",
    ),
    "check-expect-env-bool": ("true/1/yes/y 或 false/0/no/n", "true/1/yes/y or false/0/no/n"),
    "check-expect-env-json": ("JSON 或 JSON 文件的路径", "JSON or the path of a JSON file"),
    # environment variables (envcheck.py)
    "check-env-deprecated": (
        "环境变量 {name} 在 sglang {version} 中已弃用{instead}{note}",
        "the environment variable {name} is deprecated in sglang {version}{instead}{note}",
    ),
    "check-env-deprecation-note": ("（{note}）", " ({note})"),
    "check-env-legacy-prefix": (
        "{name} 用的是旧前缀 {prefix}：sglang {version} 导入时会把它改写为 {new} 并发出警告；请直接写 {new}",
        "{name} uses the legacy prefix {prefix}: sglang {version} rewrites it to {new} at import, with a warning; write {new}",
    ),
    "check-env-type": (
        "{name}={value} 不是合法取值（应为{expected}）：sglang {version} 会警告 Invalid value 并改用默认值 {default}",
        "{name}={value} is not a valid value (expected {expected}): sglang {version} warns 'Invalid value' and uses the default {default}",
    ),
    "check-env-unknown": (
        "{name} 不在 sglang {version} 的环境变量注册表（environ.py）中，引擎不会读取它{hint}",
        "{name} is not in sglang {version}'s variable registry (environ.py); the engine does not read it{hint}",
    ),
    "check-env-foreign": (
        "{name} 不在 sglang {version} 的变量注册表中（知识库：{reader}），取值未检查",
        "{name} is not in sglang {version}'s variable registry (the KB: {reader}); value not checked",
    ),
    # who reads a variable outside SGLang's registry (kb/env_vars.yaml read_by)
    "check-env-read-by-sglang": (
        "由 SGLang 在 environ.py 之外直接读取",
        "read by SGLang directly, outside environ.py",
    ),
    "check-env-read-by-aiter": ("由 AITER 库读取", "read by the AITER library"),
    "check-env-read-by-rocm": ("由 ROCm 读取", "read by ROCm"),
    "check-env-read-by-huggingface": ("由 Hugging Face 的库读取", "read by the Hugging Face libraries"),
    "check-env-read-by-none": ("SGLang 0.5.23 不读取它", "not read by SGLang 0.5.23"),
    "check-env-read-by-unknown": ("读取方未知（SGLang 0.5.23 不读取它）", "reader unknown (SGLang 0.5.23 does not read it)"),
    # a broken KB rule: its message, then what the engine does about it
    "check-rule": ("{rule}。{engine}。", "{rule}. {engine}."),
    "check-engine-raises": (
        "sglang {version} 启动时会报错：{where} 抛出 {error}",
        "sglang {version} refuses to start: {error} in {where}",
    ),
    "check-engine-adjusts": (
        "sglang {version} 会{adjustment}（{where}）",
        "sglang {version} {adjustment} ({where})",
    ),
    "check-engine-logs": (
        "sglang {version} 只打印日志（{where}）；{whose}",
        "sglang {version} only logs it ({where}); {whose}",
    ),
    "check-engine-nothing": (
        "sglang {version} 不检查这一点；{whose}",
        "sglang {version} does not check this; {whose}",
    ),
    # whose advice a rule the engine does not enforce is: the source's (rule source: handbook) or this site's
    "check-advice-source": ("这条建议出自源稿，本站沿用", "the advice is the source's, adopted here"),
    "check-advice-site": ("这条建议出自本站", "the advice is this site's"),
    # python -m handbook check
    "check-cli-severity-error": ("错误", "error"),
    "check-cli-severity-warning": ("警告", "warning"),
    "check-cli-severity-note": ("提示", "note"),
    "check-cli-clean": (
        "✔ 未发现问题（对照 sglang {version} 检查）",
        "✔ no problems found (checked against sglang {version})",
    ),
    "check-cli-problems": (
        "✖ {errors} 个错误，{warnings} 个警告，{notes} 条提示（sglang {version}）",
        "✖ {errors} error(s), {warnings} warning(s), {notes} note(s) (sglang {version})",
    ),
    "check-cli-kb-invalid": (
        "知识库有 {count} 处问题，无法对照它的规则检查：运行 python -m handbook validate 查看",
        "the knowledge base has {count} problem(s), so the command cannot be checked against its rules; run python -m handbook validate to see them",
    ),
    "check-cli-nothing": (
        "没有找到 SGLang 命令或参数（支持 python -m sglang.launch_server、sglang_router.launch_router、sglang.benchmark.serving、docker run 包装、仅参数的片段）",
        "no SGLang command or flags found (python -m sglang.launch_server, sglang_router.launch_router, sglang.benchmark.serving, docker run wrappers and flags-only fragments are understood)",
    ),
}
