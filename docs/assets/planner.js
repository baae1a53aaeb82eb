/* The handbook's memory and KV planner (docs/<lang>/planner.md, the kb:planner marker).
 *
 * The pure functions below are handbook/calc/sizing.py, handbook/calc/params.py, handbook/calc/memory.py,
 * handbook/calc/launch.py and the figure texts of handbook/render/planner.py written again for the browser,
 * with the same operations in the same order, so both sides give identical numbers; the test suite compares
 * them over every model × accelerator × dtype of the knowledge base. The data is the KB export the build
 * writes beside the pages (handbook/calc/planner_data.py), the engine's defaults and Python's constant tables
 * included (none is typed here); the wording comes from the page (<script class="planner-messages">).
 * Plain ES2020: no third-party code, no request beyond that one file of this site.
 */
(function () {
  "use strict";

  const GB = 1e9;
  const MIB = 2 ** 20;
  const GIB = 2 ** 30;
  // The build writes the KB export beside this script (handbook.calc.planner_data.PLANNER_DATA_PATH), and both
  // language builds share the one assets folder.
  const DATA_URL = new URL("planner-data.json", document.currentScript ? document.currentScript.src : window.location.href);

  class NotPublished extends Error {
    constructor(subject, missing) {
      super(`${subject}: not in this KB: ${missing.join(", ")}`);
      this.missing = missing;
    }
  }

  // Python's tables (handbook/calc/planner_data.py TABLES: the engine's constants, the parameter formulas'
  // fields, the plan's codes), read from the data's "tables" by their Python names. useTables(data) binds them
  // at each entry point that is given the data; a name the data lacks, or a read before any data was given,
  // throws instead of reading as undefined.
  let tablesOf = null;
  let K = strictTables(null);

  function strictTables(tables) {
    return new Proxy(
      {},
      {
        get(_, name) {
          if (tables === null) throw new Error(`planner.js: table ${String(name)} read before the planner data was given`);
          if (!Object.prototype.hasOwnProperty.call(tables, name)) throw new Error(`planner data: no table ${String(name)} (handbook/calc/planner_data.py TABLES)`);
          return tables[name];
        },
      },
    );
  }

  function useTables(data) {
    if (tablesOf === data) return;
    if (!data || typeof data.tables !== "object" || data.tables === null) {
      throw new Error(`planner data: no "tables" (schema_version ${data?.schema_version}; handbook/calc/planner_data.py)`);
    }
    K = strictTables(data.tables);
    tablesOf = data;
  }

  // ------------------------------------------------------------------------------------------ Python's arithmetic
  // round(x, digits): half to even on the double's exact value, as Python's round does.
  function pyRound(x, digits) {
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, x);
    const hi = view.getUint32(0);
    const lo = view.getUint32(4);
    const sign = hi >>> 31 ? -1n : 1n;
    const exponent = (hi >>> 20) & 0x7ff;
    let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
    let e;
    if (exponent === 0) e = -1074;
    else {
      mantissa |= 1n << 52n;
      e = exponent - 1075;
    }
    const scale = 10n ** BigInt(digits);
    let q;
    if (e >= 0) q = (mantissa << BigInt(e)) * scale;
    else {
      const num = mantissa * scale;
      const den = 1n << BigInt(-e);
      q = num / den;
      const twice = 2n * (num % den);
      if (twice > den || (twice === den && q % 2n === 1n)) q += 1n;
    }
    return Number(`${sign * q}e-${digits}`);
  }

  // a // b for non-negative operands, as CPython computes it (exact for integers, its float algorithm else)
  function floorDiv(vx, wx) {
    const mod = vx % wx;
    const div = (vx - mod) / wx;
    if (!div) return 0;
    let result = Math.floor(div);
    if (div - result > 0.5) result += 1;
    return result;
  }

  // ------------------------------------------------------------------------------------------ engine rules
  // handbook/calc/sizing.py: the platform, the backend and page size, the default fraction, the indexers,
  // the state pool, max_running_requests. Each rule's wheel file and line is cited there.

  function platformOf(hw) {
    return K.PLATFORMS[`${hw.vendor}/${hw.architecture || ""}`] || null;
  }

  function architecture(model) {
    const names = model.config.architectures;
    return names?.length ? names[0] : null;
  }

  function isDsa(model) {
    const arch = architecture(model);
    return model.kv_formula === "mla" && model.config.index_topk !== null && (arch === null || K.DSA_ARCHITECTURES.includes(arch));
  }

  function isDsv4(model) {
    return K.DSV4_ARCHITECTURES.includes(architecture(model));
  }

  function isQsa(model) {
    return model.config.indexer_n_heads !== null;
  }

  // handbook/calc/sizing.py decides both from the engine's architecture lists; the export carries the answer
  function isMultimodal(model) {
    return model.multimodal;
  }

  function backend(data, model, platform, tp, kv) {
    const arch = architecture(model);
    const unknown = [];
    const made = (attention, pageSize, raw = true) => ({ attention, page_size: pageSize, dsa_raw_layout: raw, unknown: [...unknown] });
    if (platform === null) return { attention: null, page_size: 1, dsa_raw_layout: true, unknown: ["platform"] };
    if (arch === null) unknown.push("architecture");
    const mla = model.kv_formula === "mla";
    if (isDsa(model)) {
      const fp8E4m3 = kv.engine_kv_value === K.DSA_SCALED_KV;
      const raw = platform !== "hopper" || !fp8E4m3;
      const page = platform !== "cdna" || data.engine_defaults.use_aiter ? K.DSA_PAGE_SIZE : 1;
      return made("dsa", page, raw);
    }
    if (isDsv4(model)) return made(K.DSV4_BACKEND, K.DSV4_PAGE_SIZE);
    if (K.QWEN4_EXP.includes(arch) && isQsa(model)) return made(K.QSA_BACKENDS[platform], K.QSA_PAGE_SIZE);
    if (platform === "cdna") {
      if (!mla) return made(K.ATTENTION_BACKENDS.rocm, 1);
      const heads = model.config.num_key_value_heads;
      if (heads === null) {
        unknown.push("kv-heads");
        return made(null, 1);
      }
      const perRank = Math.max(1, Math.floor(heads / tp));
      return made(K.ATTENTION_BACKENDS[K.AITER_MLA_HEADS.includes(perRank) ? "rocm" : "rocm_mla_other"], 1);
    }
    if (platform === "hopper") return made(K.ATTENTION_BACKENDS.hopper, 1);
    if (mla) return K.DEEPSEEK_FAMILY.includes(arch) ? made(K.ATTENTION_BACKENDS.sm100_deepseek_mla, K.TRTLLM_PAGE_SIZE) : made(K.ATTENTION_BACKENDS.sm100_mla, 1);
    if (K.QWEN3_5_FAMILY.includes(arch)) return made(K.ATTENTION_BACKENDS.sm100_qwen3_5, 1);
    const c = model.config;
    if (!K.GPT_OSS.includes(arch) && c.v_head_dim !== null && c.v_head_dim !== c.head_dim) return made(K.ATTENTION_BACKENDS.sm100_fa4, K.FA4_PAGE_SIZE);
    return made(K.ATTENTION_BACKENDS.sm100, K.TRTLLM_PAGE_SIZE);
  }

  function defaultMemFraction(gpuMib, tp) {
    const [, chunk, smallTpBs, largeTpBs] = K.MEM_FRACTION_TIERS.find(([below]) => below === null || gpuMib < below);
    const maxBs = tp < K.SMALL_TP ? smallTpBs : largeTpBs;
    let reserved = K.RESERVE_BASE_MIB;
    reserved += Math.max(chunk, K.RESERVE_MIN_TOKENS) * K.RESERVE_MIB_PER_TOKEN;
    reserved += ((tp * 1) / K.RESERVE_RANKS) * K.RESERVE_MIB_PER_RANKS;
    reserved += maxBs * K.RESERVE_MIB_PER_GRAPH_BATCH;
    if (gpuMib > K.RESERVE_FLOOR_ABOVE_MIB) reserved = Math.max(reserved, K.RESERVE_FLOOR_MIB);
    return pyRound((gpuMib - reserved) / gpuMib, K.FRACTION_DIGITS);
  }

  function vlmFraction(fraction, hiddenSize, layers) {
    if (hiddenSize === null) return fraction * (K.VLM_BASE * K.VLM_FACTOR_MAX);
    const vitLayers = layers !== null ? layers : K.VIT_DEFAULT_LAYERS;
    const ratio = (vitLayers * hiddenSize ** 2) / (K.VIT_BASELINE_LAYERS * K.VIT_BASELINE_HIDDEN ** 2);
    const dynamic = Math.max(K.VLM_FACTOR_MIN, Math.min(K.VLM_FACTOR_MAX, 1.0 - K.VLM_SENSITIVITY * (ratio - 1.0)));
    return fraction * (K.VLM_BASE * dynamic);
  }

  function dsaIndexerLayers(model) {
    return model.dsa_indexer_layers; // decided by the export (handbook.calc.sizing.dsa_indexer_layers)
  }

  function dsaIndexerBytes(model, allLayers) {
    const layers = allLayers !== undefined ? allLayers : dsaIndexerLayers(model);
    const dim = model.config.index_head_dim;
    if (layers === null || dim === null) return null;
    return (dim + Math.floor(dim / K.DSA_QUANT_BLOCK) * K.DSA_SCALE_BYTES) * layers;
  }

  function dsaRow(model, raw, kvBytes) {
    const c = model.config;
    if (raw) return (c.kv_lora_rank + c.qk_rope_head_dim) * kvBytes;
    return c.kv_lora_rank + Math.floor(c.kv_lora_rank / K.DSA_QUANT_BLOCK) * K.DSA_SCALE_BYTES + c.qk_rope_head_dim * 2;
  }

  function qsaIndexerBytes(model, fullLayers) {
    const c = model.config;
    if (c.indexer_kv_heads === null || c.indexer_head_dim === null || c.indexer_compress_ratio === null) return null;
    return Math.floor((c.indexer_kv_heads * c.indexer_head_dim * 2) / c.indexer_compress_ratio) * fullLayers;
  }

  // ------------------------------------------------------------------------------------------ DeepSeek-V4
  // handbook/calc/sizing.py's DeepSeek-V4 section: the compressed pool of DSV4PoolConfigurator.
  function dsv4RatioLayers(model) {
    const c = model.config;
    if (c.compress_ratios === null || c.num_hidden_layers === null) return null;
    const stage = c.compress_ratios.slice(0, c.num_hidden_layers);
    if (stage.length < c.num_hidden_layers || stage.some((r) => r !== 0 && !K.DSV4_RATIOS.includes(r))) return null;
    const layers = {};
    for (const ratio of K.DSV4_RATIOS) layers[ratio] = stage.filter((r) => r === ratio).length;
    return layers;
  }

  function dsv4PagedBytes(data, pageSize, ratio = 0) {
    const [row, align] = K.DSV4_KV_LAYOUTS[data.engine_defaults.dsv4_kv_layout];
    const page = ratio ? Math.floor(pageSize / ratio) : pageSize;
    return (Math.ceil((page * row) / align) * align) / page;
  }

  function dsv4IndexerBytes(indexHeadDim) {
    return indexHeadDim + Math.floor(indexHeadDim / K.DSA_QUANT_BLOCK) * K.DSA_SCALE_BYTES;
  }

  function dsv4StateDtypeBytes(data) {
    return K.DTYPE_BYTES[K.DSV4_STATE_DTYPES[data.engine_defaults.dsv4_compress_state_dtype.trim().toLowerCase()]];
  }

  function dsv4Cell(data, model, pageSize, swaRatio) {
    const layers = dsv4RatioLayers(model);
    const c = model.config;
    if (layers === null || c.head_dim === null || c.index_head_dim === null) return null;
    const [n4, n128] = [layers[K.DSV4_C4_RATIO], layers[K.DSV4_C128_RATIO]];
    const state = dsv4StateDtypeBytes(data);
    const index = dsv4IndexerBytes(c.index_head_dim);
    const c4State = 2 * 2 * c.head_dim * state + 2 * 2 * c.index_head_dim * state;
    const swa = dsv4PagedBytes(data, pageSize) * c.num_hidden_layers + (K.DSV4_C4_RING / pageSize) * c4State * n4;
    const c4Kv = (1 / K.DSV4_C4_RATIO) * dsv4PagedBytes(data, pageSize, K.DSV4_C4_RATIO);
    const c128Kv = (1 / K.DSV4_C128_RATIO) * dsv4PagedBytes(data, pageSize, K.DSV4_C128_RATIO);
    const c4 = c4Kv + (1 / K.DSV4_C4_RATIO) * index;
    let owned = 0;
    for (const [perLayer, n] of [[c4, n4], [c128Kv, n128]]) if (n) owned += perLayer * n;
    return {
      kv: c4Kv * n4 + c128Kv * n128,
      indexer: (1 / K.DSV4_C4_RATIO) * index * n4,
      per_token: swaRatio * swa + owned,
      swa,
      c4_layers: n4,
      c128_layers: n128,
    };
  }

  function dsv4StateBytes(data, model, maxRunningRequests) {
    const n128 = dsv4RatioLayers(model)?.[K.DSV4_C128_RATIO] || 0;
    if (!n128) return 0;
    const ring = K.DSV4_C128_RING;
    let rows = (maxRunningRequests + 1) * ring + ring + 1;
    rows = Math.ceil(rows / K.DSV4_C128_RATIO) * K.DSV4_C128_RATIO;
    return rows * 2 * model.config.head_dim * dsv4StateDtypeBytes(data) * n128;
  }

  // --kv-cache-dtype's value, spelled as the model's hook accepts it (sizing.kv_cache_dtype_flag)
  function kvCacheDtypeFlag(model, kv) {
    const value = kv.engine_kv_value;
    if (isDsv4(model) && value !== null) return K.DSV4_KV_SPELLINGS[value] ?? value;
    return value;
  }

  function refusesKvDtype(model, kv) {
    return isDsv4(model) && !K.DSV4_KV_CACHE_DTYPES.includes(kvCacheDtypeFlag(model, kv));
  }

  function stateBytesPerRequest(data, model, linearLayers, tp, ssmDtype) {
    const c = model.config;
    let groups = c.linear_num_key_heads;
    if (groups % tp) groups += tp - groups;
    const convDim = c.linear_num_value_heads * c.linear_value_head_dim + 2 * groups * c.linear_key_head_dim;
    const conv = Math.floor(convDim / tp) * (c.linear_conv_kernel_dim - 1) * K.DTYPE_BYTES[data.engine_defaults.mamba_conv_dtype];
    const temporal = Math.floor(c.linear_num_value_heads / tp) * c.linear_value_head_dim * c.linear_key_head_dim;
    return (conv + temporal * K.DTYPE_BYTES[ssmDtype]) * linearLayers;
  }

  function stateSlots(restGib, perRequest, ratio) {
    const budget = (restGib * ratio) / (1 + ratio);
    const budgetBytes = budget * GIB;
    return Math.trunc(floorDiv(budgetBytes - perRequest, perRequest));
  }

  function maxRunningRequests(tokens, context, given, slots) {
    let estimated = Math.trunc((tokens / context) * K.REQUESTS_PER_CONTEXT);
    estimated = Math.max(Math.min(estimated, K.MAX_REQUESTS_MAX), K.MAX_REQUESTS_MIN);
    let requests = Math.min(given !== null ? Math.max(1, given) : estimated, Math.floor(tokens / 2));
    if (slots !== null) requests = Math.min(requests, Math.floor(slots / (K.MAMBA_REQUEST_RATIO + K.MAMBA_TRACKING_SLOTS)));
    return requests;
  }

  // ------------------------------------------------------------------------------------------ parameters
  // handbook/calc/params.py counts the parameters from the architecture fields where no total is published;
  // the export carries the count (or null), so the browser only reads it.
  function paramCount(model) {
    return model.param_count;
  }

  // ------------------------------------------------------------------------------------------ layers
  function layerSplit(model) {
    const c = model.config;
    const counts = c.layer_types_count;
    if ("full_attention" in counts) {
      let full = counts.full_attention;
      let sliding = counts.sliding_attention || 0;
      if (sliding && model.hybrid_swa === false) {
        full += sliding;
        sliding = 0;
      }
      return {
        full,
        sliding,
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

  // ------------------------------------------------------------------------------------------ weights, memory
  function weights(model, dtype) {
    const held = model.checkpoint_bytes[dtype.id];
    if (held !== null && held !== undefined) return { total_bytes: held, basis: "checkpoint", formula: null, params: null };
    const mixed = model.mixed_weights[dtype.id];
    if (mixed !== null && mixed !== undefined) return { total_bytes: mixed.total_bytes, basis: "mixed", formula: mixed.formula, params: mixed.params };
    if (model.params_total_b !== null) {
      return { total_bytes: (model.params_total_b * 1e9 * dtype.bits) / 8, basis: "published", formula: null, params: null };
    }
    const count = paramCount(model);
    if (count === null) throw new NotPublished(model.id, ["params.total_b"]);
    return { total_bytes: (count.total * dtype.bits) / 8, basis: "formula", formula: count.formula, params: count.total };
  }

  function weightShare(totalBytes, tp, ep = 1) {
    if (tp < 1) throw new Error(`tp must be at least 1, got ${tp}`);
    if (ep < 1 || ep > tp || tp % ep) throw new Error(`ep must divide tp (${tp}), got ${ep}`);
    return totalBytes / tp;
  }

  function deviceMemory(hw) {
    if (hw.memory_mib_reported !== null) return { mib: hw.memory_mib_reported, basis: "reported" };
    if (hw.memory_gb !== null) return { mib: hw.memory_gb * 1024, basis: "nominal-bound" };
    throw new NotPublished(hw.id, ["memory_gb"]);
  }

  function kvPoolTokens(poolBytes, bytesPerToken, pageSize = 1, maxTotalTokens = null) {
    if (pageSize < 1) throw new Error(`page_size must be at least 1, got ${pageSize}`);
    if (bytesPerToken <= 0) throw new Error(`bytes per token must be positive, got ${bytesPerToken}`);
    let tokens = poolBytes > 0 ? Math.trunc(floorDiv(poolBytes, bytesPerToken)) : 0;
    tokens = Math.floor(tokens / pageSize) * pageSize;
    if (maxTotalTokens !== null) tokens = Math.min(tokens, maxTotalTokens);
    return Math.floor(tokens / pageSize) * pageSize;
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
    if (isDsv4(model)) return true;
    return "sliding_attention" in model.config.layer_types_count && model.hybrid_swa !== false;
  }

  function resolveContext(model, context, defaults) {
    if (context !== null && context !== undefined) {
      if (context < 1) throw new Error(`context must be at least 1, got ${context}`);
      return context;
    }
    return model.context_native !== null ? model.context_native : defaults.context_when_unpublished;
  }

  // ------------------------------------------------------------------------------------------ plan's steps
  // plan() runs these steps in this order, as handbook/calc/memory.py does under the same names (snake_case
  // there): each returns its figures (the Python step's field names) with the notes and bounds it raised and,
  // where a field is not in this KB, what is missing (null when nothing is).

  // Step 1. opts: tp, ep, mem_fraction_static, context, page_size, max_total_tokens, swa_full_tokens_ratio,
  // free_gib, max_running_requests (null: the engine's)
  function planInputs(data, model, hw, weightsDtype, kv, opts) {
    useTables(data);
    const engine = data.engine_defaults;
    const tp = opts.tp;
    const ep = opts.ep ?? 1;
    const given = opts.mem_fraction_static ?? null;
    const pageGiven = opts.page_size ?? null;
    const cap = opts.max_total_tokens ?? null;
    const runningGiven = opts.max_running_requests ?? null;
    const freeGib = opts.free_gib ?? null;
    const ratio = opts.swa_full_tokens_ratio ?? engine.swa_full_tokens_ratio;
    if (given !== null && !(given > 0 && given < 1)) throw new Error(`mem_fraction_static must be in (0, 1), got ${given}`);
    if (!(ratio > 0 && ratio <= 1)) throw new Error(`swa_full_tokens_ratio must be in (0, 1], got ${ratio}`);
    if (cap !== null && cap < 1) throw new Error(`max_total_tokens must be at least 1, got ${cap}`);
    if (runningGiven !== null && runningGiven < 1) throw new Error(`max_running_requests must be at least 1, got ${runningGiven}`);
    if (pageGiven !== null && pageGiven < 1) throw new Error(`page_size must be at least 1, got ${pageGiven}`);
    if (freeGib !== null && freeGib <= 0) throw new Error(`free memory must be positive, got ${freeGib}`);
    if (!weightsDtype.weights) throw new Error(`${weightsDtype.id} is not a weights dtype`);
    const kvSize = elementBytes(kv);
    weightShare(0, tp, ep);
    return {
      model,
      hw,
      weights_dtype: weightsDtype,
      kv,
      kv_size: kvSize,
      tp,
      ep,
      context: resolveContext(model, opts.context, data.defaults),
      context_native: model.context_native,
      mem_fraction_static: given,
      page_size: pageGiven,
      max_total_tokens: cap,
      max_running_requests: runningGiven,
      swa_full_tokens_ratio: ratio,
      free_gib: freeGib,
      engine,
      swa_full_tokens_ratio_given: opts.swa_full_tokens_ratio !== undefined && opts.swa_full_tokens_ratio !== null,
      data,
    };
  }

  // Step 2: what the engine resolves before sizing anything: platform, attention backend, page size.
  function planEngine(asked) {
    const platform = platformOf(asked.hw);
    const chosen = backend(asked.data, asked.model, platform, asked.tp, asked.kv);
    let page = asked.page_size === null ? chosen.page_size : asked.page_size;
    let notes = asked.page_size === null && page > 1 ? ["page-size"] : [];
    let [ratio, running] = [null, null];
    if (isDsv4(asked.model) && platform !== null) {
      // its override sets the page size whatever --page-size says
      [page, notes] = [chosen.page_size, ["page-size"]];
      if (!asked.swa_full_tokens_ratio_given) ratio = K.DSV4_SWA_FULL_TOKENS_RATIO;
      if (asked.max_running_requests === null) running = K.DSV4_MAX_RUNNING_REQUESTS;
    }
    return { platform, backend: chosen, page_size: page, swa_full_tokens_ratio: ratio, max_running_requests: running, notes, bounds: [...chosen.unknown], missing: null };
  }

  // the ratio the engine resolves with no --swa-full-tokens-ratio (memory.default_swa_ratio)
  function defaultSwaRatio(data, model, platform) {
    return isDsv4(model) && platform !== null ? K.DSV4_SWA_FULL_TOKENS_RATIO : data.engine_defaults.swa_full_tokens_ratio;
  }

  function swaRatio(asked, engine) {
    return engine.swa_full_tokens_ratio ?? asked.swa_full_tokens_ratio;
  }

  function runningGiven(asked, engine) {
    return engine.max_running_requests ?? asked.max_running_requests;
  }

  // Step 3: the accelerator's memory, or the fields that would give it.
  function planDevice(asked) {
    try {
      return { device: deviceMemory(asked.hw), notes: [], bounds: [], missing: null };
    } catch (err) {
      if (!(err instanceof NotPublished)) throw err;
      return { device: null, notes: [], bounds: [], missing: err.missing };
    }
  }

  // Step 4: --mem-fraction-static: given, or the engine's default for this GPU and TP; × 0.85 for aiter above
  // 8,192 tokens, a given fraction too unless the engine honours it.
  function planFraction(asked, engine, device) {
    const given = asked.mem_fraction_static;
    const mem = device.device;
    const chosen = engine.backend;
    const notes = [];
    const bounds = [];
    let bounded = false;
    let def = null;
    if (mem !== null) {
      def = defaultMemFraction(mem.mib, asked.tp);
      if (isMultimodal(asked.model)) {
        const vision = asked.model.vision_shape;
        def = vlmFraction(def, vision ? vision[0] : null, vision ? vision[1] : null);
        if (given === null) {
          notes.push("vlm-fraction");
          if (vision === null) {
            bounds.push("vision-config");
            bounded = true;
          }
        }
      }
      if (mem.basis === "nominal-bound" && (asked.free_gib === null || given === null)) {
        notes.push("memory-bound");
        bounds.push("reported-memory");
        bounded = bounded || given === null;
      }
    }
    let fraction = given !== null ? given : def;
    if (given === null && def !== null) notes.push("default-fraction");
    const longContext = asked.context > K.AITER_CONTEXT_THRESHOLD;
    let aiter = chosen.attention === K.ATTENTION_BACKENDS.rocm && longContext;
    if (aiter && fraction !== null) {
      if (chosen.unknown.includes("architecture")) {
        // a per-model override could choose another backend: the unscaled fraction is the bound
        aiter = false;
        bounded = true;
      } else if (!(given !== null && asked.engine.aiter_honors_explicit_fraction)) {
        fraction = fraction * K.AITER_FRACTION_SCALE;
        notes.push("aiter");
      } else aiter = false;
    }
    if (chosen.unknown.includes("kv-heads") && longContext) bounded = true;
    return { default: def, fraction, aiter_scaled: aiter && fraction !== null, bounded, notes, bounds, missing: null };
  }

  // Step 5: free memory before loading (given, else the device-reported memory) and its split.
  function planFreeMemory(asked, device, fraction) {
    const notes = [];
    let free = null;
    if (asked.free_gib !== null) free = asked.free_gib * GIB;
    else if (device.device !== null) {
      free = device.device.mib * MIB;
      notes.push("free-assumed");
    }
    let fixed = null;
    let rest = null;
    if (free !== null && fraction.fraction !== null) {
      fixed = free * fraction.fraction;
      rest = free * (1 - fraction.fraction);
    }
    const multimodal = isMultimodal(asked.model);
    const mmReserve = multimodal ? asked.engine.vlm_cache_mib * MIB : 0.0;
    if (multimodal) notes.push("multimodal-reserve");
    return { free, static: fixed, rest, mm_reserve: mmReserve, notes, bounds: [], missing: null };
  }

  // Step 6: the weights, and one GPU's share of them.
  function planWeights(asked) {
    const notes = [];
    if (K.QWEN4_EXP.includes(architecture(asked.model)) && asked.hw.vendor === "nvidia") notes.push("ple-offload");
    let w = null;
    try {
      w = weights(asked.model, asked.weights_dtype);
    } catch (err) {
      if (!(err instanceof NotPublished)) throw err;
      return { weights: null, per_gpu: null, notes, bounds: [], missing: err.missing };
    }
    if (w.basis === "formula" || w.basis === "mixed") notes.push(`weights-${w.basis}`);
    return { weights: w, per_gpu: weightShare(w.total_bytes, asked.tp, asked.ep), notes, bounds: [], missing: null };
  }

  // Step 7: one token's bytes on one GPU: attention rows in the engine's layout, the indexers, the SWA share.
  function dsv4CellPerGpu(asked, engine) {
    const model = asked.model;
    const cell = dsv4Cell(asked.data, model, engine.page_size, swaRatio(asked, engine));
    if (cell === null) {
      const missing = ["compress_ratios", "num_hidden_layers", "head_dim", "index_head_dim"].filter((f) => model.config[f] === null);
      const none = { kv_bytes_per_token: null, rows: null, indexer: null, swa: null, per_token: null, fixed: 0 };
      return { ...none, notes: [], bounds: [], missing: missing.length ? missing : ["kv_source_layer_ids"] };
    }
    const fixed = dsv4StateBytes(asked.data, model, runningGiven(asked, engine));
    return { kv_bytes_per_token: cell.kv, rows: cell.kv, indexer: cell.indexer, swa: cell.swa, per_token: cell.per_token, fixed, notes: ["dsv4-pool"], bounds: [], missing: null };
  }

  function planCell(asked, engine) {
    const model = asked.model;
    const tp = asked.tp;
    if (isDsv4(model) && engine.platform !== null) return dsv4CellPerGpu(asked, engine);
    let cell = null;
    try {
      cell = kvCell(model, asked.kv, tp);
    } catch (err) {
      if (!(err instanceof NotPublished)) throw err;
      const none = { kv_bytes_per_token: null, rows: null, indexer: null, swa: null, per_token: null, fixed: 0 };
      return { ...none, notes: [], bounds: [], missing: err.missing };
    }
    const notes = [];
    const bounds = [];
    let [rows, indexer, swa] = [cell.per_rank_bytes, 0, cell.swa_per_rank_bytes];
    if (cell.formula === "mla" && tp > 1) notes.push("mla-replicated");
    if (cell.formula === "gqa" && tp > model.config.num_key_value_heads) notes.push("kv-heads-replicated");
    if (swa) notes.push("swa-pool");
    let found = 0;
    let note = null;
    if (isDsa(model)) {
      rows = dsaRow(model, engine.backend.dsa_raw_layout, asked.kv_size) * cell.layers_counted;
      if (!engine.backend.dsa_raw_layout) notes.push("dsa-fp8-layout");
      [found, note] = [dsaIndexerBytes(model), "sparse-indexer"];
    } else if (isQsa(model)) [found, note] = [qsaIndexerBytes(model, cell.layers_counted), "qsa-indexer"];
    if (found === null) bounds.push("indexer");
    else if (note !== null) {
      indexer = found;
      notes.push(note);
    }
    const ratio = swaRatio(asked, engine);
    const perToken = swa ? rows + indexer + ratio * swa : rows + indexer;
    return { kv_bytes_per_token: cell.bytes_per_token, rows, indexer, swa, per_token: perToken, fixed: 0, notes, bounds, missing: null };
  }

  // Step 8: one request's recurrent state on one GPU, for linear-attention layers (an unknown dtype bounds
  // both sides: float32 the largest, a 2-byte one the smallest).
  function planState(asked) {
    const model = asked.model;
    const tp = asked.tp;
    if (!hasLinearAttention(model)) return { linear: false, per_request: null, smallest: null, notes: [], bounds: [], missing: null };
    const notes = ["linear-state"];
    if (!K.LINEAR_FIELDS.every((name) => model.config[name] !== null)) {
      return { linear: true, per_request: null, smallest: null, notes, bounds: ["state-shape"], missing: null };
    }
    const layers = layerSplit(model).linear;
    const ssm = model.state_dtype;
    if (ssm !== null) {
      const perRequest = stateBytesPerRequest(asked.data, model, layers, tp, ssm);
      return { linear: true, per_request: perRequest, smallest: null, notes, bounds: [], missing: null };
    }
    return {
      linear: true,
      per_request: stateBytesPerRequest(asked.data, model, layers, tp, K.STATE_DTYPE_LARGEST),
      smallest: stateBytesPerRequest(asked.data, model, layers, tp, K.STATE_DTYPE_SMALLEST),
      notes,
      bounds: ["state-dtype"],
      missing: null,
    };
  }

  // Step 9: the budget after the weights, in GiB and in the engine's order of operations, then the state pool
  // of linear-attention layers taken from it first; what is left is the KV pool.
  function planBudget(asked, fraction, free, share, state) {
    if (free.free === null || fraction.fraction === null || share.per_gpu === null) {
      return { budget: null, slots: null, state_pool: null, kv_pool: null, kv_pool_gib: null, refused: false, notes: [], bounds: [], missing: null };
    }
    const pre = free.free / GIB;
    const after = pre - share.per_gpu / GIB;
    let restGib = after - pre * (1 - fraction.fraction) - free.mm_reserve / GIB;
    const budget = restGib * GIB;
    let slots = null;
    let statePool = null;
    if (state.linear && restGib > 0) {
      const r = asked.engine.mamba_full_memory_ratio;
      const part = (restGib * r) / (1 + r);
      if (state.per_request === null) restGib = restGib - part / 2;
      else if (state.smallest !== null) {
        slots = stateSlots(restGib, state.smallest, r);
        statePool = part * GIB;
        restGib = restGib - part + state.per_request / GIB;
      } else {
        slots = stateSlots(restGib, state.per_request, r);
        statePool = (slots + 1) * state.per_request;
        restGib = restGib - statePool / GIB;
      }
    }
    const refused = restGib <= 0 || (slots !== null && slots <= 0);
    const pool = !refused ? Math.max(0.0, restGib * GIB) : 0.0;
    return { budget, slots, state_pool: statePool, kv_pool: pool, kv_pool_gib: restGib, refused, notes: [], bounds: [], missing: null };
  }

  // Step 10: the tokens the KV pool holds (floored to the page, capped by --max-total-tokens), the SWA pool's
  // tokens, the requests.
  function planRequests(asked, engine, cell, budget) {
    if (budget.kv_pool_gib === null || cell.per_token === null) {
      return { max_tokens: null, swa_tokens: null, max_requests: null, max_running_requests: null, notes: [], bounds: [], missing: null };
    }
    const ctx = asked.context;
    const page = engine.page_size;
    const given = runningGiven(asked, engine);
    const notes = [];
    let tokens = 0;
    if (!budget.refused) {
      const available = Math.max(Math.trunc(budget.kv_pool_gib * GIB) - (cell.fixed ?? 0), 0);
      tokens = kvPoolTokens(available, cell.per_token, page, asked.max_total_tokens);
      if (tokens < kvPoolTokens(available, cell.per_token, page)) notes.push("capped");
    }
    let swaTokens = null;
    if (cell.swa) {
      swaTokens = Math.floor(tokens * swaRatio(asked, engine));
      swaTokens -= swaTokens % page;
    }
    const running = tokens ? maxRunningRequests(tokens, ctx, given, budget.slots) : 0;
    if (running < maxRunningRequests(tokens, ctx, given, null)) notes.push("state-capped");
    const requests = Math.floor(tokens / ctx);
    return { max_tokens: tokens, swa_tokens: swaTokens, max_requests: requests, max_running_requests: running, notes, bounds: [], missing: null };
  }

  // Step 11: the notes on where the plan runs: layouts SGLang refuses, a context beyond the model's, a TP group
  // larger than one server.
  function planPlacement(asked) {
    const tp = asked.tp;
    const perNode = asked.hw.gpus_per_node;
    const notes = layoutProblems(asked.model, tp);
    if (refusesKvDtype(asked.model, asked.kv)) notes.push("kv-dtype-refused");
    if (asked.context_native !== null && asked.context > asked.context_native) notes.push("context-over-native");
    if (perNode === null) {
      if (tp > 1) notes.push("multi-node-unknown");
    } else if (tp > perNode) notes.push("multi-node");
    return notes;
  }

  // Step 12: the figures (planner figure keys) a bound reaches, each once, in the order found.
  function planBounded(asked, fraction, bounds) {
    const bounded = [];
    if (bounds.includes("reported-memory")) {
      bounded.push("gpu");
      if (asked.free_gib === null) bounded.push("free");
    }
    if (fraction.bounded && fraction.fraction !== null) bounded.push("fraction");
    if (bounded.includes("free") || bounded.includes("fraction")) bounded.push("static", "rest", "budget", "state", "kv-pool");
    if (bounds.includes("state-dtype") || bounds.includes("state-shape")) bounded.push("state", "kv-pool");
    if (bounds.length) bounded.push("max-tokens", "swa-tokens", "requests", "running");
    if (bounds.includes("platform") || bounds.includes("architecture")) bounded.push("page");
    return [...new Set(bounded)];
  }

  // The KB fields each bound lacks, in BOUND_CODES order ("platform": none).
  function exactFields(asked, bounds) {
    const c = asked.model.config;
    const fields = [];
    for (const code of K.BOUND_CODES) {
      if (!bounds.includes(code)) continue;
      if (code === "reported-memory") fields.push(`hardware.${asked.hw.id}.memory_mib_reported`);
      else if (code === "vision-config") fields.push("config.vision_config");
      else if (code === "kv-heads") fields.push("config.num_key_value_heads");
      else if (code === "architecture") fields.push("config.architectures");
      else if (code === "indexer") {
        const names = isDsa(asked.model)
          ? ["index_head_dim", "index_topk_freq", "index_skip_topk_offset"]
          : ["indexer_kv_heads", "indexer_head_dim", "indexer_compress_ratio"];
        for (const n of names) if (c[n] === null) fields.push(`config.${n}`);
      } else if (code === "state-dtype") fields.push("config.mamba_ssm_dtype");
      else if (code === "state-shape") for (const n of K.LINEAR_FIELDS) if (c[n] === null) fields.push(`config.${n}`);
    }
    return [...new Set(fields)];
  }

  // A DSA indexer's cache at its largest when only its schedule is unknown: every layer computes its own top-k.
  function lowestIndexer(asked) {
    const c = asked.model.config;
    if (!isDsa(asked.model) || c.num_hidden_layers === null) return null;
    return dsaIndexerBytes(asked.model, c.num_hidden_layers);
  }

  // Step 13: how loose the bound on the tokens can be: the same plan with each unknown input at the other
  // extreme the engine's code gives (steps 5, 9 and 10 again), or the bounds that have none.
  function planLooseness(asked, engine, device, fraction, free, share, cell, state, requests) {
    const steps = [engine, device, fraction, free, share, cell, state];
    const bounds = K.BOUND_CODES.filter((code) => steps.some((step) => step.bounds.includes(code)));
    const none = { tokens_lower: null, looseness: null, loose: [], unproven: [], exact_fields: [], notes: [], bounds: [], missing: null };
    if (!bounds.length) return none;
    const fields = exactFields(asked, bounds);
    const indexer = bounds.includes("indexer") ? lowestIndexer(asked) : null;
    const unproven = bounds.filter((code) => K.UNPROVEN_BOUNDS.includes(code));
    if (bounds.includes("indexer") && indexer === null) unproven.push("indexer");
    if (unproven.length || requests.max_tokens === null) {
      return { ...none, unproven: K.BOUND_CODES.filter((code) => unproven.includes(code)), exact_fields: fields };
    }
    const loose = [];
    let low = fraction.fraction;
    if (bounds.includes("vision-config") && device.device !== null) {
      low = defaultMemFraction(device.device.mib, asked.tp) * (K.VLM_BASE * K.VLM_FACTOR_MIN);
      if (fraction.aiter_scaled) low = low * K.AITER_FRACTION_SCALE;
      loose.push("vision-config");
    }
    const honoured = asked.mem_fraction_static !== null && asked.engine.aiter_honors_explicit_fraction;
    if (bounds.includes("kv-heads") && asked.context > K.AITER_CONTEXT_THRESHOLD && !honoured) {
      low = low * K.AITER_FRACTION_SCALE;
      loose.push("kv-heads");
    }
    const lowFraction = { ...fraction, fraction: low };
    const lowFree = planFreeMemory(asked, device, lowFraction);
    let lowCell = cell;
    if (indexer !== null) {
      lowCell = { ...cell, indexer, per_token: cell.per_token - cell.indexer + indexer };
      loose.push("indexer");
    }
    let states = [state];
    if (bounds.includes("state-dtype")) {
      states = [state.per_request, state.smallest].map((perRequest) => ({ ...state, per_request: perRequest, smallest: null }));
      loose.push("state-dtype");
    }
    const lowest = Math.min(
      ...states.map((s) => planRequests(asked, engine, lowCell, planBudget(asked, lowFraction, lowFree, share, s)).max_tokens),
    );
    const upper = requests.max_tokens;
    let ratio = null;
    if (lowest > 0) ratio = upper / lowest - 1;
    else if (upper === 0) ratio = 0.0;
    return { ...none, tokens_lower: lowest, looseness: ratio, loose, exact_fields: fields };
  }

  // ------------------------------------------------------------------------------------------ plan
  function plan(data, model, hw, weightsDtype, kv, opts) {
    const asked = planInputs(data, model, hw, weightsDtype, kv, opts);
    const engine = planEngine(asked);
    const device = planDevice(asked);
    const fraction = planFraction(asked, engine, device);
    const free = planFreeMemory(asked, device, fraction);
    const share = planWeights(asked);
    const cell = planCell(asked, engine);
    const state = planState(asked);
    const budget = planBudget(asked, fraction, free, share, state);
    const requests = planRequests(asked, engine, cell, budget);
    const looseness = planLooseness(asked, engine, device, fraction, free, share, cell, state, requests);
    return assemblePlan(asked, engine, device, fraction, free, share, cell, state, budget, requests, looseness);
  }

  // The steps' figures as one plan (handbook/calc/memory.py's Plan, field for field), with their notes, the
  // placement notes, and what a bound reaches.
  function assemblePlan(asked, engine, device, fraction, free, share, cell, state, budget, requests, looseness) {
    const steps = [engine, device, fraction, free, share, cell, state, budget, requests];
    const bounds = steps.flatMap((step) => step.bounds);
    const notes = [...steps.flatMap((step) => step.notes), ...planPlacement(asked)];
    if (bounds.length) notes.push("bounds");
    const missing = {};
    for (const [key, step] of [["memory", device], ["weights", share], ["kv", cell]]) {
      if (step.missing !== null) missing[key] = step.missing;
    }
    const w = share.weights;
    return {
      model: asked.model.id,
      hardware: asked.hw.id,
      weights_dtype: asked.weights_dtype.id,
      kv_dtype: asked.kv.id,
      tp: asked.tp,
      ep: asked.ep,
      context: asked.context,
      context_native: asked.context_native,
      platform: engine.platform,
      attention_backend: engine.backend.attention,
      page_size: engine.page_size,
      page_size_given: asked.page_size !== null,
      mem_fraction_given: asked.mem_fraction_static,
      mem_fraction_default: fraction.default,
      aiter_scaled: fraction.aiter_scaled,
      mem_fraction_static: fraction.fraction,
      max_total_tokens: asked.max_total_tokens,
      max_running_requests_given: asked.max_running_requests,
      swa_full_tokens_ratio: swaRatio(asked, engine),
      nominal_gb: asked.hw.memory_gb,
      device_mib: device.device ? device.device.mib : null,
      free_given: asked.free_gib !== null,
      free_bytes: free.free,
      static_bytes: free.static,
      rest_bytes: free.rest,
      mm_reserve_bytes: free.mm_reserve,
      weights_bytes: w ? w.total_bytes : null,
      weights_basis: w ? w.basis : null,
      weights_formula: w ? w.formula : null,
      weights_params: w ? w.params : null,
      weights_per_gpu: share.per_gpu,
      kv_budget_bytes: budget.budget,
      state_bytes_per_request: state.smallest !== null ? state.smallest : state.per_request,
      state_slots: budget.slots,
      state_pool_bytes: budget.state_pool,
      kv_pool_bytes: budget.kv_pool,
      kv_bytes_per_token: cell.kv_bytes_per_token,
      kv_cell_per_gpu: cell.rows,
      indexer_bytes_per_token: cell.indexer,
      swa_cell_per_gpu: cell.swa,
      pool_bytes_per_token: cell.per_token,
      max_tokens: requests.max_tokens,
      swa_tokens: requests.swa_tokens,
      max_requests: requests.max_requests,
      max_running_requests: requests.max_running_requests,
      refused: budget.refused,
      bounds: K.BOUND_CODES.filter((code) => bounds.includes(code)),
      bounded: planBounded(asked, fraction, bounds),
      tokens_lower: looseness.tokens_lower,
      looseness: looseness.looseness,
      loose: looseness.loose,
      unproven: looseness.unproven,
      exact_fields: looseness.exact_fields,
      missing,
      notes: K.NOTE_CODES.filter((code) => notes.includes(code)),
    };
  }

  function weightsFit(p) {
    return p.kv_budget_bytes === null ? null : p.kv_budget_bytes > 0;
  }

  // opts: mem_fraction_static, min_kv_tokens, context, swa_full_tokens_ratio, free_gib
  function smallestTp(data, model, hw, weightsDtype, kv, opts = {}) {
    useTables(data);
    weights(model, weightsDtype);
    if ((opts.free_gib ?? null) === null) deviceMemory(hw);
    const minKvTokens = opts.min_kv_tokens ?? 0;
    for (const tp of data.tp_choices) {
      if (layoutProblems(model, tp).length) continue;
      const p = plan(data, model, hw, weightsDtype, kv, {
        tp,
        mem_fraction_static: opts.mem_fraction_static ?? null,
        context: opts.context ?? null,
        swa_full_tokens_ratio: opts.swa_full_tokens_ratio ?? null,
        free_gib: opts.free_gib ?? null,
      });
      if (!weightsFit(p)) continue;
      if (!minKvTokens) return tp;
      if (p.max_tokens === null) throw new NotPublished(model.id, p.missing.kv || []);
      if (p.max_tokens >= minKvTokens) return tp;
    }
    return null;
  }

  // opts: mem_fraction_static, context, swa_full_tokens_ratio, free_gib
  function autoTp(data, model, hw, weightsDtype, kv, opts = {}) {
    useTables(data);
    const ctx = resolveContext(model, opts.context ?? null, data.defaults);
    try {
      weights(model, weightsDtype);
      if ((opts.free_gib ?? null) === null) deviceMemory(hw);
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
    const tp = smallestTp(data, model, hw, weightsDtype, kv, { ...opts, min_kv_tokens: headroom, context: ctx });
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

  function ruleMaxRunningRequests(model, tp) {
    for (const rule of model.rule_flags) {
      if (rule.flag === "--max-running-requests" && (rule.when === "always" || tp === 1)) return Number(rule.value);
    }
    return null;
  }

  function launchFlags(data, p, model, kv, path) {
    useTables(data);
    if (model.id !== p.model) throw new Error(`${model.id}: expected the plan's model (${p.model})`);
    if (kv.id !== p.kv_dtype || kv.engine_kv_value === null) {
      throw new Error(`${kv.id}: expected the plan's KV dtype (${p.kv_dtype}) with an engine spelling`);
    }
    const flags = [
      ["--model-path", path || K.PLACEHOLDER],
      ["--tp-size", String(p.tp)],
    ];
    if (p.ep > 1) flags.push(["--ep-size", String(p.ep)]);
    if (p.mem_fraction_given !== null) flags.push(["--mem-fraction-static", number(p.mem_fraction_given)]);
    flags.push(["--kv-cache-dtype", kvCacheDtypeFlag(model, kv)]);
    if (p.context_native === null || p.context !== p.context_native) flags.push(["--context-length", String(p.context)]);
    if (p.page_size_given) flags.push(["--page-size", String(p.page_size)]);
    if (p.max_total_tokens !== null) flags.push(["--max-total-tokens", String(p.max_total_tokens)]);
    if (p.max_running_requests_given !== null) flags.push(["--max-running-requests", String(p.max_running_requests_given)]);
    if (hasSlidingWindow(model) && p.swa_full_tokens_ratio !== defaultSwaRatio(data, model, p.platform)) {
      flags.push(["--swa-full-tokens-ratio", number(p.swa_full_tokens_ratio)]);
    }
    // what kb/rules.yaml requires of this model's commands (launch.rule_flags)
    const present = new Set(flags.map(([flag]) => flag));
    for (const rule of model.rule_flags) {
      if (present.has(rule.flag)) continue;
      if (rule.when === "multi-gpu") {
        if (p.tp > 1) flags.push([rule.flag, rule.value.replace("{tp}", String(p.tp))]);
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
  // numbers.js, loaded before this script: handbook/core/formatting.py with Python's rounding.
  const { thousands, sig, binarySize } = window.HandbookNumbers;

  function gb(n, digits = 3) {
    return `${sig(n / GB, digits)} GB`;
  }

  // ------------------------------------------------------------------------------------------ figures
  function template(text, values) {
    return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
  }

  function fractionText(x) {
    return sig(x, 4);
  }

  function size(n) {
    return n < 0 ? `-${binarySize(-n)}` : binarySize(n);
  }

  function reasonsOf(codes, messages) {
    return codes.map((code) => messages[`planner-bound-${code}`]).join(messages["planner-sep-reasons"]);
  }

  function boundReasons(p, messages) {
    return reasonsOf(p.bounds, messages);
  }

  // How many percent upper lies above lower, rounded up to a tenth, from the integers themselves.
  function percentAbove(upper, lower) {
    const tenths = Math.ceil(((upper - lower) * 1000) / lower);
    const tenth = tenths % 10;
    return thousands((tenths - tenth) / 10) + (tenth ? `.${tenth}` : "");
  }

  // How loose the token bound can be (handbook/render/planner.py looseness_text).
  // Which reasons the looseness is about, where the bound has others too (else they were just given).
  function becauseOf(p, codes, messages) {
    if (codes.length === p.bounds.length && codes.every((code) => p.bounds.includes(code))) return "";
    return template(messages["planner-loose-because"], { why: reasonsOf(codes, messages) });
  }

  function loosenessText(p, messages) {
    const exact = p.exact_fields.length
      ? template(messages["planner-loose-exact"], { fields: p.exact_fields.join(", ") })
      : messages["planner-loose-exact-platform"];
    if (p.unproven.length) {
      return template(messages["planner-loose-unknown"], { because: becauseOf(p, p.unproven, messages), exact });
    }
    const lower = p.tokens_lower;
    const upper = p.max_tokens;
    if (lower === null || upper === null || upper === 0) return "";
    const because = becauseOf(p, p.loose, messages);
    if (lower === 0) return template(messages["planner-loose-refuse"], { value: thousands(upper), because, exact });
    const values = { lower: thousands(lower), value: thousands(upper), percent: percentAbove(upper, lower) };
    if (upper * 100 <= lower * (100 + K.LOOSE_ABOVE_PERCENT)) return template(messages["planner-loose-within"], values);
    return template(messages["planner-loose-beyond"], { ...values, stated: K.LOOSE_ABOVE_PERCENT, because, exact });
  }

  function noteValues(data, p, model, hw, messages) {
    useTables(data);
    const c = model.config;
    const engine = data.engine_defaults;
    const indexerLayers = dsaIndexerLayers(model);
    const ratioLayers = dsv4RatioLayers(model) || {};
    return {
      tp: p.tp,
      heads: c.num_attention_heads,
      kv_heads: c.num_key_value_heads,
      sliding: c.layer_types_count.sliding_attention || 0,
      linear: c.layer_types_count.linear_attention || 0,
      ratio: number(p.swa_full_tokens_ratio),
      topk: c.index_topk,
      context: thousands(p.context),
      native: p.context_native !== null ? thousands(p.context_native) : "",
      default: p.mem_fraction_default !== null ? fractionText(p.mem_fraction_default) : "",
      fraction: p.mem_fraction_static !== null ? fractionText(p.mem_fraction_static) : "",
      nominal: hw.memory_gb !== null ? sig(hw.memory_gb) : "",
      params: p.weights_params !== null ? thousands(p.weights_params) : "",
      formula: p.weights_formula || "",
      mamba_ratio: number(engine.mamba_full_memory_ratio),
      slots: p.state_slots !== null ? thousands(p.state_slots) : "",
      mm: thousands(engine.vlm_cache_mib),
      indexer: p.indexer_bytes_per_token ? thousands(p.indexer_bytes_per_token) : "",
      indexer_layers: indexerLayers !== null ? indexerLayers : "",
      row: p.notes.includes("dsa-fp8-layout") ? dsaRow(model, false, 1) : "",
      compress: c.indexer_compress_ratio || "",
      c4_layers: ratioLayers[K.DSV4_C4_RATIO] ?? "",
      c128_layers: ratioLayers[K.DSV4_C128_RATIO] ?? "",
      window: c.sliding_window || "",
      dsv4_running: K.DSV4_MAX_RUNNING_REQUESTS,
      accepted: K.DSV4_KV_CACHE_DTYPES.filter((v) => v !== "auto").join(", "),
      page: p.page_size,
      backend: p.attention_backend || "",
      gpu: hw.name,
      per_node: hw.gpus_per_node || "",
      reasons: boundReasons(p, messages),
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
    const reasons = boundReasons(p, messages);
    const looseness = loosenessText(p, messages);
    const shown = (key, text) => {
      if (!p.bounded.includes(key)) return text;
      if (key === "max-tokens" && looseness) return template(messages["planner-bounded-range"], { value: text, reasons, looseness });
      if (key === "max-tokens") return template(messages["planner-bound"], { value: text, reasons });
      return (key === "rest" ? "≈ " : "≤ ") + text;
    };
    const sized = (key, value, ...parts) => (value !== null ? shown(key, size(value)) : unpublished(...parts));
    const everything = ["memory", "weights", "kv"];
    const out = {};
    if (p.device_mib === null) out.gpu = unpublished("memory");
    else {
      const device = size(p.device_mib * MIB);
      const nominal = p.nominal_gb !== null ? sig(p.nominal_gb) : "—";
      const text = p.bounds.includes("reported-memory")
        ? template(messages["planner-gpu-bound"], { size: device, gb: nominal })
        : template(messages["planner-gpu-reported"], { size: device, mib: thousands(p.device_mib), gb: nominal });
      out.gpu = shown("gpu", text);
    }
    out.free = sized("free", p.free_bytes, "memory");
    if (p.mem_fraction_static === null) out.fraction = unpublished("memory");
    else {
      const value = fractionText(p.mem_fraction_static);
      const base = p.mem_fraction_given !== null ? p.mem_fraction_given : p.mem_fraction_default;
      let text;
      if (p.aiter_scaled) text = template(messages["planner-fraction-aiter"], { value, base: fractionText(base) });
      else if (p.mem_fraction_given !== null) text = template(messages["planner-fraction-given"], { value });
      else text = template(messages["planner-fraction-default"], { value, tp: p.tp });
      out.fraction = shown("fraction", text);
    }
    out.static = sized("static", p.static_bytes, "memory");
    out.rest = sized("rest", p.rest_bytes, "memory");
    if (p.weights_bytes === null) {
      out.weights = out["weights-gpu"] = unpublished("weights");
    } else {
      let whole = size(p.weights_bytes);
      if (p.weights_params !== null) whole = template(messages["planner-weights-formula"], { size: whole, params: thousands(p.weights_params) });
      out.weights = whole;
      out["weights-gpu"] = size(p.weights_per_gpu);
    }
    out.budget = sized("budget", p.kv_budget_bytes, "memory", "weights");
    const linearMissing = K.LINEAR_FIELDS.filter((name) => model.config[name] === null);
    if (!p.notes.includes("linear-state")) out.state = messages["planner-not-applicable"];
    else if (p.kv_budget_bytes === null) out.state = unpublished("memory", "weights");
    else if (linearMissing.length) out.state = template(messages["planner-not-published-fields"], { fields: linearMissing.join(", ") });
    else if (p.state_pool_bytes === null) out.state = "0";
    else {
      const text = template(messages["planner-state-text"], {
        size: size(p.state_pool_bytes),
        slots: thousands(p.state_slots),
        per_request: binarySize(p.state_bytes_per_request),
      });
      out.state = shown("state", text);
    }
    out["kv-pool"] = sized("kv-pool", p.kv_pool_bytes, "memory", "weights");
    if (p.kv_bytes_per_token === null) {
      out["kv-token"] = out["kv-token-gpu"] = unpublished("kv");
    } else {
      out["kv-token"] = kvText(p.kv_bytes_per_token);
      let text = kvText(p.kv_cell_per_gpu);
      if (p.indexer_bytes_per_token) text += ` + ${messages["planner-indexer"]} ${kvText(p.indexer_bytes_per_token)}`;
      if (p.swa_cell_per_gpu) text += ` + ${number(p.swa_full_tokens_ratio)} × SWA ${kvText(p.swa_cell_per_gpu)}`;
      out["kv-token-gpu"] = text;
    }
    if (p.page_size_given) out.page = template(messages["planner-page-given"], { page: p.page_size });
    else if (p.attention_backend === null) out.page = shown("page", String(p.page_size));
    else out.page = template(messages["planner-page-engine"], { page: p.page_size, backend: p.attention_backend });
    const counted = (key, value) => (value !== null ? shown(key, thousands(value)) : unpublished(...everything));
    out["max-tokens"] = counted("max-tokens", p.max_tokens);
    out["swa-tokens"] = hasSlidingWindow(model) ? counted("swa-tokens", p.swa_tokens) : messages["planner-not-applicable"];
    out.requests = counted("requests", p.max_requests);
    out.running = counted("running", p.max_running_requests);
    return out;
  }

  // ------------------------------------------------------------------------------------------ the page
  const byId = (list, id) => list.find((item) => item.id === id);
  const DECIMAL = /^(0?\.\d{1,3}|1(\.0{1,3})?|0)$/;
  const GIB_VALUE = /^\d{1,4}(\.\d{1,3})?$/;
  const INTEGER = /^[1-9]\d{0,9}$/;

  // The context a model opens with: its native one, but none above the context every model with a published
  // context serves (defaults.context_common); handbook/calc/planner_data.py opening_context.
  function openingContext(model, defaults) {
    if (model.context_native === null) return defaults.context_when_unpublished;
    return defaults.context_common === null ? model.context_native : Math.min(model.context_native, defaults.context_common);
  }

  function defaultsFor(data, model) {
    return {
      model: model.id,
      gpu: data.defaults.hardware,
      tp: "auto",
      ep: 1,
      weights: model.weights_dtypes[0],
      kv: data.defaults.kv_dtype,
      mem: null,
      context: openingContext(model, data.defaults),
      free: null,
      page: null,
      maxTokens: null,
      running: null,
      swaRatio: data.engine_defaults.swa_full_tokens_ratio,
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
    const gib = (raw) => (GIB_VALUE.test(raw) ? Number(raw) : undefined);
    const integer = (raw) => (INTEGER.test(raw) ? Number(raw) : undefined);
    take("gpu", "gpu", (raw) => raw, (v) => Boolean(byId(data.hardware, v)));
    take("tp", "tp", (raw) => (raw === "auto" ? "auto" : integer(raw)), (v) => v === "auto" || data.tp_choices.includes(v));
    take("ep", "ep", integer, (v) => data.tp_choices.includes(v) && (state.tp === "auto" || state.tp % v === 0));
    take("weights-dtype", "weights", (raw) => raw, (v) => model.weights_dtypes.includes(v));
    take("kv-dtype", "kv", (raw) => raw, (v) => Boolean(byId(data.dtypes, v)) && byId(data.dtypes, v).kv);
    take("mem-fraction-static", "mem", decimal, (v) => v > 0 && v < 1);
    take("context", "context", integer, (v) => v >= 1);
    take("free-gib", "free", gib, (v) => v > 0);
    take("page-size", "page", integer, (v) => v >= 1);
    take("max-total-tokens", "maxTokens", integer, (v) => v >= 1);
    take("max-running-requests", "running", integer, (v) => v >= 1);
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
    if (state.mem !== null) params.set("mem-fraction-static", String(state.mem));
    params.set("context", String(state.context));
    if (state.free !== null) params.set("free-gib", String(state.free));
    if (state.page !== null) params.set("page-size", String(state.page));
    if (state.maxTokens !== null) params.set("max-total-tokens", String(state.maxTokens));
    if (state.running !== null) params.set("max-running-requests", String(state.running));
    if (state.swaRatio !== data.engine_defaults.swa_full_tokens_ratio) params.set("swa-full-tokens-ratio", String(state.swaRatio));
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
      this.contextMax = this.root.querySelector(".planner-context-max");
      this.contextMax.addEventListener("click", () => {
        const model = byId(this.data.models, this.state.model);
        if (model.context_native === null) return;
        this.inputNotes = [];
        this.state.context = model.context_native;
        this.update();
      });
      this.update();
    }

    field(name) {
      return this.form.elements.namedItem(name);
    }

    onChange(target) {
      const s = this.state;
      const value = target.value.trim();
      this.inputNotes = [];
      const shownValue = (v) => (v === null ? "—" : v);
      const invalid = (label, fallback) => {
        this.inputNotes.push(template(this.messages["planner-invalid-input"], { name: label, value, fallback: shownValue(fallback) }));
      };
      // an optional number: empty restores the engine's choice
      const optional = (key, pattern, valid, label) => {
        if (value === "") s[key] = null;
        else if (pattern.test(value) && valid(Number(value))) s[key] = Number(value);
        else invalid(label, s[key]);
      };
      switch (target.name) {
        case "model": {
          const model = byId(this.data.models, value);
          const keep = { gpu: s.gpu, tp: s.tp, kv: s.kv, mem: s.mem, free: s.free, page: s.page, maxTokens: s.maxTokens, running: s.running, swaRatio: s.swaRatio };
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
          optional("mem", DECIMAL, (v) => v > 0 && v < 1, "--mem-fraction-static");
          break;
        case "context":
          if (INTEGER.test(value)) s.context = Number(value);
          else invalid(this.messages["planner-context"], s.context);
          break;
        case "free-gib":
          optional("free", GIB_VALUE, (v) => v > 0, this.messages["planner-free-gib"]);
          break;
        case "page-size":
          optional("page", INTEGER, () => true, "--page-size");
          break;
        case "max-total-tokens":
          optional("maxTokens", INTEGER, () => true, "--max-total-tokens");
          break;
        case "max-running-requests":
          optional("running", INTEGER, () => true, "--max-running-requests");
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
      // the field's engine fallback reads as not given, so that a model's own ratio (DeepSeek-V4) applies
      const ratio = s.swaRatio === d.engine_defaults.swa_full_tokens_ratio ? null : s.swaRatio;
      const options = { mem_fraction_static: s.mem, swa_full_tokens_ratio: ratio, free_gib: s.free };
      let auto = null;
      let tp = s.tp;
      if (tp === "auto") {
        auto = autoTp(d, model, hw, weights, kv, { ...options, context: s.context });
        tp = auto.tp;
      }
      const ep = tp % s.ep === 0 ? s.ep : 1;
      const running = s.running !== null ? s.running : ruleMaxRunningRequests(model, tp);
      const opts = { ...options, tp, ep, context: s.context, page_size: s.page, max_total_tokens: s.maxTokens, max_running_requests: running };
      const p = plan(d, model, hw, weights, kv, opts);
      return { model, hw, weights, kv, auto, plan: p };
    }

    syncForm(result) {
      const d = this.data;
      const s = this.state;
      const m = this.messages;
      const dtype = (id) => byId(d.dtypes, id);
      const optional = (v) => (v === null ? "" : String(v));
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
      const fraction = this.field("mem-fraction-static");
      fraction.value = optional(s.mem);
      fraction.placeholder = result.plan.mem_fraction_default !== null ? fractionText(result.plan.mem_fraction_default) : "";
      this.field("context").value = String(s.context);
      const native = result.model.context_native;
      this.contextMax.hidden = native === null || native === s.context;
      this.contextMax.textContent = native === null ? "" : template(m["planner-context-max"], { native: thousands(native) });
      const free = this.field("free-gib");
      free.value = optional(s.free);
      free.placeholder = result.plan.device_mib !== null ? sig((result.plan.device_mib * MIB) / GIB, 5) : "";
      const page = this.field("page-size");
      page.value = optional(s.page);
      page.placeholder = result.plan.page_size_given ? "" : String(result.plan.page_size);
      this.field("max-total-tokens").value = optional(s.maxTokens);
      this.field("max-running-requests").value = optional(s.running);
      const asDefault = s.swaRatio === this.data.engine_defaults.swa_full_tokens_ratio;
      this.field("swa-full-tokens-ratio").value = String(asDefault ? result.plan.swa_full_tokens_ratio : s.swaRatio);
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
      const values = noteValues(this.data, p, result.model, result.hw, m);
      // status: what was not valid, how TP was chosen, and whether it fits
      const status = [...this.urlNotes, ...this.inputNotes];
      if (result.auto) status.push(template(m[`planner-auto-${result.auto.basis}`], { ...values, tp: result.auto.tp }));
      const noFit = p.kv_budget_bytes !== null && p.kv_budget_bytes <= 0;
      if (noFit) {
        status.push(
          template(m["planner-weights-do-not-fit"], {
            weights: size(p.weights_per_gpu),
            fraction: fractionText(p.mem_fraction_static),
            budget: size(p.static_bytes),
            short: size(-p.kv_budget_bytes),
          }),
        );
      } else if (p.refused && p.state_slots !== null && p.state_slots <= 0) {
        status.push(m["planner-state-no-room"]);
      } else if (p.max_tokens === 0) {
        status.push(template(m["planner-no-room"], { page: p.page_size }));
      }
      const statusBox = this.root.querySelector(".planner-status");
      statusBox.replaceChildren(...status.map((text) => element("p", {}, text)));
      const fits = p.max_tokens === null ? null : p.max_tokens > 0;
      statusBox.classList.toggle("planner-warn", fits === false || this.urlNotes.length > 0 || this.inputNotes.length > 0 || noFit);

      const texts = figureTexts(p, result.model, m);
      const raw = {
        gpu: p.device_mib === null ? null : p.device_mib * MIB,
        free: p.free_bytes,
        fraction: p.mem_fraction_static,
        static: p.static_bytes,
        rest: p.rest_bytes,
        weights: p.weights_bytes,
        "weights-gpu": p.weights_per_gpu,
        budget: p.kv_budget_bytes,
        state: p.state_pool_bytes,
        "kv-pool": p.kv_pool_bytes,
        "kv-token": p.kv_bytes_per_token,
        "kv-token-gpu": p.pool_bytes_per_token,
        page: p.page_size,
        "max-tokens": p.max_tokens,
        "swa-tokens": p.swa_tokens,
        requests: p.max_requests,
        running: p.max_running_requests,
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
      const list = this.root.querySelector(".planner-notes");
      list.replaceChildren(...notes.map(([code, text]) => element("li", { "data-note": code }, text)));

      const found = result.model.model_paths[p.weights_dtype] || { path: null, basis: null };
      this.root.querySelector(".planner-command code").textContent = launchCommand(this.data, p, result.model, result.kv, found.path);
      const dtypeName = result.weights.name;
      const pathNote = found.basis === "checkpoint" ? "" : template(m[`planner-path-${found.basis || "none"}`], { dtype: dtypeName, path: found.path || "" });
      this.root.querySelector(".planner-command-note").textContent = pathNote;
      this.root.querySelector(".planner-command-aiter").textContent = p.aiter_scaled ? m["planner-command-aiter"] : "";
      this.root.querySelector(".planner-basis").textContent = template(m["planner-basis"], { version: this.data.engine.version });
    }

    renderBar(p) {
      const m = this.messages;
      const bar = this.root.querySelector(".planner-bar");
      const legend = this.root.querySelector(".planner-legend");
      if (p.free_bytes === null || p.static_bytes === null) {
        bar.replaceChildren(element("p", {}, template(m["planner-not-published-fields"], { fields: (p.missing.memory || []).join(", ") })));
        legend.replaceChildren();
        return;
      }
      // one GPU's free memory before loading: weights | state pool and reserve | KV pool | the rest
      const free = p.free_bytes;
      const weights = p.weights_per_gpu;
      const over = weights !== null ? Math.max(0, weights - p.static_bytes) : 0;
      const reserved = weights !== null && over === 0 ? Math.max(0, p.kv_budget_bytes - p.kv_pool_bytes) + p.mm_reserve_bytes : 0;
      const parts = [];
      if (weights !== null) {
        parts.push(["weights", Math.min(weights, p.static_bytes)]);
        if (over > 0) parts.push(["over", Math.min(over, p.rest_bytes)]);
        else {
          if (reserved > 0) parts.push(["state", Math.min(reserved, p.static_bytes - weights)]);
          parts.push(["kv", Math.max(0, p.static_bytes - weights - reserved)]);
        }
      }
      parts.push(["rest", over > 0 ? Math.max(0, p.rest_bytes - over) : p.rest_bytes]);
      const width = 1000;
      const svg = svgElement("svg", { viewBox: `0 0 ${width} 48`, role: "img", class: "planner-svg", preserveAspectRatio: "none" });
      const title = svgElement("title", {});
      title.textContent = m["planner-budget"];
      svg.append(title);
      let x = 0;
      for (const [kind, bytes] of parts) {
        const w = (bytes / free) * width;
        svg.append(svgElement("rect", { x, y: 0, width: Math.max(0, w), height: 48, class: `planner-part-${kind}`, "data-part": kind, "data-bytes": bytes }));
        x += w;
      }
      if (weights === null) {
        // weights unknown: the static budget is drawn as one hatched block
        svg.append(svgElement("rect", { x: 0, y: 0, width: (p.static_bytes / free) * width, height: 48, class: "planner-part-unknown", "data-part": "unknown" }));
      }
      const edge = (p.static_bytes / free) * width;
      svg.append(svgElement("line", { x1: edge, x2: edge, y1: 0, y2: 48, class: "planner-edge" }));
      bar.replaceChildren(svg);
      const labels = { weights: "planner-legend-weights", state: "planner-legend-state", kv: "planner-legend-kv", rest: "planner-legend-rest", over: "planner-legend-over" };
      // the legend gives whole amounts; the bar clips what does not fit on the GPU
      const amounts = { weights, state: reserved, kv: p.kv_pool_bytes, over, rest: p.rest_bytes };
      const items = parts.map(([kind]) => {
        const item = element("li", { "data-part": kind });
        item.append(element("span", { class: `planner-swatch planner-part-${kind}` }), document.createTextNode(`${m[labels[kind]]}: ${size(amounts[kind])}`));
        return item;
      });
      if (weights === null) {
        const fields = p.missing.weights.join(", ");
        const split = template(m["planner-not-published-fields"], { fields });
        const item = element("li", { "data-part": "unknown" });
        item.append(element("span", { class: "planner-swatch planner-part-unknown" }), document.createTextNode(`${m["planner-legend-weights"]} + ${m["planner-legend-kv"]}: ${size(p.static_bytes)} · ${split}`));
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
    } catch {
      status.replaceChildren(element("p", {}, template(messages["planner-load-failed"], { url: url.pathname })));
      status.classList.add("planner-warn");
      return;
    }
    root.planner = new Planner(root, data, messages);
    root.dataset.ready = "true";
  }

  window.HandbookPlanner = {
    NotPublished,
    pyRound,
    floorDiv,
    defaultMemFraction,
    paramCount,
    layerSplit,
    kvCell,
    weights,
    weightShare,
    deviceMemory,
    kvPoolTokens,
    layoutProblems,
    resolveContext,
    plan,
    // plan()'s steps, for the tests at their boundaries (tests/test_plan_steps.py)
    steps: {
      planInputs,
      planEngine,
      planDevice,
      planFraction,
      planFreeMemory,
      planWeights,
      planCell,
      planState,
      planBudget,
      planRequests,
      planPlacement,
      planBounded,
      planLooseness,
      assemblePlan,
    },
    smallestTp,
    autoTp,
    ruleMaxRunningRequests,
    launchFlags,
    launchCommand,
    figureTexts,
    noteValues,
    readParams,
    format: { sig, thousands, binarySize, gb, number, size, fractionText },
  };

  function boot() {
    for (const root of document.querySelectorAll("[data-planner]")) start(root);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
