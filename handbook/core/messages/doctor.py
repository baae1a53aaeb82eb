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
    "check-corrected": ("改正后的命令（第 {line} 行起）：", "Corrected command (from line {line}):"),
}
