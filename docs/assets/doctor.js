/* The configurator and command doctor pages (kb:configurator, kb:doctor): forms, results, the URL.
 *
 * The work is done by checker.js (handbook/checker, in JavaScript) and configure.js (handbook/calc/configure,
 * in JavaScript) over the two exports the build writes beside these scripts; this file only reads the form,
 * shows what they return in the page's language, and keeps the configurator's choice in the address bar.
 * The page's wording comes from the page (<script class="cfg-messages">). Nothing is sent anywhere: the
 * only requests are this site's own data files.
 */
(function () {
  "use strict";

  const BASE = document.currentScript ? document.currentScript.src : window.location.href;
  const CHECKER_DATA = new URL("checker-data.json", BASE);
  const CONFIGURATOR_DATA = new URL("configurator-data.json", BASE);
  // The planner's export (handbook/calc/planner_data.py): fetched when the reader picks an accelerator
  const PLANNER_DATA = new URL("planner-data.json", BASE);
  const STORED_COMMAND = "handbook-doctor-command";
  const STORED_GPU = "handbook-doctor-gpu";
  const EXAMPLE = [
    "python -m sglang.launch_server \\",
    "  --model-path openai/gpt-oss-120b \\",
    "  --tp-sise 4 \\",
    "  --tool-call-parser gpt-oss",
  ].join("\n");
  const SEVERITY_KEYS = {
    error: "check-cli-severity-error",
    warning: "check-cli-severity-warning",
    note: "check-cli-severity-note",
  };
  const ROLE_KEYS = {
    standalone: "cfg-role-standalone",
    prefill: "cfg-role-prefill",
    decode: "cfg-role-decode",
    router: "cfg-role-router",
  };
  // the planner's rows (handbook/site/configurator.py PLAN_ROWS), with the planner page's labels
  const FIGURE_KEYS = [
    ["gpu", "planner-fig-gpu"],
    ["fraction", "planner-fig-fraction"],
    ["weights-gpu", "planner-fig-weights-gpu"],
    ["state", "planner-fig-state"],
    ["kv-pool", "planner-fig-kv-pool"],
    ["rest", "planner-fig-rest"],
    ["max-tokens", "planner-fig-max-tokens"],
    ["requests", "planner-fig-requests"],
    ["running", "planner-fig-running"],
  ];
  const LEGEND_KEYS = {
    weights: "planner-legend-weights",
    state: "planner-legend-state",
    kv: "planner-legend-kv",
    rest: "planner-legend-rest",
    over: "planner-legend-over",
  };

  // ------------------------------------------------------------------------------------------ helpers
  function template(text, values) {
    return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
  }

  function element(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
    for (const child of children) node.append(child);
    return node;
  }

  // "04-parameters.md#tp-size" → the link from a page one level below the language root
  function pageHref(link) {
    const [page, anchor] = link.split("#");
    const stem = page.replace(/\.md$/, "");
    const path = stem === "index" ? "" : stem.endsWith("/index") ? stem.slice(0, -5) : `${stem}/`;
    return `../${path}${anchor ? `#${anchor}` : ""}`;
  }

  async function load(url) {
    const response = await fetch(url, { cache: "no-cache" });
    if (!response.ok) throw new Error(String(response.status));
    return response.json();
  }

  function findingItem(finding, lang, m) {
    const item = element("li", { class: `doc-finding doc-${finding.severity}`, "data-code": finding.code });
    item.append(element("span", { class: "doc-severity" }, m[SEVERITY_KEYS[finding.severity]]), " ");
    item.append(element("code", { class: "doc-code" }, finding.code), " ");
    if (finding.line) item.append(element("span", { class: "doc-line" }, template(m["doc-line"], { line: finding.line })), m["sep-label"]);
    item.append(element("span", { class: "doc-message" }, finding.message[lang]));
    if (finding.link) item.append(" ", element("a", { class: "doc-link", href: pageHref(finding.link) }, `${m["doc-explained"]} →`));
    return item;
  }

  function summary(findings, version, m) {
    const counts = { error: 0, warning: 0, note: 0 };
    for (const f of findings) counts[f.severity] += 1;
    if (counts.error || counts.warning) {
      return template(m["check-cli-problems"], { errors: counts.error, warnings: counts.warning, notes: counts.note, version });
    }
    return template(m["check-cli-clean"], { version });
  }

  // keep the state when the reader switches language: the other language's link carries the query
  function carryQuery(query) {
    for (const link of document.querySelectorAll("a.md-select__link[hreflang]")) {
      const url = new URL(link.getAttribute("href"), window.location.href);
      url.search = query;
      link.setAttribute("href", url.pathname + url.search + url.hash);
    }
  }

  // the corrected commands (checker.js corrected): each with its copy button
  function correctedBlock(commands, m, copy) {
    return commands.map((command) => {
      const code = element("code", {}, command.text);
      const button = element("button", { type: "button", class: "md-button cfg-copy" }, m["cfg-copy"]);
      button.addEventListener("click", () => copy(command.text, button));
      return element(
        "div",
        { class: "doc-fix", "data-line": String(command.line) },
        element("p", { class: "cfg-heading" }, template(m["check-corrected"], { line: command.line })),
        element("div", { class: "cfg-code" }, element("pre", {}, code), button),
      );
    });
  }

  async function copyText(text, button, m) {
    try {
      await navigator.clipboard.writeText(text);
    } catch (err) {
      const area = element("textarea", { readonly: "", class: "cfg-offscreen" });
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    button.textContent = m["cfg-copied"];
    button.dataset.copied = "true";
    window.setTimeout(() => {
      button.textContent = m["cfg-copy"];
    }, 1500);
  }

  // ================================================================================= the doctor
  class Doctor {
    constructor(root, checkerData, messages) {
      this.root = root;
      this.checkerData = checkerData;
      this.checker = window.HandbookChecker.create(checkerData);
      this.sized = null; // the checker with the planner, once the planner's data is loaded
      this.m = messages;
      this.lang = root.dataset.lang;
      this.input = root.querySelector(".doc-input");
      this.gpu = root.querySelector(".doc-gpu");
      this.plannerProblem = null;
      this.input.addEventListener("input", () => this.run());
      this.gpu.addEventListener("change", () => this.pickGpu());
      root.querySelector(".doc-check").addEventListener("click", () => this.run());
      root.querySelector(".doc-example").addEventListener("click", () => {
        this.input.value = EXAMPLE;
        this.run();
      });
      let stored = null;
      try {
        stored = window.sessionStorage.getItem(STORED_COMMAND);
      } catch (err) {
        stored = null;
      }
      if (stored) this.input.value = stored;
      let storedGpu = null;
      try {
        storedGpu = window.sessionStorage.getItem(STORED_GPU);
      } catch (err) {
        storedGpu = null;
      }
      if (storedGpu && [...this.gpu.options].some((o) => o.value === storedGpu)) {
        this.gpu.value = storedGpu;
        this.pickGpu();
      } else this.run();
    }

    // The planner's data is fetched once, the first time an accelerator is picked.
    async pickGpu() {
      try {
        window.sessionStorage.setItem(STORED_GPU, this.gpu.value);
      } catch (err) {
        // storage may be off
      }
      if (this.gpu.value && this.sized === null && window.HandbookPlanner) {
        try {
          const plannerData = await load(PLANNER_DATA);
          this.sized = window.HandbookChecker.create(this.checkerData, { planner: window.HandbookPlanner, data: plannerData });
          this.plannerProblem = null;
        } catch (err) {
          this.plannerProblem = template(this.m["doc-planner-failed"], { url: PLANNER_DATA.pathname });
        }
      }
      this.run();
    }

    run() {
      const text = this.input.value;
      try {
        window.sessionStorage.setItem(STORED_COMMAND, text);
      } catch (err) {
        // storage may be off: the state is then kept for this page only
      }
      const status = this.root.querySelector(".doc-status");
      const list = this.root.querySelector(".doc-findings");
      const fixes = this.root.querySelector(".doc-corrected");
      fixes.replaceChildren();
      if (!text.trim()) {
        status.replaceChildren();
        list.replaceChildren();
        this.root.dataset.result = "empty";
        return;
      }
      const gpu = this.gpu.value || null;
      const checker = gpu !== null && this.sized !== null ? this.sized : this.checker;
      const findings = checker.check(text, null, gpu);
      const understood = checker.understood(text);
      if (!understood && !findings.length) {
        status.replaceChildren(element("p", {}, this.m["check-cli-nothing"]));
        list.replaceChildren();
        this.root.dataset.result = "nothing";
        return;
      }
      const lines = [element("p", {}, summary(findings, checker.version, this.m))];
      if (gpu !== null && this.plannerProblem !== null) lines.push(element("p", { class: "cfg-warn" }, this.plannerProblem));
      status.replaceChildren(...lines);
      list.replaceChildren(...findings.map((f) => findingItem(f, this.lang, this.m)));
      fixes.replaceChildren(...correctedBlock(checker.corrected(text, findings), this.m, (t, b) => copyText(t, b, this.m)));
      this.root.dataset.result = ["clean", "warnings", "errors"][this.checker.exitStatus(findings)];
    }
  }

  // ================================================================================= the configurator
  const FIELDS = ["model", "gpu", "precision", "goal", "nodes"];

  class Configurator {
    constructor(root, configure, data, messages) {
      this.root = root;
      this.configure = configure;
      this.data = data;
      this.m = messages;
      this.lang = root.dataset.lang;
      this.form = root.querySelector(".cfg-form");
      const read = this.read(new URLSearchParams(window.location.search));
      this.state = read.state;
      this.urlNotes = read.problems;
      this.form.addEventListener("submit", (event) => event.preventDefault());
      this.form.addEventListener("change", (event) => this.onChange(event.target));
      this.update();
    }

    field(name) {
      return this.form.elements.namedItem(name);
    }

    model(id = this.state.model) {
      return this.configure.models.get(id);
    }

    // Each URL parameter, checked against what the page offers; a bad one falls back and is said.
    read(params) {
      const d = this.data;
      const state = { ...d.default_choice };
      const problems = [];
      const take = (name, valid, parse = (raw) => raw) => {
        if (!params.has(name)) return;
        const raw = params.get(name);
        const value = parse(raw);
        if (valid(value)) state[name] = value;
        else problems.push(template(this.m["cfg-invalid-param"], { name, value: raw, fallback: String(state[name]) }));
      };
      take("model", (v) => this.configure.models.has(v));
      const model = this.model(state.model);
      if (!model.precisions.some((p) => p.dtype === state.precision)) state.precision = model.precisions[0].dtype;
      take("gpu", (v) => this.configure.hardware.has(v));
      take("precision", (v) => model.precisions.some((p) => p.dtype === v));
      take("goal", (v) => this.configure.goals.has(v));
      take("nodes", (v) => d.nodes.includes(v), Number);
      if (!model.pd) state.pd = false;
      take("pd", (v) => v === false || model.pd, (raw) => raw === "1");
      return { state, problems };
    }

    query() {
      const s = this.state;
      const params = new URLSearchParams();
      for (const name of FIELDS) params.set(name, String(s[name]));
      if (s.pd) params.set("pd", "1");
      return params.toString();
    }

    onChange(target) {
      const s = this.state;
      this.urlNotes = [];
      if (target.name === "model") {
        s.model = target.value;
        const model = this.model();
        if (!model.precisions.some((p) => p.dtype === s.precision)) s.precision = model.precisions[0].dtype;
        if (!model.pd) s.pd = false;
      } else if (target.name === "nodes") s.nodes = Number(target.value);
      else if (target.name === "pd") s.pd = target.checked;
      else if (FIELDS.includes(target.name)) s[target.name] = target.value;
      else return;
      this.update();
    }

    syncForm() {
      const d = this.data;
      const s = this.state;
      const fill = (name, options, value) => {
        const select = this.field(name);
        select.replaceChildren(...options);
        select.value = String(value);
      };
      const option = (value, label) => element("option", { value: String(value) }, label);
      fill("model", d.models.map((x) => option(x.id, x.name)), s.model);
      fill("gpu", d.hardware.map((x) => option(x.id, x.name)), s.gpu);
      fill("precision", this.model().precisions.map((p) => option(p.dtype, p.name)), s.precision);
      const groups = [
        ["strategy", "cfg-goals-strategies"],
        ["scenario", "cfg-goals-scenarios"],
      ].map(([kind, key]) => {
        const group = element("optgroup", { label: this.m[key] });
        group.append(...d.goals.filter((g) => g.kind === kind).map((g) => option(g.id, g.name[this.lang])));
        return group;
      });
      fill("goal", groups, s.goal);
      fill("nodes", d.nodes.map((n) => option(n, String(n))), s.nodes);
      const pd = this.field("pd");
      pd.checked = s.pd;
      pd.disabled = !this.model().pd;
      const withPd = d.models.filter((x) => x.pd).map((x) => x.name).join(this.m["sep-list"]);
      this.root.querySelector(".cfg-pd-note").textContent = pd.disabled ? template(this.m["cfg-pd-unavailable"], { models: withPd }) : "";
    }

    update() {
      const result = this.configure.configure({ ...this.state });
      this.result = result;
      this.syncForm();
      this.render(result);
      const query = this.query();
      window.history.replaceState(null, "", `${window.location.pathname}?${query}${window.location.hash}`);
      carryQuery(query);
      const share = this.root.querySelector(".cfg-share");
      share.href = window.location.href;
      share.textContent = window.location.href;
      this.root.dataset.status = result.status;
    }

    render(result) {
      const m = this.m;
      const lang = this.lang;
      const status = this.root.querySelector(".cfg-status");
      status.replaceChildren(...this.urlNotes.map((text) => element("p", { class: "cfg-warn" }, text)));
      const out = [element("p", { class: `cfg-headline cfg-${result.status}` }, result.headline[lang])];
      if (result.why.length) out.push(element("ul", { class: "cfg-why" }, ...result.why.map((w) => element("li", {}, w[lang]))));
      let lastPlan = null;
      for (const command of result.commands) {
        out.push(this.renderCommand(command, lastPlan));
        if (command.plan) lastPlan = command.plan.key;
      }
      if (result.notes.length) {
        out.push(element("p", { class: "cfg-heading" }, m["cfg-notes"]));
        out.push(element("ul", { class: "cfg-notes" }, ...result.notes.map((n) => element("li", {}, n[lang]))));
      }
      if (result.section) {
        out.push(element("p", { class: "cfg-section" }, `${m["cfg-section"]}${m["sep-label"]}`, this.sectionLink(result.section)));
      }
      if (result.related.length) {
        out.push(element("p", { class: "cfg-heading" }, m["cfg-related"]));
        out.push(
          element(
            "ul",
            { class: "cfg-related" },
            ...result.related.map((r) => element("li", {}, element("a", { href: pageHref(r.link) }, r.title[lang]))),
          ),
        );
      }
      this.root.querySelector(".cfg-result").replaceChildren(...out);
    }

    sectionLink(link) {
      const title = this.data.sections[link];
      return element("a", { href: pageHref(link) }, title ? title[this.lang] : link);
    }

    renderCommand(command, lastPlan) {
      const m = this.m;
      const lang = this.lang;
      const box = element("div", { class: "cfg-command", "data-role": command.role });
      box.append(element("p", { class: "cfg-role" }, m[ROLE_KEYS[command.role]]));
      const code = element("code", {}, command.text);
      const copy = element("button", { type: "button", class: "md-button cfg-copy" }, m["cfg-copy"]);
      copy.addEventListener("click", () => this.copy(command.text, copy));
      box.append(element("div", { class: "cfg-code" }, element("pre", {}, code), copy));
      if (command.link) {
        box.append(element("p", { class: "cfg-source" }, `${m["cfg-section"]}${m["sep-label"]}`, this.sectionLink(command.link)));
      }
      if (command.lines.length) {
        const rows = command.lines.map((line) => {
          const flag = element("code", {}, line.text);
          const cell = line.link ? element("a", { href: pageHref(line.link) }, flag) : flag;
          return element("tr", {}, element("td", {}, cell), element("td", {}, line.why[lang]));
        });
        const table = element("table", { class: "cfg-lines" }, element("tbody", {}, ...rows));
        box.append(element("details", { class: "cfg-why-flags", open: "" }, element("summary", {}, m["cfg-why-heading"]), table));
      }
      if (command.corrections.length) {
        box.append(element("p", { class: "cfg-heading" }, m["cfg-corrections"]));
        box.append(
          element(
            "ul",
            { class: "cfg-corrections" },
            ...command.corrections.map((c) => element("li", {}, template(m["cfg-correction"], { stated: c.stated, published: c.published, why: c.why[lang] }))),
          ),
        );
      }
      if (command.recipe_notes.length) {
        box.append(element("ul", { class: "cfg-recipe-notes" }, ...command.recipe_notes.map((n) => element("li", {}, n[lang]))));
      }
      const verdict = element("div", { class: "cfg-checked" });
      if (command.findings.length) {
        verdict.append(element("p", { class: "cfg-heading" }, m["cfg-checked"]));
        verdict.append(element("ol", { class: "doc-findings" }, ...command.findings.map((f) => findingItem(f, lang, m))));
      } else {
        verdict.append(element("p", { class: "cfg-clean" }, template(m["cfg-checked-clean"], { version: this.data.version })));
      }
      box.append(verdict);
      if (command.plan && command.plan.key !== lastPlan) box.append(this.renderPlan(command.plan));
      return box;
    }

    renderPlan(plan) {
      const m = this.m;
      const lang = this.lang;
      const wrap = element("figure", { class: "cfg-plan", "data-plan": plan.key });
      wrap.append(element("figcaption", {}, m["cfg-plan"]));
      if (plan.figures === null) return wrap;
      const p = this.configure.planFigures(plan.key);
      if (p.free !== null && p.static !== null) {
        // one GPU's free memory before loading, as the planner's bar draws it (planner.js renderBar):
        // weights | state pool and reserve | KV pool | the rest, or the weights over the budget
        const weights = p.weights;
        const over = weights !== null ? Math.max(0, weights - p.static) : 0;
        const reserved = weights !== null && over === 0 ? Math.max(0, p.budget - p.pool) + p.mm : 0;
        const parts = [];
        if (weights !== null) {
          parts.push(["weights", Math.min(weights, p.static)]);
          if (over > 0) parts.push(["over", Math.min(over, p.rest)]);
          else {
            if (reserved > 0) parts.push(["state", Math.min(reserved, p.static - weights)]);
            parts.push(["kv", Math.max(0, p.static - weights - reserved)]);
          }
        }
        parts.push(["rest", over > 0 ? Math.max(0, p.rest - over) : p.rest]);
        const bar = element("div", { class: "cfg-bar", role: "img", "aria-label": m["cfg-plan"] });
        const legend = element("ul", { class: "cfg-legend" });
        for (const [kind, bytes] of parts) {
          bar.append(element("span", { class: `cfg-part cfg-part-${kind}`, style: `width:${((bytes / p.free) * 100).toFixed(3)}%`, "data-part": kind }));
          legend.append(element("li", { "data-part": kind }, element("span", { class: `cfg-swatch cfg-part-${kind}` }), m[LEGEND_KEYS[kind]]));
        }
        wrap.append(bar, legend);
      }
      const rows = FIGURE_KEYS.filter(([key]) => key in plan.figures).map(([key, label]) => {
        const value = plan.figures[key];
        return element(
          "tr",
          {},
          element("th", { scope: "row" }, template(m[label], { context: plan.figures.context })),
          element("td", { "data-figure": key }, typeof value === "string" ? value : value[lang]),
        );
      });
      wrap.append(element("table", { class: "cfg-figures" }, element("tbody", {}, ...rows)));
      const [model, gpuId, precision, tp, ep, mem, kv, context, page, running] = plan.key.split("|");
      // the planner's own URL parameters (planner.js readParams); what the command leaves out, the planner
      // leaves to the engine as well
      const params = new URLSearchParams({ model, gpu: gpuId, tp: tp || "1", "weights-dtype": precision });
      if (ep) params.set("ep", ep);
      params.set("kv-dtype", this.data.kv_ids[kv || this.data.defaults.kv]);
      if (mem) params.set("mem-fraction-static", mem);
      if (context) params.set("context", context);
      if (page) params.set("page-size", page);
      if (running) params.set("max-running-requests", running);
      const note = template(m["cfg-note-plan-defaults"], { kv: this.data.defaults.kv_name });
      wrap.append(element("p", { class: "cfg-plan-note" }, note, " ", element("a", { class: "cfg-planner-link", href: `../planner/?${params}` }, `${m["cfg-plan-open"]} →`)));
      return wrap;
    }

    async copy(text, button) {
      await copyText(text, button, this.m);
    }
  }

  // ------------------------------------------------------------------------------------------ start
  async function start(root, kind) {
    const messages = JSON.parse(root.querySelector(".cfg-messages").textContent);
    const status = root.querySelector(kind === "doctor" ? ".doc-status" : ".cfg-status");
    const failed = kind === "doctor" ? "doc-load-failed" : "cfg-load-failed";
    let checkerData;
    let configuratorData;
    try {
      [checkerData, configuratorData] = await Promise.all([load(CHECKER_DATA), kind === "doctor" ? null : load(CONFIGURATOR_DATA)]);
    } catch (err) {
      const url = (kind === "doctor" ? CHECKER_DATA : CONFIGURATOR_DATA).pathname;
      status.replaceChildren(element("p", { class: "cfg-warn" }, template(messages[failed], { url })));
      return;
    }
    if (kind === "doctor") {
      status.replaceChildren();
      root.doctor = new Doctor(root, checkerData, messages);
    } else {
      const checker = window.HandbookChecker.create(checkerData);
      configuratorData.version = checker.version;
      const configure = window.HandbookConfigure.create(configuratorData, checker);
      root.configurator = new Configurator(root, configure, configuratorData, messages);
    }
    root.dataset.ready = "true";
  }

  function boot() {
    for (const root of document.querySelectorAll("[data-doctor]")) start(root, "doctor");
    for (const root of document.querySelectorAll("[data-configurator]")) start(root, "configurator");
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
