/* The handbook's memory and KV planner (docs/<lang>/planner.md, the kb:planner marker).
 *
 * The pure functions below are handbook/calc/memory.py, handbook/calc/launch.py and the figure texts of
 * handbook/render/planner.py written again for the browser, with the same operations in the same order,
 * so both sides give identical numbers; the test suite compares them over every model × accelerator ×
 * dtype of the knowledge base. The data is the KB export the build writes beside the pages
 * (handbook/calc/planner_data.py); the wording comes from the page (<script class="planner-messages">).
 * Plain ES2020: no third-party code, no request beyond that one file of this site.
 */
(function () {
  "use strict";

  const GB = 1e9;
  const KIB = 2 ** 10;
  const MIB = 2 ** 20;
  const GIB = 2 ** 30;
  const NOTE_CODES = [
    "kv-heads-replicated",
    "mla-replicated",
    "swa-pool",
    "linear-state",
    "sparse-indexer",
    "dsa-fp8-layout",
    "heads-indivisible",
    "kv-heads-indivisible",
    "context-over-native",
    "capped",
  ];
  const PLACEHOLDER = "<model>";
  // The build writes the KB export beside this script (handbook.calc.planner_data.PLANNER_DATA_PATH), and both
  // language builds share the one assets folder.
  const DATA_URL = new URL("planner-data.json", document.currentScript ? document.currentScript.src : window.location.href);

  class NotPublished extends Error {
    constructor(subject, missing) {
      super(`${subject}: not published: ${missing.join(", ")}`);
      this.missing = missing;
    }
  }

  // ------------------------------------------------------------------------------------------ layers
  function layerSplit(model) {
    const c = model.config;
    const counts = c.layer_types_count;
    if ("full_attention" in counts) {
      return {
        full: counts.full_attention,
        sliding: counts.sliding_attention || 0,
        linear: counts.linear_attention || 0,
        total: c.num_hidden_layers,
      };
    }
    if (c.num_hidden_layers === null) throw new NotPublished(model.id, ["num_hidden_layers"]);
    if (c.full_attention_interval) {
      const full = Math.floor(c.num_hidden_layers / c.full_attention_interval);
      return { full, sliding: 0, linear: c.num_hidden_layers - full, total: c.num_hidden_layers };
    }
    return { full: c.num_hidden_layers, sliding: 0, linear: 0, total: c.num_hidden_layers };
  }

  function kvMissing(model) {
    const c = model.config;
    const layersKnown = "full_attention" in c.layer_types_count || c.num_hidden_layers !== null;
    const needed = layersKnown ? [] : ["num_hidden_layers"];
    const fields = model.kv_formula === "mla" ? ["kv_lora_rank", "qk_rope_head_dim"] : ["num_key_value_heads", "head_dim"];
    for (const name of fields) if (c[name] === null) needed.push(name);
    return needed;
  }

  function elementBytes(kvDtype) {
    if (!kvDtype.kv) throw new Error(`${kvDtype.id} is not a KV-cache dtype`);
    if (kvDtype.bits % 8) throw new Error(`${kvDtype.id}: ${kvDtype.bits} bits is not a whole number of bytes`);
    return Math.floor(kvDtype.bits / 8);
  }

  // ------------------------------------------------------------------------------------------ KV cell
  function kvCell(model, kvDtype, attnTp = 1) {
    if (attnTp < 1) throw new Error(`attention TP must be at least 1, got ${attnTp}`);
    const missing = kvMissing(model);
    if (missing.length) throw new NotPublished(model.id, missing);
    const size = elementBytes(kvDtype);
    const layers = layerSplit(model);
    const c = model.config;
    const elsewhere = {};
    if (layers.sliding) elsewhere.sliding_attention = layers.sliding;
    if (layers.linear) elsewhere.linear_attention = layers.linear;
    const base = {
      model: model.id,
      layers_counted: layers.full,
      layers_total: layers.total || layers.full,
      elsewhere,
      sparse_indexer: c.index_topk !== null,
    };
    if (model.kv_formula === "mla") {
      if (layers.sliding) throw new NotPublished(model.id, ["swa_kv_lora_rank", "swa_qk_rope_head_dim"]);
      const row = (c.kv_lora_rank + c.qk_rope_head_dim) * size;
      return {
        ...base,
        formula: "mla",
        bytes_per_token: row * layers.full,
        per_rank_bytes: row * layers.full,
        replicated: attnTp > 1,
        swa_bytes_per_token: 0,
        swa_per_rank_bytes: 0,
      };
    }
    const heads = c.num_key_value_heads;
    const headRow = (c.head_dim + (c.v_head_dim || c.head_dim)) * size;
    const headsPerRank = Math.max(1, Math.floor(heads / attnTp));
    return {
      ...base,
      formula: "gqa",
      bytes_per_token: heads * headRow * layers.full,
      per_rank_bytes: headsPerRank * headRow * layers.full,
      replicated: attnTp > heads,
      swa_bytes_per_token: heads * headRow * layers.sliding,
      swa_per_rank_bytes: headsPerRank * headRow * layers.sliding,
    };
  }

  // ------------------------------------------------------------------------------------------ weights
  function weightBytes(model, dtype) {
    if (model.params_total_b === null) throw new NotPublished(model.id, ["params.total_b"]);
    return (model.params_total_b * 1e9 * dtype.bits) / 8;
  }

  function weightShare(totalBytes, tp, ep = 1) {
    if (tp < 1) throw new Error(`tp must be at least 1, got ${tp}`);
    if (ep < 1 || ep > tp || tp % ep) throw new Error(`ep must divide tp (${tp}), got ${ep}`);
    return totalBytes / tp;
  }

  function memoryBytes(hw) {
    if (hw.memory_gb === null) throw new NotPublished(hw.id, ["memory_gb"]);
    return hw.memory_gb * GB;
  }

  // ------------------------------------------------------------------------------------------ KV pool
  function kvPoolTokens(poolBytes, bytesPerToken, pageSize = 1, maxTotalTokens = null) {
    if (pageSize < 1) throw new Error(`page_size must be at least 1, got ${pageSize}`);
    if (bytesPerToken <= 0) throw new Error(`bytes per token must be positive, got ${bytesPerToken}`);
    let tokens = poolBytes > 0 ? Math.max(0, Math.floor(poolBytes / bytesPerToken)) : 0;
    if (maxTotalTokens !== null) tokens = Math.min(tokens, maxTotalTokens);
    return tokens - (tokens % pageSize);
  }

  // ------------------------------------------------------------------------------------------ layout
  function layoutProblems(model, tp) {
    const c = model.config;
    const problems = [];
    if (c.num_attention_heads !== null && c.num_attention_heads % tp) problems.push("heads-indivisible");
    const heads = c.num_key_value_heads;
    const gqa = model.kv_formula === "gqa" && heads !== null;
    if (gqa && ((heads >= tp && heads % tp) || (heads < tp && tp % heads))) problems.push("kv-heads-indivisible");
    return problems;
  }

  function hasLinearAttention(model) {
    const counts = model.config.layer_types_count;
    if ("full_attention" in counts) return "linear_attention" in counts;
    return "linear_attention" in counts || (model.config.full_attention_interval || 1) > 1;
  }

  function hasSlidingWindow(model) {
    return "sliding_attention" in model.config.layer_types_count;
  }

  function resolveContext(model, context, defaults) {
    if (context !== null && context !== undefined) {
      if (context < 1) throw new Error(`context must be at least 1, got ${context}`);
      return context;
    }
    return model.context_native !== null ? model.context_native : defaults.context_when_unpublished;
  }

  // ------------------------------------------------------------------------------------------ plan
  // opts: tp, ep, mem_fraction_static, context, page_size, max_total_tokens, swa_full_tokens_ratio
  function plan(data, model, hw, weights, kv, opts) {
    const d = data.defaults;
    const tp = opts.tp;
    const ep = opts.ep ?? 1;
    const fraction = opts.mem_fraction_static ?? d.mem_fraction_static;
    const pageSize = opts.page_size ?? 1;
    const cap = opts.max_total_tokens ?? null;
    const ratio = opts.swa_full_tokens_ratio ?? d.swa_full_tokens_ratio;
    if (!(fraction > 0 && fraction < 1)) throw new Error(`mem_fraction_static must be in (0, 1), got ${fraction}`);
    if (!(ratio > 0 && ratio <= 1)) throw new Error(`swa_full_tokens_ratio must be in (0, 1], got ${ratio}`);
    if (cap !== null && cap < 1) throw new Error(`max_total_tokens must be at least 1, got ${cap}`);
    if (pageSize < 1) throw new Error(`page_size must be at least 1, got ${pageSize}`);
    if (!weights.weights) throw new Error(`${weights.id} is not a weights dtype`);
    const kvSize = elementBytes(kv);
    weightShare(0, tp, ep);
    const nativeContext = model.context_native;
    const ctx = resolveContext(model, opts.context, d);
    const missing = {};
    const notes = [];

    let gpu = null;
    let fixed = null;
    let rest = null;
    try {
      gpu = memoryBytes(hw);
      fixed = gpu * fraction;
      rest = gpu * (1 - fraction);
    } catch (err) {
      if (!(err instanceof NotPublished)) throw err;
      missing.memory = err.missing;
    }
    let total = null;
    let perGpu = null;
    try {
      total = weightBytes(model, weights);
      perGpu = weightShare(total, tp, ep);
    } catch (err) {
      if (!(err instanceof NotPublished)) throw err;
      missing.weights = err.missing;
    }
    let cell = null;
    try {
      cell = kvCell(model, kv, tp);
    } catch (err) {
      if (!(err instanceof NotPublished)) throw err;
      missing.kv = err.missing;
    }

    const c = model.config;
    if (cell !== null) {
      if (cell.formula === "mla" && tp > 1) notes.push("mla-replicated");
      if (cell.formula === "gqa" && tp > c.num_key_value_heads) notes.push("kv-heads-replicated");
      if (cell.swa_per_rank_bytes) notes.push("swa-pool");
    }
    if (hasLinearAttention(model)) notes.push("linear-state");
    if (c.index_topk !== null) {
      notes.push("sparse-indexer");
      if (model.kv_formula === "mla" && kvSize === 1) notes.push("dsa-fp8-layout");
    }
    notes.push(...layoutProblems(model, tp));
    if (nativeContext !== null && ctx > nativeContext) notes.push("context-over-native");

    let pool = null;
    let perToken = null;
    let tokens = null;
    let swaTokens = null;
    let requests = null;
    if (fixed !== null && perGpu !== null) pool = fixed - perGpu;
    if (cell !== null) {
      perToken = cell.swa_per_rank_bytes ? cell.per_rank_bytes + ratio * cell.swa_per_rank_bytes : cell.per_rank_bytes;
    }
    if (pool !== null && perToken !== null) {
      const uncapped = kvPoolTokens(pool, perToken, pageSize);
      tokens = kvPoolTokens(pool, perToken, pageSize, cap);
      if (tokens < uncapped) notes.push("capped");
      if (cell.swa_per_rank_bytes) {
        swaTokens = Math.floor(tokens * ratio);
        swaTokens -= swaTokens % pageSize;
      }
      requests = Math.floor(tokens / ctx);
    }
    return {
      model: model.id,
      hardware: hw.id,
      weights_dtype: weights.id,
      kv_dtype: kv.id,
      tp,
      ep,
      mem_fraction_static: fraction,
      page_size: pageSize,
      max_total_tokens: cap,
      swa_full_tokens_ratio: ratio,
      context: ctx,
      context_native: nativeContext,
      gpu_bytes: gpu,
      static_bytes: fixed,
      rest_bytes: rest,
      weights_bytes: total,
      weights_per_gpu: perGpu,
      kv_pool_bytes: pool,
      kv_bytes_per_token: cell ? cell.bytes_per_token : null,
      kv_cell_per_gpu: cell ? cell.per_rank_bytes : null,
      swa_cell_per_gpu: cell ? cell.swa_per_rank_bytes : null,
      pool_bytes_per_token: perToken,
      max_tokens: tokens,
      swa_tokens: swaTokens,
      max_requests: requests,
      missing,
      notes: NOTE_CODES.filter((code) => notes.includes(code)),
    };
  }

  function smallestTp(data, model, hw, weights, fraction, kv = null, minKvTokens = 0, ratio = null) {
    const swaRatio = ratio ?? data.defaults.swa_full_tokens_ratio;
    const total = weightBytes(model, weights);
    const budget = memoryBytes(hw) * fraction;
    if (minKvTokens && kv === null) throw new Error("a KV headroom in tokens needs the KV dtype");
    for (const tp of data.tp_choices) {
      if (layoutProblems(model, tp).length) continue;
      const pool = budget - total / tp;
      if (pool <= 0) continue;
      if (!minKvTokens) return tp;
      const cell = kvCell(model, kv, tp);
      const perToken = cell.swa_per_rank_bytes ? cell.per_rank_bytes + swaRatio * cell.swa_per_rank_bytes : cell.per_rank_bytes;
      if (kvPoolTokens(pool, perToken) >= minKvTokens) return tp;
    }
    return null;
  }

  function autoTp(data, model, hw, weights, kv, fraction, context = null, ratio = null) {
    const ctx = resolveContext(model, context, data.defaults);
    try {
      weightBytes(model, weights);
      memoryBytes(hw);
    } catch (err) {
      if (!(err instanceof NotPublished)) throw err;
      return { tp: 1, basis: "unknown" };
    }
    let headroom = 0;
    let basis = "weights-only";
    try {
      kvCell(model, kv);
      headroom = ctx;
      basis = "headroom";
    } catch (err) {
      if (!(err instanceof NotPublished)) throw err;
    }
    const tp = smallestTp(data, model, hw, weights, fraction, kv, headroom, ratio);
    if (tp === null) {
      const valid = data.tp_choices.filter((t) => !layoutProblems(model, t).length);
      return { tp: Math.max(...valid), basis: "none-fits" };
    }
    return { tp, basis };
  }

  // ------------------------------------------------------------------------------------------ launch
  function number(x) {
    return String(x); // JavaScript prints 1.0 as "1" and 0.85 as "0.85", as launch.number does
  }

  function launchFlags(data, p, model, kv, path) {
    if (model.id !== p.model) throw new Error(`${model.id}: expected the plan's model (${p.model})`);
    if (kv.id !== p.kv_dtype || kv.engine_kv_value === null) {
      throw new Error(`${kv.id}: expected the plan's KV dtype (${p.kv_dtype}) with an engine spelling`);
    }
    const flags = [
      ["--model-path", path || PLACEHOLDER],
      ["--tp-size", String(p.tp)],
    ];
    if (p.ep > 1) flags.push(["--ep-size", String(p.ep)]);
    flags.push(["--mem-fraction-static", number(p.mem_fraction_static)]);
    flags.push(["--kv-cache-dtype", kv.engine_kv_value]);
    if (p.context_native === null || p.context !== p.context_native) flags.push(["--context-length", String(p.context)]);
    if (p.page_size > 1) flags.push(["--page-size", String(p.page_size)]);
    if (p.max_total_tokens !== null) flags.push(["--max-total-tokens", String(p.max_total_tokens)]);
    if (hasSlidingWindow(model) && p.swa_full_tokens_ratio !== data.defaults.swa_full_tokens_ratio) {
      flags.push(["--swa-full-tokens-ratio", number(p.swa_full_tokens_ratio)]);
    }
    // what kb/rules.yaml requires of this model's commands (launch.rule_flags)
    for (const rule of model.rule_flags) {
      if (rule.when === "multi-gpu") {
        if (p.tp > 1 && !flags.some(([flag]) => flag === rule.flag)) {
          flags.push([rule.flag, rule.value.replace("{tp}", String(p.tp))]);
        }
      } else if (rule.when === "always" || p.tp === 1) flags.push([rule.flag, rule.value]);
    }
    return flags;
  }

  function launchCommand(data, p, model, kv, path) {
    const lines = ["python -m sglang.launch_server"];
    for (const [flag, value] of launchFlags(data, p, model, kv, path)) lines.push(`  ${flag} ${value}`);
    return lines.join(" \\\n");
  }

  // ------------------------------------------------------------------------------------------ numbers
  // Python's str.format rounds half to even on the exact binary value; so does this (toExponential with
  // 100 digits is exact enough to see a true tie).
  function roundDigits(x, keep) {
    // x > 0: [digits (a string of `keep` digits, possibly one longer after a carry), exponent of the first]
    const [mantissa, exp] = x.toExponential(99).split("e");
    const all = mantissa.replace(".", "");
    let head = all.slice(0, keep);
    const tail = all.slice(keep);
    let up = false;
    if (tail[0] > "5") up = true;
    else if (tail[0] === "5") up = /[1-9]/.test(tail.slice(1)) || Number(head[head.length - 1] || "0") % 2 === 1;
    let e = Number(exp);
    if (up) {
      let carried = "";
      let carry = 1;
      for (let i = head.length - 1; i >= 0; i -= 1) {
        const digit = Number(head[i]) + carry;
        carry = digit === 10 ? 1 : 0;
        carried = String(digit % 10) + carried;
      }
      if (carry) {
        carried = "1" + carried.slice(0, -1);
        e += 1;
      }
      head = carried;
    }
    return [head, e];
  }

  function grouped(intDigits) {
    return intDigits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  // f"{round(n):,}"
  function thousands(n) {
    if (n === 0) return "0";
    const sign = n < 0 ? "-" : "";
    const x = Math.abs(n);
    if (Number.isInteger(x)) return sign + grouped(BigInt(x).toString());
    const e = Number(x.toExponential(99).split("e")[1]);
    if (e < 0) return x > 0.5 ? sign + "1" : "0"; // below 1: 0.5 itself rounds to the even 0
    const [head, exp] = roundDigits(x, e + 1);
    const digits = head.padEnd(exp + 1, "0");
    return (digits === "0" ? "" : sign) + grouped(digits);
  }

  // f"{x:,.0f}": like thousands, but a negative number that rounds to zero keeps its sign ("-0")
  function fixed0(x) {
    return x < 0 ? "-" + thousands(-x) : thousands(x);
  }

  // formatting.sig: f"{x:.{digits}g}", falling back to f"{x:,.0f}" where Python would write an exponent
  function sig(x, digits = 3) {
    if (x === 0) return "0";
    const sign = x < 0 ? "-" : "";
    const [head, exp] = roundDigits(Math.abs(x), digits);
    if (exp < -4 || exp >= digits) return fixed0(x);
    let text;
    if (exp >= 0) {
      const whole = head.slice(0, exp + 1).padEnd(exp + 1, "0");
      const frac = head.slice(exp + 1).replace(/0+$/, "");
      text = frac ? `${whole}.${frac}` : whole;
    } else {
      text = `0.${"0".repeat(-exp - 1)}${head}`.replace(/0+$/, "");
    }
    return sign + text;
  }

  function binarySize(n) {
    for (const [unit, size] of [["GiB", GIB], ["MiB", MIB], ["KiB", KIB]]) {
      if (n >= size) return `${sig(n / size)} ${unit}`;
    }
    return `${thousands(n)} B`;
  }

  function gb(n, digits = 3) {
    return `${sig(n / GB, digits)} GB`;
  }

  // ------------------------------------------------------------------------------------------ figures
  function template(text, values) {
    return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
  }

  function noteValues(p, model) {
    const c = model.config;
    return {
      tp: p.tp,
      heads: c.num_attention_heads,
      kv_heads: c.num_key_value_heads,
      sliding: c.layer_types_count.sliding_attention || 0,
      ratio: number(p.swa_full_tokens_ratio),
      topk: c.index_topk,
      context: thousands(p.context),
      native: p.context_native !== null ? thousands(p.context_native) : "",
    };
  }

  function kvText(perToken) {
    return `${thousands(perToken)} B (${binarySize(perToken)})`;
  }

  function figureTexts(p, model, messages) {
    const unpublished = (...parts) => {
      const fields = [];
      for (const part of parts) for (const f of p.missing[part] || []) if (!fields.includes(f)) fields.push(f);
      return template(messages["planner-not-published-fields"], { fields: fields.join(", ") });
    };
    const sized = (value, ...parts) => (value !== null ? gb(value) : unpublished(...parts));
    const out = {
      gpu: sized(p.gpu_bytes, "memory"),
      static: sized(p.static_bytes, "memory"),
      rest: sized(p.rest_bytes, "memory"),
      weights: sized(p.weights_bytes, "weights"),
      "weights-gpu": sized(p.weights_per_gpu, "weights"),
      "kv-pool": sized(p.kv_pool_bytes, "memory", "weights"),
    };
    if (p.kv_bytes_per_token === null) {
      out["kv-token"] = out["kv-token-gpu"] = unpublished("kv");
    } else {
      out["kv-token"] = kvText(p.kv_bytes_per_token);
      out["kv-token-gpu"] = kvText(p.kv_cell_per_gpu);
      if (p.swa_cell_per_gpu) out["kv-token-gpu"] += ` + ${number(p.swa_full_tokens_ratio)} × SWA ${kvText(p.swa_cell_per_gpu)}`;
    }
    const everything = ["memory", "weights", "kv"];
    out["max-tokens"] = p.max_tokens !== null ? thousands(p.max_tokens) : unpublished(...everything);
    if (!hasSlidingWindow(model)) out["swa-tokens"] = messages["planner-not-applicable"];
    else if (p.swa_tokens === null) out["swa-tokens"] = unpublished(...everything);
    else out["swa-tokens"] = thousands(p.swa_tokens);
    out.requests = p.max_requests !== null ? thousands(p.max_requests) : unpublished(...everything);
    return out;
  }

  // ------------------------------------------------------------------------------------------ the page
  const byId = (list, id) => list.find((item) => item.id === id);
  const DECIMAL = /^(0?\.\d{1,3}|1(\.0{1,3})?|0)$/;
  const INTEGER = /^[1-9]\d{0,9}$/;

  function defaultsFor(data, model) {
    return {
      model: model.id,
      gpu: data.defaults.hardware,
      tp: "auto",
      ep: 1,
      weights: model.weights_dtypes[0],
      kv: data.defaults.kv_dtype,
      mem: data.defaults.mem_fraction_static,
      context: resolveContext(model, null, data.defaults),
      page: 1,
      maxTokens: null,
      swaRatio: data.defaults.swa_full_tokens_ratio,
    };
  }

  // Each URL parameter: how to read it, and whether a value is acceptable (given what was read before).
  function readParams(data, params) {
    const problems = [];
    const model = byId(data.models, params.get("model")) || byId(data.models, data.defaults.model);
    if (params.has("model") && model.id !== params.get("model")) {
      problems.push(["model", params.get("model"), data.defaults.model]);
    }
    const base = defaultsFor(data, model);
    const state = { ...base };
    const take = (name, key, parse, valid) => {
      if (!params.has(name)) return;
      const raw = params.get(name);
      const value = parse(raw);
      if (value !== undefined && valid(value)) state[key] = value;
      else problems.push([name, raw, base[key] === null ? "—" : String(base[key])]);
    };
    const decimal = (raw) => (DECIMAL.test(raw) ? Number(raw) : undefined);
    const integer = (raw) => (INTEGER.test(raw) ? Number(raw) : undefined);
    take("gpu", "gpu", (raw) => raw, (v) => Boolean(byId(data.hardware, v)));
    take("tp", "tp", (raw) => (raw === "auto" ? "auto" : integer(raw)), (v) => v === "auto" || data.tp_choices.includes(v));
    take("ep", "ep", integer, (v) => data.tp_choices.includes(v) && (state.tp === "auto" || state.tp % v === 0));
    take("weights-dtype", "weights", (raw) => raw, (v) => model.weights_dtypes.includes(v));
    take("kv-dtype", "kv", (raw) => raw, (v) => Boolean(byId(data.dtypes, v)) && byId(data.dtypes, v).kv);
    take("mem-fraction-static", "mem", decimal, (v) => v > 0 && v < 1);
    take("context", "context", integer, (v) => v >= 1);
    take("page-size", "page", integer, (v) => v >= 1);
    take("max-total-tokens", "maxTokens", integer, (v) => v >= 1);
    take("swa-full-tokens-ratio", "swaRatio", decimal, (v) => v > 0 && v <= 1);
    return { state, problems };
  }

  function stateToParams(data, state) {
    const params = new URLSearchParams();
    params.set("model", state.model);
    params.set("gpu", state.gpu);
    params.set("tp", String(state.tp));
    if (state.ep !== 1) params.set("ep", String(state.ep));
    params.set("weights-dtype", state.weights);
    params.set("kv-dtype", state.kv);
    params.set("mem-fraction-static", String(state.mem));
    params.set("context", String(state.context));
    if (state.page !== 1) params.set("page-size", String(state.page));
    if (state.maxTokens !== null) params.set("max-total-tokens", String(state.maxTokens));
    if (state.swaRatio !== data.defaults.swa_full_tokens_ratio) params.set("swa-full-tokens-ratio", String(state.swaRatio));
    return params;
  }

  function element(tag, attrs = {}, text = null) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
    if (text !== null) node.textContent = text;
    return node;
  }

  function svgElement(tag, attrs) {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
    return node;
  }

  function fillSelect(select, options, value) {
    select.replaceChildren(...options.map(([v, label]) => element("option", { value: String(v) }, label)));
    select.value = String(value);
  }

  class Planner {
    constructor(root, data, messages) {
      this.root = root;
      this.data = data;
      this.messages = messages;
      this.form = root.querySelector(".planner-form");
      this.inputNotes = [];
      const read = readParams(data, new URLSearchParams(window.location.search));
      this.state = read.state;
      this.urlNotes = read.problems.map(([name, value, fallback]) =>
        template(messages["planner-invalid-param"], { name, value, fallback }),
      );
      this.form.addEventListener("submit", (event) => event.preventDefault());
      this.form.addEventListener("change", (event) => this.onChange(event.target));
      this.update();
    }

    field(name) {
      return this.form.elements.namedItem(name);
    }

    onChange(target) {
      const s = this.state;
      const value = target.value.trim();
      this.inputNotes = [];
      const invalid = (label, fallback) => {
        this.inputNotes.push(template(this.messages["planner-invalid-input"], { name: label, value, fallback }));
      };
      switch (target.name) {
        case "model": {
          const model = byId(this.data.models, value);
          const keep = { gpu: s.gpu, tp: s.tp, kv: s.kv, mem: s.mem, page: s.page, maxTokens: s.maxTokens, swaRatio: s.swaRatio };
          this.state = { ...defaultsFor(this.data, model), ...keep };
          if (!model.moe) this.state.ep = 1;
          else this.state.ep = s.tp !== "auto" && s.tp % s.ep === 0 ? s.ep : 1;
          break;
        }
        case "gpu":
          s.gpu = value;
          break;
        case "tp":
          s.tp = value === "auto" ? "auto" : Number(value);
          if (s.tp === "auto" || s.tp % s.ep) s.ep = 1;
          break;
        case "ep":
          s.ep = Number(value);
          break;
        case "weights-dtype":
          s.weights = value;
          break;
        case "kv-dtype":
          s.kv = value;
          break;
        case "mem-fraction-static":
          if (DECIMAL.test(value) && Number(value) > 0 && Number(value) < 1) s.mem = Number(value);
          else invalid("--mem-fraction-static", s.mem);
          break;
        case "context":
          if (INTEGER.test(value)) s.context = Number(value);
          else invalid(this.messages["planner-context"], s.context);
          break;
        case "page-size":
          if (INTEGER.test(value)) s.page = Number(value);
          else invalid("--page-size", s.page);
          break;
        case "max-total-tokens":
          if (value === "") s.maxTokens = null;
          else if (INTEGER.test(value)) s.maxTokens = Number(value);
          else invalid("--max-total-tokens", s.maxTokens === null ? "—" : s.maxTokens);
          break;
        case "swa-full-tokens-ratio":
          if (DECIMAL.test(value) && Number(value) > 0 && Number(value) <= 1) s.swaRatio = Number(value);
          else invalid("--swa-full-tokens-ratio", s.swaRatio);
          break;
        default:
          return;
      }
      this.update();
    }

    compute() {
      const d = this.data;
      const s = this.state;
      const model = byId(d.models, s.model);
      const hw = byId(d.hardware, s.gpu);
      const weights = byId(d.dtypes, s.weights);
      const kv = byId(d.dtypes, s.kv);
      let auto = null;
      let tp = s.tp;
      if (tp === "auto") {
        auto = autoTp(d, model, hw, weights, kv, s.mem, s.context, s.swaRatio);
        tp = auto.tp;
      }
      const ep = tp % s.ep === 0 ? s.ep : 1;
      const opts = {
        tp,
        ep,
        mem_fraction_static: s.mem,
        context: s.context,
        page_size: s.page,
        max_total_tokens: s.maxTokens,
        swa_full_tokens_ratio: s.swaRatio,
      };
      const p = plan(d, model, hw, weights, kv, opts);
      return { model, hw, weights, kv, auto, plan: p };
    }

    syncForm(result) {
      const d = this.data;
      const s = this.state;
      const m = this.messages;
      const dtype = (id) => byId(d.dtypes, id);
      fillSelect(this.field("model"), d.models.map((x) => [x.id, x.name]), s.model);
      fillSelect(this.field("gpu"), d.hardware.map((x) => [x.id, x.memory_gb !== null ? `${x.name} (${sig(x.memory_gb)} GB)` : x.name]), s.gpu);
      const autoLabel = result.auto ? `${m["planner-tp-auto"]} (${result.auto.tp})` : m["planner-tp-auto"];
      fillSelect(this.field("tp"), [["auto", autoLabel], ...d.tp_choices.map((t) => [t, String(t)])], s.tp);
      const tp = result.plan.tp;
      const eps = result.model.moe ? d.tp_choices.filter((e) => e <= tp && tp % e === 0) : [1];
      fillSelect(this.field("ep"), eps.map((e) => [e, String(e)]), result.plan.ep);
      this.field("ep").disabled = eps.length < 2;
      fillSelect(this.field("weights-dtype"), result.model.weights_dtypes.map((id) => [id, dtype(id).name]), s.weights);
      fillSelect(this.field("kv-dtype"), d.dtypes.filter((x) => x.kv).map((x) => [x.id, x.name]), s.kv);
      this.field("mem-fraction-static").value = String(s.mem);
      this.field("context").value = String(s.context);
      this.field("page-size").value = String(s.page);
      this.field("max-total-tokens").value = s.maxTokens === null ? "" : String(s.maxTokens);
      this.field("swa-full-tokens-ratio").value = String(s.swaRatio);
      this.field("swa-full-tokens-ratio").disabled = !hasSlidingWindow(result.model);
    }

    update() {
      const result = this.compute();
      this.syncForm(result);
      this.render(result);
      const params = stateToParams(this.data, this.state);
      const url = `${window.location.pathname}?${params.toString()}${window.location.hash}`;
      window.history.replaceState(null, "", url);
      const share = this.root.querySelector(".planner-share");
      share.href = window.location.href;
      share.textContent = window.location.href;
    }

    render(result) {
      const m = this.messages;
      const p = result.plan;
      const values = noteValues(p, result.model);
      // status: what was not valid, how TP was chosen, and whether it fits
      const status = [...this.urlNotes, ...this.inputNotes];
      if (result.auto) status.push(template(m[`planner-auto-${result.auto.basis}`], { ...values, tp: result.auto.tp }));
      if (p.kv_pool_bytes !== null && p.kv_pool_bytes <= 0) {
        status.push(
          template(m["planner-weights-do-not-fit"], {
            weights: gb(p.weights_per_gpu),
            fraction: number(p.mem_fraction_static),
            budget: gb(p.static_bytes),
            short: gb(-p.kv_pool_bytes),
          }),
        );
      } else if (p.max_tokens === 0) {
        status.push(template(m["planner-no-room"], { page: p.page_size }));
      }
      const statusBox = this.root.querySelector(".planner-status");
      statusBox.replaceChildren(...status.map((text) => element("p", {}, text)));
      statusBox.classList.toggle("planner-warn", p.fits === false || this.urlNotes.length > 0 || this.inputNotes.length > 0 || (p.kv_pool_bytes !== null && p.kv_pool_bytes <= 0));

      const texts = figureTexts(p, result.model, m);
      const raw = {
        gpu: p.gpu_bytes,
        static: p.static_bytes,
        rest: p.rest_bytes,
        weights: p.weights_bytes,
        "weights-gpu": p.weights_per_gpu,
        "kv-pool": p.kv_pool_bytes,
        "kv-token": p.kv_bytes_per_token,
        "kv-token-gpu": p.kv_cell_per_gpu,
        "max-tokens": p.max_tokens,
        "swa-tokens": p.swa_tokens,
        requests: p.max_requests,
      };
      for (const cell of this.root.querySelectorAll("[data-figure]")) {
        const key = cell.dataset.figure;
        cell.textContent = texts[key];
        cell.dataset.value = raw[key] === null || raw[key] === undefined ? "" : String(raw[key]);
      }
      const requestsLabel = this.root.querySelector('[data-figure="requests"]').previousElementSibling;
      requestsLabel.textContent = template(m["planner-fig-requests"], values);

      this.renderBar(p);

      const notes = p.notes.map((code) => [code, template(m[`planner-note-${code}`], values)]);
      if (p.tp > 8) notes.push(["multi-node", m["planner-multi-node"]]);
      const list = this.root.querySelector(".planner-notes");
      list.replaceChildren(...notes.map(([code, text]) => element("li", { "data-note": code }, text)));

      const found = result.model.model_paths[p.weights_dtype] || { path: null, basis: null };
      this.root.querySelector(".planner-command code").textContent = launchCommand(this.data, p, result.model, result.kv, found.path);
      const dtypeName = result.weights.name;
      const pathNote = found.basis === "checkpoint" ? "" : template(m[`planner-path-${found.basis || "none"}`], { dtype: dtypeName, path: found.path || "" });
      this.root.querySelector(".planner-command-note").textContent = pathNote;
      this.root.querySelector(".planner-basis").textContent = template(m["planner-basis"], { version: this.data.engine.version });
    }

    renderBar(p) {
      const m = this.messages;
      const bar = this.root.querySelector(".planner-bar");
      const legend = this.root.querySelector(".planner-legend");
      if (p.gpu_bytes === null) {
        bar.replaceChildren(element("p", {}, template(m["planner-not-published-fields"], { fields: p.missing.memory.join(", ") })));
        legend.replaceChildren();
        return;
      }
      const gpu = p.gpu_bytes;
      const weights = p.weights_per_gpu;
      const over = weights !== null ? Math.max(0, weights - p.static_bytes) : 0;
      const parts = [];
      if (weights !== null) {
        parts.push(["weights", Math.min(weights, p.static_bytes)]);
        if (over > 0) parts.push(["over", Math.min(over, p.rest_bytes)]);
        else parts.push(["kv", p.kv_pool_bytes]);
      }
      parts.push(["rest", over > 0 ? Math.max(0, p.rest_bytes - over) : p.rest_bytes]);
      const width = 1000;
      const svg = svgElement("svg", { viewBox: `0 0 ${width} 48`, role: "img", class: "planner-svg", preserveAspectRatio: "none" });
      const title = svgElement("title", {});
      title.textContent = m["planner-budget"];
      svg.append(title);
      let x = 0;
      for (const [kind, bytes] of parts) {
        const w = (bytes / gpu) * width;
        svg.append(svgElement("rect", { x, y: 0, width: Math.max(0, w), height: 48, class: `planner-part-${kind}`, "data-part": kind, "data-bytes": bytes }));
        x += w;
      }
      if (weights === null) {
        // weights unknown: the static budget is drawn as one hatched block
        svg.append(svgElement("rect", { x: 0, y: 0, width: (p.static_bytes / gpu) * width, height: 48, class: "planner-part-unknown", "data-part": "unknown" }));
      }
      const edge = (p.static_bytes / gpu) * width;
      svg.append(svgElement("line", { x1: edge, x2: edge, y1: 0, y2: 48, class: "planner-edge" }));
      bar.replaceChildren(svg);
      const labels = { weights: "planner-legend-weights", kv: "planner-legend-kv", rest: "planner-legend-rest", over: "planner-legend-over" };
      // the legend gives whole amounts; the bar clips what does not fit on the GPU
      const amounts = { weights: weights, kv: p.kv_pool_bytes, over, rest: p.rest_bytes };
      const items = parts.map(([kind]) => {
        const item = element("li", { "data-part": kind });
        item.append(element("span", { class: `planner-swatch planner-part-${kind}` }), document.createTextNode(`${m[labels[kind]]}: ${gb(amounts[kind])}`));
        return item;
      });
      if (weights === null) {
        const fields = p.missing.weights.join(", ");
        const split = template(m["planner-not-published-fields"], { fields });
        const item = element("li", { "data-part": "unknown" });
        item.append(element("span", { class: "planner-swatch planner-part-unknown" }), document.createTextNode(`${m["planner-legend-weights"]} + ${m["planner-legend-kv"]}: ${gb(p.static_bytes)} · ${split}`));
        items.unshift(item);
      }
      legend.replaceChildren(...items);
    }
  }

  async function start(root) {
    const messages = JSON.parse(root.querySelector(".planner-messages").textContent);
    const status = root.querySelector(".planner-status");
    const url = DATA_URL;
    let data;
    try {
      const response = await fetch(url, { cache: "no-cache" });
      if (!response.ok) throw new Error(String(response.status));
      data = await response.json();
    } catch (err) {
      status.replaceChildren(element("p", {}, template(messages["planner-load-failed"], { url: url.pathname })));
      status.classList.add("planner-warn");
      return;
    }
    root.planner = new Planner(root, data, messages);
    root.dataset.ready = "true";
  }

  window.HandbookPlanner = {
    NOTE_CODES,
    NotPublished,
    layerSplit,
    kvCell,
    weightBytes,
    weightShare,
    memoryBytes,
    kvPoolTokens,
    layoutProblems,
    resolveContext,
    plan,
    smallestTp,
    autoTp,
    launchFlags,
    launchCommand,
    figureTexts,
    noteValues,
    readParams,
    format: { sig, thousands, binarySize, gb, number },
  };

  function boot() {
    for (const root of document.querySelectorAll("[data-planner]")) start(root);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
