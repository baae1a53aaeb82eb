/* The configurator and command doctor pages (kb:configurator, kb:doctor): forms, results, the URL.
 *
 * The doctor's work is done by checker.js (handbook/checker, in JavaScript) over the checker's export; the
 * configurator's answers are computed at build time (handbook/site/configurator.py) and only rendered
 * here. This file reads the forms, shows the results in the page's language, and keeps the configurator's
 * choice in the address bar.
 * The doctor's checks run in a Web Worker (checker-worker.js), off the page's main thread; with an
 * accelerator picked, the planner (planner.js over the planner's export) sizes the command there too.
 * The page's wording comes from the page (<script class="cfg-messages">). Nothing is sent anywhere: the
 * only requests are this site's own data files.
 */
(function () {
  "use strict";

  const BASE = document.currentScript ? document.currentScript.src : window.location.href;
  const CHECKER_DATA = new URL("checker-data.json", BASE);
  const CONFIGURATOR_DATA = new URL("configurator-data.json", BASE);
  const CHECKER_WORKER = new URL("checker-worker.js", BASE);
  // The planner's export (handbook/calc/planner_data.py): fetched when the reader picks an accelerator
  const PLANNER_DATA = new URL("planner-data.json", BASE);
  // A check still running after this long is stopped (its worker ended; the next check starts a fresh one)
  const CHECK_LIMIT_MS = 10000;
  const LISTED_FINDINGS = 200;
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

  function countsOf(findings) {
    const counts = { error: 0, warning: 0, note: 0 };
    for (const f of findings) counts[f.severity] += 1;
    return counts;
  }

  function summary(counts, version, m) {
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
  function correctedBlock(commands, m) {
    return commands.map((command) => {
      const code = element("code", {}, command.text);
      const button = element("button", { type: "button", class: "md-button cfg-copy" }, m["cfg-copy"]);
      button.addEventListener("click", () => copyText(command.text, button, m));
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
    } catch {
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

  // ================================================================================= the doctor's checks
  // Each check runs in a Web Worker, so that a long paste never blocks the page, and one that runs past
  // CHECK_LIMIT_MS is stopped. Where no worker can start, the page's own checker.js runs it, after a paint.
  // A check given an accelerator is sized by the planner, whose data is fetched the first time one is.
  class Checks {
    constructor() {
      this.worker = null;
      this.local = null;
      this.localData = null;
      this.localSized = null; // the page's checker with the planner, once its data is loaded (or false)
      this.version = null;
      this.waiting = new Map();
      this.next = 0;
    }

    async start() {
      try {
        this.version = await this.spawn();
      } catch {
        this.localData = await load(CHECKER_DATA);
        this.local = window.HandbookChecker.create(this.localData);
        this.version = this.local.version;
      }
    }

    spawn() {
      return new Promise((resolve, reject) => {
        const worker = new Worker(CHECKER_WORKER);
        worker.onmessage = (event) => {
          const answer = event.data;
          if ("ready" in answer) {
            this.worker = worker;
            resolve(answer.ready);
          } else if (answer.id === undefined) {
            worker.terminate();
            reject(new Error(answer.error));
          } else this.settle(answer.id, answer);
        };
        worker.onerror = (event) => {
          event.preventDefault();
          const why = new Error(event.message || "the checker's worker stopped");
          if (this.worker === worker) this.stop(why);
          else reject(why);
        };
        worker.postMessage({ data: String(CHECKER_DATA), planner: String(PLANNER_DATA) });
      });
    }

    settle(id, answer) {
      const waiting = this.waiting.get(id);
      if (waiting === undefined) return;
      this.waiting.delete(id);
      window.clearTimeout(waiting.timer);
      if ("error" in answer) waiting.reject(new Error(answer.error));
      else waiting.resolve(answer.result);
    }

    // end the worker and every check waiting on it; the next check starts a fresh one
    stop(why) {
      if (this.worker !== null) this.worker.terminate();
      this.worker = null;
      for (const id of [...this.waiting.keys()]) this.settle(id, { error: why.message });
    }

    // the page's own checker, sized on `gpu` when it is given and the planner's data could be loaded
    async localChecker(gpu) {
      if (gpu === null) return this.local;
      if (this.localSized === null) {
        try {
          this.localSized = window.HandbookChecker.create(this.localData, { planner: window.HandbookPlanner, data: await load(PLANNER_DATA) });
        } catch {
          this.localSized = false;
        }
      }
      return this.localSized || this.local;
    }

    async check(text, gpu = null) {
      if (this.local !== null) {
        await new Promise((resolve) => window.setTimeout(resolve, 0));
        const checker = await this.localChecker(gpu);
        const findings = checker.check(text, null, checker === this.local ? null : gpu);
        const understood = checker.understood(text);
        return {
          findings: findings.slice(0, LISTED_FINDINGS),
          counts: countsOf(findings),
          understood,
          status: checker.exitStatus(findings),
          corrected: checker.corrected(text, findings),
          plannerFailed: gpu !== null && checker === this.local,
        };
      }
      if (this.worker === null) await this.spawn();
      return new Promise((resolve, reject) => {
        this.next += 1;
        const id = this.next;
        const timer = window.setTimeout(() => this.stop(new Error(`> ${CHECK_LIMIT_MS / 1000} s`)), CHECK_LIMIT_MS);
        this.waiting.set(id, { resolve, reject, timer });
        this.worker.postMessage({ id, text, gpu, listed: LISTED_FINDINGS });
      });
    }
  }

  // ================================================================================= the doctor
  // One check at a time, always of the latest text: a verdict is shown only for the text in the box, and
  // while a check runs the page says so instead of showing the previous verdict.
  class Doctor {
    constructor(root, checks, messages) {
      this.root = root;
      this.checks = checks;
      this.m = messages;
      this.lang = root.dataset.lang;
      this.input = root.querySelector(".doc-input");
      this.gpu = root.querySelector(".doc-gpu");
      this.status = root.querySelector(".doc-status");
      this.list = root.querySelector(".doc-findings");
      this.fixes = root.querySelector(".doc-corrected");
      this.ticket = 0; // the text in the box
      this.shown = 0; // the text whose verdict the page shows
      this.busy = false;
      this.waiters = [];
      this.input.addEventListener("input", () => this.run());
      this.gpu.addEventListener("change", () => {
        try {
          window.sessionStorage.setItem(STORED_GPU, this.gpu.value);
        } catch {
          // storage may be off
        }
        this.run();
      });
      root.querySelector(".doc-check").addEventListener("click", () => this.run());
      root.querySelector(".doc-example").addEventListener("click", () => {
        this.input.value = EXAMPLE;
        this.run();
      });
      this.restored = null;
      try {
        this.restored = window.sessionStorage.getItem(STORED_COMMAND);
      } catch {
        this.restored = null;
      }
      if (this.restored) this.input.value = this.restored;
      let storedGpu = null;
      try {
        storedGpu = window.sessionStorage.getItem(STORED_GPU);
      } catch {
        storedGpu = null;
      }
      if (storedGpu && [...this.gpu.options].some((o) => o.value === storedGpu)) this.gpu.value = storedGpu;
      this.run();
    }

    remember(text) {
      try {
        if (text) window.sessionStorage.setItem(STORED_COMMAND, text);
        else window.sessionStorage.removeItem(STORED_COMMAND);
      } catch {
        // storage may be off: the state is then kept for this page only
      }
    }

    // Check the text in the box; resolves once the page shows its verdict (or why there is none).
    run() {
      const text = this.input.value;
      this.remember(text);
      this.ticket += 1;
      const done = new Promise((resolve) => this.waiters.push([this.ticket, resolve]));
      this.fixes.replaceChildren();
      if (!text.trim()) {
        this.status.replaceChildren();
        this.list.replaceChildren();
        this.show(this.ticket, "empty");
        return done;
      }
      this.status.replaceChildren(element("p", { class: "doc-checking" }, this.m["doc-checking"]));
      this.list.hidden = true;
      this.root.dataset.result = "checking";
      if (!this.busy) this.drain();
      return done;
    }

    async drain() {
      this.busy = true;
      while (this.shown !== this.ticket) {
        const ticket = this.ticket;
        const text = this.input.value;
        const gpu = this.gpu.value || null;
        try {
          const result = await this.checks.check(text, gpu);
          if (ticket === this.ticket) this.render(result);
        } catch (err) {
          if (ticket === this.ticket) this.failed(text, err);
        }
        if (ticket === this.ticket) this.show(ticket, this.root.dataset.result);
      }
      this.busy = false;
    }

    show(ticket, result) {
      this.shown = ticket;
      this.root.dataset.result = result;
      this.waiters = this.waiters.filter(([waiting, resolve]) => (waiting <= ticket ? resolve() : true));
    }

    render(result) {
      this.list.hidden = false;
      const total = result.counts.error + result.counts.warning + result.counts.note;
      if (!result.understood && !total) {
        this.status.replaceChildren(element("p", {}, this.m["check-cli-nothing"]));
        this.list.replaceChildren();
        this.root.dataset.result = "nothing";
        return;
      }
      const lines = [element("p", {}, summary(result.counts, this.checks.version, this.m))];
      if (result.plannerFailed) lines.push(element("p", { class: "cfg-warn" }, template(this.m["doc-planner-failed"], { url: PLANNER_DATA.pathname })));
      this.status.replaceChildren(...lines);
      // a paste with thousands of findings: the first ones, and how many more (the summary counts them all)
      const listed = result.findings.map((f) => findingItem(f, this.lang, this.m));
      const more = total - result.findings.length;
      if (more > 0) listed.push(element("li", { class: "doc-more" }, template(this.m["doc-more"], { count: more.toLocaleString("en") })));
      this.list.replaceChildren(...listed);
      this.fixes.replaceChildren(...correctedBlock(result.corrected, this.m));
      this.root.dataset.result = ["clean", "warnings", "errors"][result.status];
    }

    // No verdict: say why, forget the text (a reload must not run it again), and offer to clear the box.
    failed(text, err) {
      this.remember("");
      if (text === this.restored) this.input.value = "";
      this.restored = null;
      const clear = element("button", { type: "button", class: "md-button doc-clear" }, this.m["doc-clear"]);
      clear.addEventListener("click", () => {
        this.input.value = "";
        this.run();
        this.input.focus();
      });
      const why = template(this.m["doc-failed"], { error: String(err?.message ? err.message : err) });
      this.status.replaceChildren(element("p", { class: "cfg-warn doc-failed" }, why, " ", clear));
      this.list.replaceChildren();
      this.list.hidden = false;
      this.root.dataset.result = "failed";
    }
  }

  // ================================================================================= the configurator
  // Every answer is computed at build time (handbook/site/configurator.py): the form's choices in
  // configurator-data.json, and each model × accelerator's answers in configurator/<model>/<gpu>.json,
  // fetched when the reader picks the pair. This class only fills the form and renders the answer.
  const FIELDS = ["model", "gpu", "precision", "gpus", "nodes", "goal", "context"];
  const NUMBERS = ["gpus", "nodes", "context"];

  class Configurator {
    constructor(root, data, messages) {
      this.root = root;
      this.data = data;
      this.m = messages;
      this.lang = root.dataset.lang;
      this.form = root.querySelector(".cfg-form");
      this.pairs = new Map();
      this.models = new Map(data.models.map((x) => [x.id, x]));
      this.hardware = new Map(data.hardware.map((x) => [x.id, x]));
      const read = this.read(new URLSearchParams(window.location.search));
      this.state = read.state;
      this.urlNotes = read.problems;
      this.form.addEventListener("submit", (event) => event.preventDefault());
      this.form.addEventListener("change", (event) => this.onChange(event.target));
    }

    field(name) {
      return this.form.elements.namedItem(name);
    }

    // Each URL parameter, checked against the form's choices; a bad one falls back and is said. The
    // precision is checked once the pair's answers are loaded (sanitize).
    read(params) {
      const d = this.data;
      const state = { ...d.default_choice };
      const problems = [];
      this.pending = params.has("precision") ? params.get("precision") : null;
      for (const name of FIELDS) {
        if (name === "precision" || !params.has(name)) continue;
        const raw = params.get(name);
        const value = NUMBERS.includes(name) ? Number(raw) : raw;
        const valid = {
          model: (v) => this.models.has(v),
          gpu: (v) => this.hardware.has(v),
          gpus: (v) => Number.isInteger(v),
          nodes: (v) => d.nodes.includes(v),
          goal: (v) => d.goals.some((g) => g.id === v),
          context: (v) => Number.isInteger(v),
        }[name];
        if (valid(value)) state[name] = value;
        else problems.push(template(this.m["cfg-invalid-param"], { name, value: raw, fallback: String(state[name]) }));
      }
      state.pd = params.get("pd") === "1";
      return { state, problems };
    }

    async pair() {
      const key = `${this.state.model}/${this.state.gpu}`;
      if (!this.pairs.has(key)) {
        const url = new URL(this.data.answers.replace("{model}", this.state.model).replace("{gpu}", this.state.gpu), BASE);
        this.pairs.set(key, load(url));
      }
      return this.pairs.get(key);
    }

    // Keep only what the form offers for this model × accelerator: never a precision the accelerator's
    // sources do not name, a GPU count above its node size, a context beyond the model's.
    sanitize(answers) {
      const s = this.state;
      const model = this.models.get(s.model);
      const hw = this.hardware.get(s.gpu);
      const dtypes = answers.precisions.map((p) => p.dtype);
      const wanted = this.pending !== null ? this.pending : s.precision;
      if (this.pending !== null && !dtypes.includes(this.pending)) {
        this.urlNotes.push(template(this.m["cfg-invalid-param"], { name: "precision", value: this.pending, fallback: dtypes[0] || "—" }));
      }
      this.pending = null;
      s.precision = dtypes.includes(wanted) ? wanted : dtypes[0] || null;
      if (!hw.gpus.includes(s.gpus)) s.gpus = hw.gpus[hw.gpus.length - 1];
      if (!model.contexts.includes(s.context)) {
        const fits = model.contexts.filter((c) => c <= s.context);
        s.context = fits.length ? fits[fits.length - 1] : model.contexts[0];
      }
      if (!model.pd) s.pd = false;
    }

    key() {
      const s = this.state;
      if (s.precision === null) return null;
      return [s.precision, s.gpus, s.nodes, s.goal, s.context].join("|") + (s.pd ? "|pd" : "");
    }

    query() {
      const s = this.state;
      const params = new URLSearchParams();
      for (const name of FIELDS) if (s[name] !== null) params.set(name, String(s[name]));
      if (s.pd) params.set("pd", "1");
      return params.toString();
    }

    onChange(target) {
      const s = this.state;
      this.urlNotes = [];
      if (target.name === "pd") s.pd = target.checked;
      else if (FIELDS.includes(target.name)) s[target.name] = NUMBERS.includes(target.name) ? Number(target.value) : target.value;
      else return;
      this.update();
    }

    syncForm(answers) {
      const d = this.data;
      const s = this.state;
      const model = this.models.get(s.model);
      const fill = (name, options, value) => {
        const select = this.field(name);
        select.replaceChildren(...options);
        select.value = String(value);
      };
      const option = (value, label) => element("option", { value: String(value) }, label);
      fill("model", d.models.map((x) => option(x.id, x.name)), s.model);
      fill("gpu", d.hardware.map((x) => option(x.id, x.name)), s.gpu);
      const precisions = answers.precisions.map((p) => option(p.dtype, p.name));
      fill("precision", precisions.length ? precisions : [option("", this.m["cfg-precision-none"])], s.precision ?? "");
      this.field("precision").disabled = !precisions.length;
      fill("gpus", this.hardware.get(s.gpu).gpus.map((n) => option(n, String(n))), s.gpus);
      fill("nodes", d.nodes.map((n) => option(n, String(n))), s.nodes);
      const groups = [
        ["strategy", "cfg-goals-strategies"],
        ["scenario", "cfg-goals-scenarios"],
      ].map(([kind, key]) => {
        const group = element("optgroup", { label: this.m[key] });
        group.append(...d.goals.filter((g) => g.kind === kind).map((g) => option(g.id, g.name[this.lang])));
        return group;
      });
      fill("goal", groups, s.goal);
      fill("context", model.contexts.map((c) => option(c, c.toLocaleString("en-US"))), s.context);
      const pd = this.field("pd");
      pd.checked = s.pd;
      pd.disabled = !model.pd;
      const withPd = d.models.filter((x) => x.pd).map((x) => x.name).join(this.m["sep-list"]);
      this.root.querySelector(".cfg-pd-note").textContent = pd.disabled ? template(this.m["cfg-pd-unavailable"], { models: withPd }) : "";
    }

    async update() {
      const want = this.query();
      this.root.dataset.pending = "true"; // until the answer for this choice is on the page
      let answers;
      try {
        answers = await this.pair();
      } catch {
        const status = this.root.querySelector(".cfg-status");
        status.replaceChildren(element("p", { class: "cfg-warn" }, template(this.m["cfg-load-failed"], { url: this.data.answers })));
        return;
      }
      if (this.query() !== want) return; // a later change is on its way
      this.sanitize(answers);
      const key = this.key();
      const result = key === null ? answers.results[0] : answers.results[answers.keys[key]];
      this.syncForm(answers);
      this.render(result, answers);
      const query = this.query();
      window.history.replaceState(null, "", `${window.location.pathname}?${query}${window.location.hash}`);
      carryQuery(query);
      const share = this.root.querySelector(".cfg-share");
      share.href = window.location.href;
      share.textContent = window.location.href;
      this.root.dataset.status = result.status;
      delete this.root.dataset.pending;
    }

    render(result, answers) {
      const m = this.m;
      const lang = this.lang;
      const text = (i) => answers.texts[i][lang];
      const status = this.root.querySelector(".cfg-status");
      status.replaceChildren(...this.urlNotes.map((note) => element("p", { class: "cfg-warn" }, note)));
      const out = [element("p", { class: `cfg-headline cfg-${result.status}` }, text(result.headline))];
      if (result.why.length) out.push(element("ul", { class: "cfg-why" }, ...result.why.map((w) => element("li", {}, text(w)))));
      if (result.alternative) {
        const button = element("button", { type: "button", class: "md-button cfg-alternative" }, m["cfg-alternative"]);
        button.addEventListener("click", () => {
          Object.assign(this.state, result.alternative);
          this.update();
        });
        out.push(element("p", {}, button));
      }
      const sources = answers.sources[this.state.precision ?? ""] || [];
      if (sources.length && result.commands.length) {
        out.push(element("p", { class: "cfg-heading" }, m["cfg-sources"]));
        out.push(element("ul", { class: "cfg-sources" }, ...sources.map((src) => this.sourceItem(src))));
      }
      let lastPlan = null;
      const used = new Set();
      for (const index of result.commands) {
        const command = answers.commands[index];
        if (command.recipe) used.add(command.recipe);
        out.push(this.renderCommand(command, lastPlan));
        if (command.plan?.link) lastPlan = command.plan.link.query;
      }
      if (result.notes.length) {
        out.push(element("p", { class: "cfg-heading" }, m["cfg-notes"]));
        out.push(element("ul", { class: "cfg-notes" }, ...result.notes.map((n) => element("li", {}, text(n)))));
      }
      if (answers.section) {
        out.push(element("p", { class: "cfg-section" }, `${m["cfg-section"]}${m["sep-label"]}`, this.sectionLink(answers.section)));
      }
      const related = answers.related.filter((r) => !used.has(r.id));
      if (related.length) {
        out.push(element("p", { class: "cfg-heading" }, m["cfg-related"]));
        out.push(element("ul", { class: "cfg-related" }, ...related.map((r) => element("li", {}, element("a", { href: pageHref(r.link) }, r.title[lang])))));
      }
      this.root.querySelector(".cfg-result").replaceChildren(...out);
    }

    sourceItem(src) {
      const title = src.title[this.lang];
      const where = src.where[this.lang];
      const label = src.url ? element("a", { href: src.url }, title) : element("span", {}, title);
      const item = element("li", {}, label, `${this.m["sep-label"]}${where}`);
      if (src.commit) item.append(" ", element("code", {}, `${src.file}@${src.commit.slice(0, 12)}`));
      if (src.verified === false) item.append(" ", this.m["cfg-source-unverified"]);
      return item;
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
      copy.addEventListener("click", () => copyText(command.text, copy, m));
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
        verdict.append(element("p", { class: "cfg-clean" }, template(m["cfg-checked-clean"], { version: this.data.engine_version })));
      }
      box.append(verdict);
      if (command.plan?.link && command.plan.link.query !== lastPlan) box.append(this.renderPlan(command.plan));
      return box;
    }

    renderPlan(plan) {
      const m = this.m;
      const lang = this.lang;
      const wrap = element("figure", { class: "cfg-plan", "data-plan": plan.link.query });
      wrap.append(element("figcaption", {}, m["cfg-plan"]));
      if (plan.figures === null) return wrap;
      const p = plan.bar;
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
      // the planner page with every input of this plan (the context included)
      const href = `${pageHref(plan.link.page)}?${plan.link.query}`;
      wrap.append(element("p", { class: "cfg-plan-note" }, m["cfg-note-plan-defaults"], " ", element("a", { class: "cfg-planner-link", href }, `${m["cfg-plan-open"]} →`)));
      return wrap;
    }
  }

  // ------------------------------------------------------------------------------------------ start
  async function start(root, kind) {
    const messages = JSON.parse(root.querySelector(".cfg-messages").textContent);
    const status = root.querySelector(kind === "doctor" ? ".doc-status" : ".cfg-status");
    const failed = kind === "doctor" ? "doc-load-failed" : "cfg-load-failed";
    if (kind === "doctor") {
      const checks = new Checks();
      try {
        await checks.start();
      } catch {
        status.replaceChildren(element("p", { class: "cfg-warn" }, template(messages[failed], { url: CHECKER_DATA.pathname })));
        return;
      }
      status.replaceChildren();
      root.doctor = new Doctor(root, checks, messages);
      root.dataset.ready = "true";
      return;
    }
    let configuratorData;
    try {
      configuratorData = await load(CONFIGURATOR_DATA);
    } catch {
      status.replaceChildren(element("p", { class: "cfg-warn" }, template(messages[failed], { url: CONFIGURATOR_DATA.pathname })));
      return;
    }
    status.replaceChildren();
    root.configurator = new Configurator(root, configuratorData, messages);
    await root.configurator.update();
    root.dataset.ready = "true";
  }

  function boot() {
    for (const root of document.querySelectorAll("[data-doctor]")) start(root, "doctor");
    for (const root of document.querySelectorAll("[data-configurator]")) start(root, "configurator");
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
