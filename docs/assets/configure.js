/* The handbook's configurator, for the browser: a choice → the handbook's command, a composed one, or why
 * there is none.
 *
 * handbook/calc/configure.py (Composer) and handbook/site/configurator.py (Configurator.configure) written
 * again in JavaScript, method by method, over the export the build writes beside it
 * (assets/configurator-data.json: the KB facts it reads and every planner result it can ask for). Each
 * command is then checked with checker.js, as the Python side checks it with handbook.checker;
 * tests/test_doctor_parity.py compares both over every combination the page offers. Plain ES2020, no DOM:
 * node runs it as it is.
 */
(function (root) {
  "use strict";

  const ONE_LINE_MAX = 88;
  const INDENT = "  ";
  const MODULES = { launch_server: "sglang.launch_server", launch_router: "sglang_router.launch_router" };
  const ROLES_PD = ["prefill", "decode", "router"];
  const NEUTRAL = [null, "baseline", "multi-gpu", "tool-calling", "reference"];
  const DIST_PORT = "5000";
  const PD_PORTS = { prefill: "30000", decode: "30001" };
  const PD_HOSTS = { prefill: "<prefill-ip>", decode: "<decode-ip>" };
  const PD_MASTERS = { standalone: "<master-ip>", prefill: "<prefill-master-ip>", decode: "<decode-master-ip>" };
  const ROLE_KEYS = {
    standalone: "cfg-role-standalone",
    prefill: "cfg-role-prefill",
    decode: "cfg-role-decode",
    router: "cfg-role-router",
  };

  // ------------------------------------------------------------------------------------------ numbers
  // numbers.js (loaded before this script in the browser, required in node): handbook/core/formatting.py
  // with Python's rounding, as the planner writes its figures.
  const { thousands, sig, binarySize } = root.HandbookNumbers || require("./numbers.js");

  // ------------------------------------------------------------------------------------------ wording
  // checker.js's str.format (named fields, None/True/False as Python writes them); loaded before this script.
  const { format } = root.HandbookChecker || require("./checker.js");

  // ================================================================================= the composer
  function create(data, checker) {
    const M = data.messages;
    const models = new Map(data.models.map((m) => [m.id, m]));
    const hardware = new Map(data.hardware.map((h) => [h.id, h]));
    const goals = new Map(data.goals.map((g) => [g.id, g]));
    const recipesById = new Map(data.recipes.map((r) => [r.id, r]));

    function message(key, values = {}) {
      const out = {};
      ["zh", "en"].forEach((lang, index) => {
        const filled = {};
        for (const [name, v] of Object.entries(values)) filled[name] = v !== null && typeof v === "object" ? v[lang] : v;
        out[lang] = format(M[key][index], filled);
      });
      return out;
    }

    const canonical = (flag) => data.canonical[flag] ?? flag;
    const lineFlags = (entry) => entry[1].map(([f]) => canonical(f));

    function settingsOf(lines) {
      const out = {};
      for (const [, pairs] of lines) {
        for (const [flag, values] of pairs) {
          const name = canonical(flag);
          if (data.plan_flags.includes(name) && values.length) out[name] = values[0];
        }
      }
      return out;
    }

    // configure.Settings: the planner's inputs as a command writes them ("" where it leaves them)
    const settingsKey = (s) => `${s.mem}|${s.kv}|${s.context}|${s.page}|${s.running}`;
    const settings = (s) => ({
      mem: s["--mem-fraction-static"] ?? "",
      kv: s["--kv-cache-dtype"] ?? "",
      context: s["--context-length"] ?? "",
      page: s["--page-size"] ?? "",
      running: s["--max-running-requests"] ?? "",
    });

    function link(flag, role) {
      const table = role === "router" ? data.router_links : data.links;
      return table[canonical(flag)] ?? null;
    }

    function line(entry, why, role) {
      const first = entry[1].length ? entry[1][0][0] : null;
      return { text: entry[0], why, link: first ? link(first, role) : null };
    }

    function choices() {
      const out = [];
      for (const model of data.models) {
        for (const hw of data.hardware) {
          for (const p of model.precisions) {
            for (const goal of data.goals) {
              for (const nodes of data.nodes) {
                for (const pd of model.pd ? [false, true] : [false]) {
                  out.push({ model: model.id, gpu: hw.id, precision: p.dtype, goal: goal.id, nodes, pd });
                }
              }
            }
          }
        }
      }
      return out;
    }

    // -------------------------------------------------------------------------- bases
    function matches(recipe, choice) {
      return (
        recipe.model === choice.model &&
        recipe.hardware.includes(choice.gpu) &&
        recipe.precision === choice.precision &&
        recipe.nodes === choice.nodes
      );
    }

    function base(choice) {
      const goal = goals.get(choice.goal);
      const found = [];
      if (choice.pd) {
        const deployments = new Map();
        for (const r of data.recipes) {
          if (r.deployment && r.model === choice.model) {
            if (!deployments.has(r.deployment)) deployments.set(r.deployment, {});
            deployments.get(r.deployment)[r.role] = r;
          }
        }
        for (const roles of deployments.values()) {
          const { prefill, decode, router } = roles;
          if (!(prefill && decode && router)) continue;
          if (matches(prefill, choice) && matches(decode, choice)) {
            const strategy = prefill.strategy;
            if (goal.strategies.includes(strategy) || NEUTRAL.includes(strategy)) {
              found.push([{ prefill, decode, router }, goal.strategies.includes(strategy)]);
            }
          }
        }
      } else {
        for (const r of data.recipes) {
          if (r.role !== "standalone" || r.program !== "launch_server" || !matches(r, choice)) continue;
          if (goal.strategies.includes(r.strategy) || NEUTRAL.includes(r.strategy)) found.push([{ standalone: r }, goal.strategies.includes(r.strategy)]);
        }
      }
      const exact = found.filter((f) => f[1]);
      return (exact.length ? exact : found.length ? found : [null])[0];
    }

    // -------------------------------------------------------------------------- compose
    function compose(choice) {
      const model = models.get(choice.model);
      const hw = hardware.get(choice.gpu);
      const precision = model.precisions.find((p) => p.dtype === choice.precision);
      const goal = goals.get(choice.goal);
      const result = {
        choice: { ...choice },
        status: "refused",
        title: null,
        why: [],
        notes: [],
        commands: [],
        related: [],
        section: model.section,
      };
      let notes = [];
      const found = base(choice);
      const roles = choice.pd ? ROLES_PD : ["standalone"];
      let commands;
      if (found !== null) {
        const [bases] = found;
        let changed;
        [commands, changed] = fromRecipes(bases, goal, roles, notes);
        const first = bases[roles[0]];
        result.title = first.title;
        result.status = changed ? "composed" : "recipe";
        if (first.strategy === "concurrency" && goal.id === "balanced") notes.push(message("cfg-note-concurrency"));
      } else {
        commands = fromPlanner(choice, model, hw, precision, goal, roles, notes, result);
        if (commands.length) result.status = "composed";
      }
      for (const command of commands) {
        if (command.plan !== null) command.plan = plan(choice, command.plan);
      }
      if (commands.length) {
        if (result.status !== "recipe") notes = [...notes, ...goalNotes(goal)];
        if (choice.nodes > 1) notes.push(message("cfg-note-multi-node"));
        if (choice.pd) notes.push(message("cfg-note-pd", { nodes: choice.nodes }));
        result.commands = commands;
      }
      result.notes = notes;
      result.headline = headline(result, goal);
      const used = new Set(commands.map((c) => c.recipe));
      result.related = data.recipes
        .filter((r) => r.model === choice.model && !used.has(r.id) && r.link && r.program === "launch_server")
        .map((r) => ({ id: r.id, title: r.title, link: r.link }));
      return result;
    }

    function headline(result, goal) {
      const title = result.title;
      if (result.status === "refused") return message("cfg-status-refused");
      if (result.status === "recipe") return message("cfg-status-recipe", { title });
      if (title !== null) return message("cfg-status-recipe-goal", { title, goal: goal.name });
      return message("cfg-status-composed");
    }

    function goalNotes(goal) {
      const notes = [];
      if (goal.id === "balanced") notes.push(message("cfg-note-balanced"));
      if (goal.id === "high-throughput") notes.push(message("cfg-note-high-throughput"));
      if (goal.id === "low-latency") notes.push(message("cfg-note-speculative"));
      return notes;
    }

    const goalReason = (goal) => message("cfg-why-goal", { scenario: goal.scenario, reason: goal.reason });

    function fromRecipes(bases, goal, roles, notes) {
      const commands = [];
      let changed = false;
      for (const role of roles) {
        const recipe = bases[role];
        const entries = recipe.lines.map((e) => [...e]);
        const why = entries.map(() => message("cfg-why-recipe", { title: recipe.title }));
        let touched = false;
        if (role !== "router") {
          for (const [text, pairs] of goal.lines) {
            const flag = canonical(pairs[0][0]);
            const reason = goalReason(goal);
            const same = entries.map((e, i) => [e, i]).filter(([e]) => lineFlags(e).length === 1 && lineFlags(e)[0] === flag).map(([, i]) => i);
            const shared = entries.map((e, i) => [e, i]).filter(([e]) => lineFlags(e).includes(flag) && e[1].length > 1).map(([, i]) => i);
            if (same.length) {
              const i = same[same.length - 1];
              if (entries[i][0] !== text) {
                notes.push(message("cfg-note-replaced", { goal: goal.name, old: entries[i][0], new: text }));
                entries[i] = [text, pairs];
                why[i] = reason;
                touched = true;
              }
            } else if (shared.length) {
              notes.push(message("cfg-note-kept", { goal: goal.name, old: entries[shared[shared.length - 1]][0], new: text }));
            } else {
              entries.push([text, pairs]);
              why.push(reason);
              touched = true;
            }
          }
        }
        commands.push(command(role, recipe, entries, touched ? why : null));
        changed = changed || touched;
      }
      return [commands, changed];
    }

    function render(module, lines, env, style) {
      const out = [];
      if (env.length && style === "export") {
        out.push(...env.map(([name, value]) => `export ${name}=${value}`));
        out.push("");
      }
      const prefix = env.length && style === "inline" ? env.map(([name, value]) => `${name}=${value} `).join("") : "";
      const program = `${prefix}python -m ${module}`;
      const oneLine = [program, ...lines].join(" ");
      if (lines.length <= 2 && oneLine.length <= ONE_LINE_MAX) out.push(oneLine);
      else out.push([program, ...lines.map((l) => INDENT + l)].join(" \\\n"));
      return out.join("\n");
    }

    function command(role, recipe, entries, why, module = null) {
      let text;
      let lines;
      if (recipe !== null && why === null) {
        text = recipe.text;
        lines = [];
      } else {
        const mod = module || (recipe ? recipe.module : MODULES.launch_server);
        text = render(mod, entries.map((e) => e[0]), recipe ? recipe.env : [], recipe ? recipe.env_style : "export");
        lines = entries.map((e, i) => line(e, why[i], role));
      }
      const out = {
        role,
        text,
        lines,
        recipe: recipe ? recipe.id : null,
        link: recipe ? recipe.link : null,
        recipe_notes: recipe ? recipe.notes : [],
        corrections: recipe ? recipe.corrections : [],
        plan: null,
      };
      if (role !== "router") out.plan = settingsOf(why !== null || recipe === null ? entries : recipe.lines);
      return out;
    }

    function plan(choice, s) {
      const set = settings(s);
      const tp = s["--tp-size"] ?? "";
      const ep = s["--ep-size"] ?? "";
      const key = `${choice.model}|${choice.gpu}|${choice.precision}|${tp}|${ep}|${settingsKey(set)}`;
      const found = data.plans[key];
      if (found === undefined || (found !== null && found.figures === undefined)) throw new Error(`no planner figures for ${key} in the export`);
      return { key, figures: found === null ? null : found.figures };
    }

    // the planner's numbers behind a plan key (the memory bar draws them)
    const planFigures = (key) => data.plans[key];

    function fromPlanner(choice, model, hw, precision, goal, roles, notes, result) {
      const why = result.why;
      const refuse = (key, values = {}) => {
        why.push(message(key, values));
        return [];
      };
      if (precision.path === null) return refuse("cfg-refused-no-checkpoint", { model: model.name, precision: precision.name });
      const set = settings(settingsOf(goal.lines));
      const native = model.native;
      if (set.context && native !== null && Number(set.context) > native) {
        return refuse("cfg-refused-context", { goal: goal.name, context: set.context, model: model.name, native: thousands(native) });
      }
      const defaults = data.defaults;
      const auto = data.autos[`${model.id}|${hw.id}|${precision.dtype}|${settingsKey(set)}`];
      if (auto === undefined) throw new Error(`no automatic TP for ${model.id}|${hw.id}|${precision.dtype} in the export`);
      if (auto === null) {
        // a value the planner does not take (a KV spelling no dtype of the KB has)
        const lines = goal.lines.filter(([, pairs]) => data.settings_flags.includes(canonical(pairs[0][0]))).map(([text]) => text);
        return refuse("cfg-refused-settings", { goal: goal.name, lines: lines.join(", ") });
      }
      let [tp, basis] = auto;
      const record = (t) => {
        const key = `${model.id}|${hw.id}|${precision.dtype}|${t}||${settingsKey(set)}`;
        if (data.plans[key] === undefined) throw new Error(`no planner result for ${key} in the export`);
        return data.plans[key];
      };
      if (basis === "unknown") {
        const probe = record("1");
        const missing = probe ? probe.missing : {};
        if ("memory" in missing) return refuse("cfg-refused-memory", { gpu: hw.name, fields: missing.memory.join(", ") });
        return refuse("cfg-refused-weights", { model: model.name, fields: (missing.weights || []).join(", ") });
      }
      const contextShown = thousands(set.context ? Number(set.context) : native ?? defaults.context);
      const gpus = hw.gpus_per_node;
      const nodes = choice.nodes;
      let tpWhy;
      if (nodes === 1) {
        if (basis === "none-fits") {
          const key = set.mem ? "cfg-refused-none-fits" : "cfg-refused-none-fits-default";
          return refuse(key, { model: model.name, precision: precision.name, context: contextShown, gpu: hw.name, fraction: set.mem });
        }
        if (gpus !== null && tp > gpus) return refuse("cfg-refused-more-nodes", { tp, gpu: hw.name, gpus, nodes: Math.ceil(tp / gpus) });
        tpWhy = message(basis === "weights-only" ? "cfg-why-tp-weights-only" : "cfg-why-tp", { context: contextShown });
        if (gpus === null && tp > 1) notes.push(message("cfg-note-node-size-unknown", { gpu: hw.name, tp }));
      } else {
        if (gpus === null) return refuse("cfg-refused-node-size", { gpu: hw.name });
        const single = tp;
        tp = nodes * gpus;
        if (data.layout[`${model.id}|${tp}`]) {
          return refuse("cfg-refused-layout", { nodes, tp, model: model.name, heads: model.heads });
        }
        const found = record(String(tp));
        if (found !== null && found.budget !== null && found.budget <= 0) {
          return refuse("cfg-refused-do-not-fit", { tp, weights: binarySize(found.weights), fraction: sig(found.fraction, 4), budget: binarySize(found.static) });
        }
        if (found !== null && found.tokens === 0) return refuse("cfg-refused-no-room", { tp });
        if ((basis === "headroom" || basis === "weights-only") && single <= gpus * (nodes - 1)) {
          notes.push(message("cfg-note-fewer-nodes", { nodes: Math.ceil(single / gpus), tp: single }));
        }
        tpWhy = message("cfg-why-tp-nodes", { nodes, gpus });
      }
      if (basis === "weights-only") notes.push(message("cfg-note-weights-only", { model: model.name }));
      const base = [];
      const reasons = [];
      for (const entry of plannerLines(model, precision, tp, set)) {
        base.push(entry);
        reasons.push(plannerReason(entry, model, precision, goal, tpWhy));
      }
      for (const [flag, value, key] of [
        ["--reasoning-parser", model.reasoning, "cfg-why-reasoning-parser"],
        ["--tool-call-parser", model.tool_call, "cfg-why-tool-parser"],
      ]) {
        if (value && !base.some((e) => lineFlags(e).includes(flag))) {
          base.push([`${flag} ${value}`, [[flag, [value]]]]);
          reasons.push(message(key));
        }
      }
      for (const [text, pairs] of goal.lines) {
        const flag = canonical(pairs[0][0]);
        if (base.some((e) => lineFlags(e).includes(flag))) continue;
        base.push([text, pairs]);
        reasons.push(goalReason(goal));
      }
      const present = new Set(base.flatMap((e) => lineFlags(e)));
      const missing = model.key_flags.filter((line, i) => !present.has(model.key_flag_names[i]));
      if (missing.length) notes.push(message("cfg-note-key-flags", { flags: missing.join(", "), layout: model.layout }));
      const commands = [];
      for (const role of roles) {
        if (role === "router") {
          const entries = data.router_lines.map((e) => [...e]);
          commands.push(command(role, null, entries, entries.map(() => message("cfg-why-router")), MODULES.launch_router));
          continue;
        }
        const entries = base.map((e) => [...e]);
        const roleWhy = [...reasons];
        const add = (text, reason) => {
          entries.push([text, flagsOf(text)]);
          roleWhy.push(reason);
        };
        if (nodes > 1) {
          const master = PD_MASTERS[role];
          add(`--nnodes ${nodes}`, message("cfg-why-nnodes", { nodes }));
          add("--node-rank <node-rank>", message("cfg-why-node-rank", { last: nodes - 1 }));
          add(`--dist-init-addr ${master}:${DIST_PORT}`, message("cfg-why-dist-init-addr", { master }));
        }
        if (role in PD_PORTS) {
          const host = PD_HOSTS[role];
          add(`--disaggregation-mode ${role}`, message("cfg-why-pd-mode"));
          add("--disaggregation-ib-device <ib-device>", message("cfg-why-pd-ib"));
          add(`--host ${host}`, message("cfg-why-pd-host", { host }));
          add(`--port ${PD_PORTS[role]}`, message("cfg-why-pd-port"));
        }
        commands.push(command(role, null, entries, roleWhy));
      }
      return commands;
    }

    // "--flag value": the composer's own lines hold one flag and at most one word
    function flagsOf(text) {
      const [flag, ...values] = text.split(" ");
      return [[flag, values]];
    }

    // launch.rule_max_running_requests: the --max-running-requests a rule adds to this TP's command
    function ruleMaxRunningRequests(model, tp) {
      for (const rule of model.rule_lines) {
        if (rule.flag === "--max-running-requests" && (rule.when === "always" || tp === 1)) return Number(rule.value);
      }
      return null;
    }

    // configure.Planner.launch_lines: handbook.calc.launch.launch_flags for the planner's plan of this TP
    // and these settings (planner.js's launchFlags), the rules' --max-running-requests sizing the plan too.
    // The composer gives no EP, --max-total-tokens or --swa-full-tokens-ratio: those flags never appear.
    function plannerLines(model, precision, tp, set) {
      const context = set.context ? Number(set.context) : model.native ?? data.defaults.context;
      const running = set.running ? Number(set.running) : ruleMaxRunningRequests(model, tp);
      const flags = [
        ["--model-path", precision.path],
        ["--tp-size", String(tp)],
      ];
      // the engine's default fraction is left to the engine; a given one is passed on (launch.number)
      if (set.mem) flags.push(["--mem-fraction-static", String(Number(set.mem))]);
      flags.push(["--kv-cache-dtype", set.kv || data.defaults.kv]);
      if (model.native === null || context !== model.native) flags.push(["--context-length", String(context)]);
      if (set.page) flags.push(["--page-size", String(Number(set.page))]);
      if (running !== null) flags.push(["--max-running-requests", String(running)]);
      const present = new Set(flags.map(([flag]) => flag));
      for (const rule of model.rule_lines) {
        if (present.has(rule.flag)) continue;
        if (rule.when === "multi-gpu") {
          if (tp > 1) flags.push([rule.flag, rule.value.replaceAll("{tp}", String(tp))]);
        } else if (rule.when === "always" || tp === 1) flags.push([rule.flag, rule.value]);
      }
      return flags.map(([flag, value]) => [`${flag} ${value}`, [[flag, [value]]]]);
    }

    function plannerReason(entry, model, precision, goal, tpWhy) {
      const flag = canonical(entry[1][0][0]);
      if (flag === "--model-path") {
        if (precision.basis === "checkpoint") return message("cfg-why-checkpoint", { precision: precision.name });
        const recipe = recipesById.get(precision.recipe);
        const key = precision.basis === "recipe" ? "cfg-why-checkpoint-recipe" : "cfg-why-checkpoint-unstated";
        return message(key, { title: recipe.title, precision: precision.name });
      }
      if (flag === "--tp-size") return tpWhy;
      if (flag === "--ep-size") return message("cfg-why-ep");
      if (goal.lines.some(([, pairs]) => canonical(pairs[0][0]) === flag)) return goalReason(goal);
      if (flag === "--context-length") return message("cfg-why-context");
      if (flag in model.rules) return message("cfg-why-rule", { rule: model.rules[flag] });
      return message("cfg-why-planner");
    }

    // ============================================================ Configurator.configure: the checker's verdict
    function configure(choice) {
      const result = compose(choice);
      const errors = [];
      for (const cmd of result.commands) {
        cmd.findings = checker.check(cmd.text, choice.model);
        const role = message(ROLE_KEYS[cmd.role]);
        for (const finding of cmd.findings) {
          if (finding.severity === "error") errors.push(message("cfg-refused-checker", { role, message: finding.message }));
        }
      }
      if (errors.length) Object.assign(result, { status: "refused", why: errors, notes: [], commands: [], headline: message("cfg-status-refused") });
      return result;
    }

    return { choices, configure, message, planFigures, models, hardware, goals };
  }

  const api = { create, format: { binarySize, thousands, sig } };
  root.HandbookConfigure = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
