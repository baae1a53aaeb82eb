"""The site's own wording (not KB facts), in both languages. ``ctx.msg(key, **values)`` picks the page's."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
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
}
