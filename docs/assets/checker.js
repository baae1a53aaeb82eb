/* The handbook's command checker, for the browser (the command doctor and the configurator pages).
 *
 * This is handbook/checker/ (shell.py, argv.py, envcheck.py, predicates.py, check.py) and the parts of
 * Python it relies on (difflib's close matches, int(), float(), json.loads(), str() of numbers) written
 * again in JavaScript, function by function, in the same order. Every table it reads comes from the export
 * the build writes beside it (handbook/checker/export.py → assets/checker-data.json): the engine's parsers
 * and variable registry, the KB's rules and the checker's wording in both languages. tests/
 * test_doctor_parity.py runs both checkers on every command of the site and on generated variants of them
 * and compares every finding. Plain ES2020, no DOM: node runs it as it is.
 */
(function (root) {
  "use strict";

  // ------------------------------------------------------------------------------------------ Python
  // str.isspace(), which str.strip(), int() and float() strip
  const PY_SPACE = "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
  const STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, "g");
  const DIGIT = /\p{Nd}/u;

  function pyStrip(text) {
    return text.replace(STRIP, "");
  }

  // Unicode decimal digits → ASCII (int(), float() and Decimal() read any of them)
  function asciiDigits(text) {
    return text.replace(/\p{Nd}/gu, (ch) => {
      const code = ch.codePointAt(0);
      let zero = code;
      while (DIGIT.test(String.fromCodePoint(zero - 1))) zero -= 1;
      return String((code - zero) % 10);
    });
  }

  const INT_TEXT = /^[+-]?\p{Nd}+(?:_\p{Nd}+)*$/u;
  // sys.int_info.default_max_str_digits: int() refuses a text of more digits (signs and underscores aside)
  const MAX_STR_DIGITS = 4300;
  // int(text): a Python int, as a number (a BigInt beyond 2^53), or undefined where int() raises
  function pyInt(text) {
    const body = pyStrip(text);
    if (!INT_TEXT.test(body)) return undefined;
    const digits = asciiDigits(body.replace(/_/g, ""));
    if (digits.replace(/^[+-]/, "").length > MAX_STR_DIGITS) return undefined;
    const big = BigInt(digits);
    return big >= -9007199254740991n && big <= 9007199254740991n ? Number(big) : big;
  }

  const DIGITPART = "\\p{Nd}(?:_?\\p{Nd})*";
  const FLOAT_TEXT = new RegExp(
    `^[+-]?(?:(?:${DIGITPART})?\\.${DIGITPART}|${DIGITPART}\\.?)(?:[eE][+-]?${DIGITPART})?$`,
    "u",
  );
  const FLOAT_SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;
  // float(text), or undefined where float() raises
  function pyFloat(text) {
    const body = pyStrip(text);
    const special = FLOAT_SPECIAL.exec(body);
    if (special) {
      if (special[2].toLowerCase() === "nan") return NaN;
      return special[1] === "-" ? -Infinity : Infinity;
    }
    if (!FLOAT_TEXT.test(body)) return undefined;
    return Number(asciiDigits(body.replace(/_/g, "")));
  }

  // json.loads(text) as Python's C scanner reads it, one method per kind of value under the names of
  // json/scanner.py and json/decoder.py (scan_once, JSONObject, JSONArray, match_number, scanstring)
  const JSON_SPACE = " \t\n\r";
  const JSON_NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
  const JSON_CONSTANTS = [["null", null], ["true", true], ["false", false], ["NaN", NaN], ["Infinity", Infinity], ["-Infinity", -Infinity]];
  const JSON_ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
  // the nesting past which it gives up, as CPython's scanner does near its recursion limit (a RecursionError,
  // which argv.py catches with the decoding errors)
  const JSON_MAX_DEPTH = 900;

  class JsonScanner {
    constructor(text) {
      this.text = text;
      this.at = 0;
    }

    fail() {
      throw new SyntaxError("json");
    }

    skipSpace() {
      while (this.at < this.text.length && JSON_SPACE.includes(this.text[this.at])) this.at += 1;
    }

    scanOnce(depth) {
      if (depth > JSON_MAX_DEPTH) this.fail();
      this.skipSpace();
      const { text, at } = this;
      const ch = text[at];
      if (ch === "{") return this.jsonObject(depth);
      if (ch === "[") return this.jsonArray(depth);
      if (ch === '"') return this.scanString();
      for (const [word, result] of JSON_CONSTANTS) {
        if (text.startsWith(word, at)) {
          this.at += word.length;
          return result;
        }
      }
      return this.matchNumber();
    }

    jsonObject(depth) {
      const text = this.text;
      this.at += 1;
      const out = {};
      this.skipSpace();
      if (text[this.at] === "}") {
        this.at += 1;
        return out;
      }
      for (;;) {
        this.skipSpace();
        if (text[this.at] !== '"') this.fail();
        const key = this.scanString();
        this.skipSpace();
        if (text[this.at] !== ":") this.fail();
        this.at += 1;
        out[key] = this.scanOnce(depth + 1);
        this.skipSpace();
        if (text[this.at] === ",") {
          this.at += 1;
          continue;
        }
        if (text[this.at] === "}") {
          this.at += 1;
          return out;
        }
        this.fail();
      }
    }

    jsonArray(depth) {
      const text = this.text;
      this.at += 1;
      const out = [];
      this.skipSpace();
      if (text[this.at] === "]") {
        this.at += 1;
        return out;
      }
      for (;;) {
        out.push(this.scanOnce(depth + 1));
        this.skipSpace();
        if (text[this.at] === ",") {
          this.at += 1;
          continue;
        }
        if (text[this.at] === "]") {
          this.at += 1;
          return out;
        }
        this.fail();
      }
    }

    matchNumber() {
      JSON_NUMBER.lastIndex = this.at;
      const match = JSON_NUMBER.exec(this.text);
      if (!match) this.fail();
      this.at += match[0].length;
      if (match[1] || match[2]) return Number(match[0]);
      const integer = pyInt(match[0]);
      if (integer === undefined) this.fail(); // json.loads raises past 4,300 digits, as int() does
      return integer;
    }

    scanString() {
      const text = this.text;
      this.at += 1;
      let out = "";
      for (;;) {
        if (this.at >= text.length) this.fail();
        const ch = text[this.at];
        if (ch === '"') {
          this.at += 1;
          return out;
        }
        if (ch.charCodeAt(0) < 0x20) this.fail();
        if (ch === "\\") {
          const next = text[this.at + 1];
          if (next in JSON_ESCAPES) {
            out += JSON_ESCAPES[next];
            this.at += 2;
          } else if (next === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(this.at + 2, this.at + 6))) {
            out += String.fromCharCode(parseInt(text.slice(this.at + 2, this.at + 6), 16));
            this.at += 6;
          } else this.fail();
          continue;
        }
        out += ch;
        this.at += 1;
      }
    }
  }

  // The deepest nesting of arrays and objects outside strings, counted without recursion. Text nested more
  // than JSON_MAX_DEPTH + 1 deep (the scanner reads the outermost value at depth 0) raises in json.loads
  // whatever else it holds (a RecursionError if it is valid, a decoding error if not), so the recursive
  // scanner never has to go that deep to say so.
  function jsonNesting(text) {
    let depth = 0;
    let deepest = 0;
    let quoted = false;
    for (let i = 0; i < text.length; i += 1) {
      const ch = text[i];
      if (quoted) {
        if (ch === "\\") i += 1;
        else if (ch === '"') quoted = false;
      } else if (ch === '"') quoted = true;
      else if (ch === "[" || ch === "{") {
        depth += 1;
        deepest = Math.max(deepest, depth);
      } else if (ch === "]" || ch === "}") depth -= 1;
    }
    return deepest;
  }

  // json.loads(text): {value} of what it returns, undefined where it raises
  function pyJson(text) {
    if (jsonNesting(text) > JSON_MAX_DEPTH + 1) return undefined;
    const scanner = new JsonScanner(text);
    try {
      const result = scanner.scanOnce(0);
      scanner.skipSpace();
      if (scanner.at !== text.length) scanner.fail();
      return { value: result };
    } catch (err) {
      if (err instanceof SyntaxError) return undefined;
      throw err;
    }
  }

  const isDict = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const isNum = (v) => (typeof v === "number" || typeof v === "bigint");

  // ==, as Python compares the values the checker meets (True == 1 == 1.0; no str equals a number)
  function pyEq(a, b) {
    const numeric = (v) => isNum(v) || typeof v === "boolean";
    if (numeric(a) && numeric(b)) {
      if (typeof a === "bigint" || typeof b === "bigint") {
        const big = (v) => (typeof v === "bigint" ? v : Number.isInteger(Number(v)) ? BigInt(Number(v)) : null);
        const x = big(a);
        const y = big(b);
        return x !== null && y !== null && x === y;
      }
      return Number(a) === Number(b);
    }
    if (typeof a === "string" || typeof b === "string") return a === b;
    if (a === null || b === null) return a === b;
    if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => pyEq(x, b[i]));
    if (isDict(a) && isDict(b)) {
      const keys = Object.keys(a);
      return keys.length === Object.keys(b).length && keys.every((k) => k in b && pyEq(a[k], b[k]));
    }
    return a === b;
  }

  const pyIn = (value, list) => list.some((item) => pyEq(value, item));

  // repr(float): the shortest digits that read back, in Python's layout (exponent below 1e-4 and from 1e16)
  function floatRepr(x) {
    if (Number.isNaN(x)) return "nan";
    if (x === Infinity) return "inf";
    if (x === -Infinity) return "-inf";
    if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
    const [mantissa, exp] = x.toExponential().split("e");
    const e = Number(exp);
    const sign = mantissa.startsWith("-") ? "-" : "";
    const digits = mantissa.replace("-", "").replace(".", "");
    if (e < -4 || e >= 16) {
      const head = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
      return `${sign}${head}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
    }
    if (e < 0) return `${sign}0.${"0".repeat(-e - 1)}${digits}`;
    if (digits.length <= e + 1) return `${sign}${digits.padEnd(e + 1, "0")}.0`;
    return `${sign}${digits.slice(0, e + 1)}.${digits.slice(e + 1)}`;
  }

  // str(x) of an int (kind "int") or a float (kind "float")
  function pyNumber(x, kind) {
    if (typeof x === "bigint") return x.toString();
    return kind === "int" ? String(x) : floatRepr(x);
  }

  // json.dumps of a snapshot value (choices): ints and strings in the snapshot
  function pyJsonDumps(value) {
    if (value === null) return "null";
    if (value === true) return "true";
    if (value === false) return "false";
    if (typeof value === "number") return Number.isInteger(value) ? String(value) : floatRepr(value);
    if (typeof value === "string") return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(", ")}]`;
    return `{${Object.entries(value).map(([k, v]) => `${pyJsonDumps(k)}: ${pyJsonDumps(v)}`).join(", ")}}`;
  }

  // -------------------------------------------------------------------------------- difflib's matches
  function codePoints(text) {
    return Array.from(text);
  }

  function matchingSize(a, b) {
    // SequenceMatcher(None, a, b): the sum of get_matching_blocks' sizes (autojunk on, no junk function)
    const b2j = new Map();
    b.forEach((elt, i) => {
      if (!b2j.has(elt)) b2j.set(elt, []);
      b2j.get(elt).push(i);
    });
    if (b.length >= 200) {
      const ntest = Math.floor(b.length / 100) + 1;
      for (const [elt, idxs] of [...b2j]) if (idxs.length > ntest) b2j.delete(elt);
    }
    function longest(alo, ahi, blo, bhi) {
      let besti = alo;
      let bestj = blo;
      let bestsize = 0;
      let j2len = new Map();
      for (let i = alo; i < ahi; i += 1) {
        const next = new Map();
        for (const j of b2j.get(a[i]) || []) {
          if (j < blo) continue;
          if (j >= bhi) break;
          const k = (j2len.get(j - 1) || 0) + 1;
          next.set(j, k);
          if (k > bestsize) {
            besti = i - k + 1;
            bestj = j - k + 1;
            bestsize = k;
          }
        }
        j2len = next;
      }
      while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
        besti -= 1;
        bestj -= 1;
        bestsize += 1;
      }
      while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) {
        bestsize += 1;
      }
      return [besti, bestj, bestsize];
    }
    let total = 0;
    const queue = [[0, a.length, 0, b.length]];
    while (queue.length) {
      const [alo, ahi, blo, bhi] = queue.pop();
      const [i, j, k] = longest(alo, ahi, blo, bhi);
      if (k) {
        total += k;
        if (alo < i && blo < j) queue.push([alo, i, blo, j]);
        if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
      }
    }
    return total;
  }

  const ratioOf = (matches, length) => (length ? (2.0 * matches) / length : 1.0);

  function comparePoints(x, y) {
    const a = codePoints(x);
    const b = codePoints(y);
    for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
      const d = a[i].codePointAt(0) - b[i].codePointAt(0);
      if (d) return d;
    }
    return a.length - b.length;
  }

  // handbook.core.suggest.closest: difflib.get_close_matches(name, options, n=1, cutoff=0.6), with the options
  // compared in the order of an upper bound of their ratio (the letters they share with the name: difflib's
  // quick_ratio), stopping once the bound falls below the best ratio found
  const CUTOFF = 0.6;
  function letterCounts(points) {
    const counts = new Map();
    for (const elt of points) counts.set(elt, (counts.get(elt) || 0) + 1);
    return counts;
  }

  function closest(name, options) {
    const b = codePoints(name);
    const bcount = letterCounts(b);
    const bounded = [];
    for (const x of options) {
      const a = codePoints(x);
      const length = a.length + b.length;
      if (!length) {
        bounded.push([1.0, x, a]);
        continue;
      }
      if (ratioOf(Math.min(a.length, b.length), length) < CUTOFF) continue;
      let shared = 0;
      for (const [elt, count] of letterCounts(a)) shared += Math.min(count, bcount.get(elt) || 0);
      const bound = ratioOf(shared, length);
      if (bound >= CUTOFF) bounded.push([bound, x, a]);
    }
    bounded.sort((p, q) => q[0] - p[0]);
    let best = null;
    for (const [bound, x, a] of bounded) {
      if (best !== null && bound < best[0]) break;
      const score = ratioOf(matchingSize(a, b), a.length + b.length);
      if (score >= CUTOFF && (best === null || score > best[0] || (score === best[0] && comparePoints(x, best[1]) > 0))) best = [score, x];
    }
    return best === null ? null : best[1];
  }

  // ------------------------------------------------------------------------------------------ wording
  function format(template, values) {
    // str.format with named fields only (the catalogue's and the rules' wording)
    return template.replace(/\{\{|\}\}|\{(\w+)\}/g, (whole, name) => {
      if (whole === "{{") return "{";
      if (whole === "}}") return "}";
      const value = values[name];
      if (value === null) return "None";
      if (value === true) return "True";
      if (value === false) return "False";
      return String(value);
    });
  }

  const LANGS = ["zh", "en"];

  // list.extend: a spread (push(...items)) overflows the stack past some hundred thousand items
  function extend(target, items) {
    for (const item of items) target.push(item);
    return target;
  }

  // ================================================================================= the checker
  // sizer (optional): { planner: planner.js's HandbookPlanner, data: the planner's export } sizes a command on
  // an accelerator (sizing.py); without it, a check with an accelerator is not sized.
  function create(data, sizer = null) {
    const M = data.messages;
    const VERSION = data.version;
    // the checker's fixed tables, from the export (handbook/checker/export.py TABLES): none is typed here
    const table = (name) => {
      if (!data.tables || !Object.prototype.hasOwnProperty.call(data.tables, name)) throw new Error(`checker data: no table ${name} (handbook/checker/export.py TABLES)`);
      return data.tables[name];
    };

    // handbook.core.messages.message: both languages, a {zh, en} value giving each its own part
    function message(key, values = {}) {
      if (!Object.prototype.hasOwnProperty.call(M, key)) throw new Error(`checker data: no message ${key} (handbook/checker/export.py MESSAGE_DOMAINS)`);
      const out = {};
      LANGS.forEach((lang, index) => {
        const filled = {};
        for (const [name, v] of Object.entries(values)) filled[name] = v !== null && typeof v === "object" ? v[lang] : v;
        out[lang] = format(M[key][index], filled);
      });
      return out;
    }

    // findings.py IMPACTS: errors refuse to start, warnings will misbehave, security advice, then style
    const IMPACTS = table("IMPACTS");
    const IMPACT_OF = table("IMPACT_OF");

    // core/suggest.py Suggestions: one check's "did you mean": each distinct name once per list, and at most
    // data.suggestions names in all
    function suggestions() {
      const found = new Map();
      let left = data.suggestions;
      return (name, pool, options) => {
        const key = `${pool}\u0000${name}`;
        if (!found.has(key)) {
          if (left <= 0) return null;
          left -= 1;
          found.set(key, closest(name, options));
        }
        return found.get(key);
      };
    }

    const finding = (severity, code, text, line = null, subject = null, link = null, rule = null) => ({
      severity,
      code,
      message: text,
      line,
      subject,
      link,
      rule,
      edits: [],
      edit_line: null,
      impact: IMPACT_OF[severity],
    });

    // ---------------------------------------------------------------------------------- the parsers
    const PARSERS = {};
    for (const [name, raw] of Object.entries(data.parsers)) {
      const options = raw.options.map((o) => ({
        option_strings: o.s,
        dest: o.d,
        type: o.t ?? null,
        choices: o.c ?? null,
        nargs: o.n ?? null,
        const: o.k ?? null,
        default: o.v ?? null,
        action: o.a ?? "store",
        required: Boolean(o.r),
        deprecated: "x" in o,
        replacement: o.x || null,
      }));
      for (const option of options) {
        const longs = option.option_strings.filter((s) => s.startsWith("--"));
        option.name = longs.length ? longs[0] : option.option_strings.length ? option.option_strings[0] : option.dest;
      }
      const bySpelling = new Map();
      for (const option of options) for (const s of option.option_strings) if (!bySpelling.has(s)) bySpelling.set(s, option);
      const byDest = new Map();
      for (const option of options) {
        if (!byDest.has(option.dest)) byDest.set(option.dest, []);
        byDest.get(option.dest).push(option);
      }
      PARSERS[name] = {
        name,
        prefixChars: raw.prefix_chars,
        allowAbbrev: raw.allow_abbrev,
        modules: raw.modules,
        options,
        bySpelling,
        byDest,
        spellings: [...bySpelling.keys()],
        abbreviations: new Map(),
        get(spelling) {
          return bySpelling.get(spelling.split("=")[0]) || null;
        },
        has(spelling) {
          return bySpelling.has(spelling.split("=")[0]);
        },
      };
    }
    const COMMANDS = data.commands.map(([words, program]) => [words, program]).sort((x, y) => y[0].length - x[0].length);
    const MODULE_PROGRAMS = data.modules;
    const MODULE_NAMES = Object.keys(MODULE_PROGRAMS);

    // ======================================================================== shell.py: the lexer
    const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
    const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/;
    const PLACEHOLDER = /<[A-Za-z][A-Za-z0-9_.:/ -]*>/y;
    const PLACEHOLDER_ANY = /<[A-Za-z][A-Za-z0-9_.:/ -]*>/g;
    const SPECIAL_PARAMETER = /[0-9@*#?$!-]/y;
    const SEPARATORS = ["&&", "||", ";", "|", "&", "(", ")"];
    const PLAIN_RUN = /[^\\'"$`<>#&|;() \t\r\n]+/y;
    const INTERPRETER = /^(?:[^\n]*\/)?python(?:3(?:\.\p{Nd}+)?)?\n?$/u;

    class ShellSyntaxError extends Error {
      constructor(problem, line) {
        super(problem.en);
        this.problem = problem;
        this.line = line;
      }
    }

    const word = (text, raw, line, placeholder = false) => ({ text, raw, line, placeholder });

    function matchAt(re, text, at) {
      re.lastIndex = at;
      return re.exec(text);
    }

    function placeholderIn(text, start, end) {
      PLACEHOLDER_ANY.lastIndex = 0;
      const part = text.slice(start, end);
      return PLACEHOLDER_ANY.test(part);
    }

    // shell.py _Lexer: shell text → words and separators ("\n", ";", "&&", …), one method per quoting
    // context, with the same names in the same order
    class Lexer {
      constructor(text) {
        this.text = text;
        this.at = 0;
        this.line = 1;
        this.out = [];
        this.unquoted = [];
        this.typed = [];
        this.startLine = 1;
        this.inWord = false;
        this.placeholder = false;
        this.dropNextWord = false;
      }

      wordsAndSeparators() {
        const text = this.text;
        while (this.at < text.length) {
          const ch = text[this.at];
          if (ch === "\\") this.backslash();
          else if (ch === "'") this.singleQuoted();
          else if (ch === '"') this.doubleQuoted();
          else if (ch === "$") this.dollar();
          else if (ch === "`") this.backquoted();
          else if (ch === "<" && matchAt(PLACEHOLDER, text, this.at)) this.anglePlaceholder();
          else if (ch === "<" || ch === ">") this.redirection();
          else if (ch === "#" && !this.inWord) this.comment();
          else if (" \t\r".includes(ch)) {
            this.endWord();
            this.at += 1;
          } else if (ch === "\n") {
            this.endWord();
            this.out.push("\n");
            this.line += 1;
            this.at += 1;
          } else if ("&|;()".includes(ch)) this.separator();
          else {
            const run = matchAt(PLAIN_RUN, text, this.at);
            const end = run ? this.at + run[0].length : this.at + 1;
            this.add(text.slice(this.at, end), text.slice(this.at, end));
            this.at = end;
          }
        }
        this.endWord();
        return this.out;
      }

      add(unquoted, typed) {
        if (!this.inWord) {
          this.inWord = true;
          this.startLine = this.line;
        }
        this.unquoted.push(unquoted);
        this.typed.push(typed);
      }

      endWord() {
        if (this.inWord) {
          if (this.dropNextWord) this.dropNextWord = false;
          else this.out.push(word(this.unquoted.join(""), this.typed.join(""), this.startLine, this.placeholder));
        }
        this.unquoted = [];
        this.typed = [];
        this.inWord = false;
        this.placeholder = false;
      }

      backslash() {
        const { text, at } = this;
        if (text.startsWith("\\\n", at)) {
          this.line += 1;
          this.at += 2;
        } else if (at + 1 < text.length) {
          this.add(text[at + 1], text.slice(at, at + 2));
          this.at += 2;
        } else {
          this.add("", "\\");
          this.at += 1;
        }
      }

      singleQuoted() {
        const { text, at } = this;
        const end = text.indexOf("'", at + 1);
        if (end < 0) throw new ShellSyntaxError(message("check-shell-unterminated-single-quote"), this.line);
        this.add(text.slice(at + 1, end), text.slice(at, end + 1));
        this.placeholder = this.placeholder || placeholderIn(text, at + 1, end);
        this.line += countNewlines(text, at, end);
        this.at = end + 1;
      }

      doubleQuoted() {
        const text = this.text;
        this.add("", '"');
        let at = this.at + 1;
        for (;;) {
          if (at >= text.length) throw new ShellSyntaxError(message("check-shell-unterminated-double-quote"), this.startLine);
          const c = text[at];
          if (c === '"') {
            this.add("", '"');
            this.at = at + 1;
            return;
          }
          if (c === "\\" && at + 1 < text.length && '"\\$`\n'.includes(text[at + 1])) {
            if (text[at + 1] === "\n") {
              this.line += 1;
              this.add("", text.slice(at, at + 2));
            } else this.add(text[at + 1], text.slice(at, at + 2));
            at += 2;
            continue;
          }
          if (c === "$") {
            const after = this.expansion(at);
            if (after !== null) {
              at = after;
              continue;
            }
          }
          if (c === "<" && matchAt(PLACEHOLDER, text, at)) this.placeholder = true;
          if (c === "\n") this.line += 1;
          this.add(c, c);
          at += 1;
        }
      }

      dollar() {
        const after = this.expansion(this.at);
        if (after === null) {
          this.add("$", "$");
          this.at += 1;
        } else this.at = after;
      }

      expansion(at) {
        const text = this.text;
        const afterDollar = text.slice(at + 1, at + 2);
        let last;
        if (afterDollar === "{" || afterDollar === "(") {
          last = closingBracket(text, at + 1);
        } else {
          const name = matchAt(NAME, text, at + 1) || matchAt(SPECIAL_PARAMETER, text, at + 1);
          if (!name) return null;
          last = at + name[0].length;
        }
        const chunk = text.slice(at, last + 1);
        this.add(chunk, chunk);
        this.placeholder = true;
        this.line += countNewlines(chunk, 0, chunk.length);
        return last + 1;
      }

      backquoted() {
        const { text, at } = this;
        const end = text.indexOf("`", at + 1);
        const last = end < 0 ? text.length - 1 : end;
        const chunk = text.slice(at, last + 1);
        this.add(chunk, chunk);
        this.placeholder = true;
        this.line += countNewlines(chunk, 0, chunk.length);
        this.at = last + 1;
      }

      anglePlaceholder() {
        const match = matchAt(PLACEHOLDER, this.text, this.at);
        this.add(match[0], match[0]);
        this.placeholder = true;
        this.at += match[0].length;
      }

      redirection() {
        const text = this.text;
        if (this.inWord && isPyDigits(this.typed.join(""))) this.inWord = false;
        this.endWord();
        let at = this.at + 1;
        while (at < text.length && "<>&|".includes(text[at])) at += 1;
        if (text[at - 1] === "&" && at < text.length && isPyDigits(text[at])) {
          while (at < text.length && isPyDigits(text[at])) at += 1;
        } else this.dropNextWord = true;
        this.at = at;
      }

      comment() {
        const end = this.text.indexOf("\n", this.at);
        this.at = end < 0 ? this.text.length : end;
      }

      separator() {
        const { text, at } = this;
        this.endWord();
        if (text.startsWith("&>", at)) {
          this.at += 1;
          return;
        }
        const separator = SEPARATORS.find((s) => text.startsWith(s, at));
        this.out.push(separator);
        this.at += separator.length;
      }
    }

    function lex(text) {
      return new Lexer(text).wordsAndSeparators();
    }

    // str.isdigit() of the characters the lexer meets: decimal digits and the superscript/other digits
    const PY_DIGITS = /^[\p{Nd}\u00b2\u00b3\u00b9\u2070\u2074-\u2079\u2080-\u2089\u2460-\u2468\u2474-\u247c\u2488-\u2490\u24ea\u24f5-\u24fd\u24ff\u2776-\u277e\u2780-\u2788\u278a-\u2792\u1369-\u1371\u19da\u{10a40}-\u{10a43}\u{10e60}-\u{10e68}\u{11052}-\u{1105a}\u{1f100}-\u{1f10a}]+$/u;
    function isPyDigits(text) {
      return text.length > 0 && PY_DIGITS.test(text);
    }

    function countNewlines(text, start, end) {
      let n = 0;
      for (let i = start; i < end; i += 1) if (text[i] === "\n") n += 1;
      return n;
    }

    // shell.py _closing_bracket: nested brackets counted, one inside quotes or after a backslash is text
    function closingBracket(text, opening) {
      const open = text[opening];
      const close = open === "(" ? ")" : "}";
      let depth = 0;
      let at = opening;
      while (at < text.length) {
        const ch = text[at];
        if (ch === "\\") {
          at += 2;
          continue;
        }
        if (ch === "'" || ch === '"') {
          at = afterQuote(text, at);
          continue;
        }
        if (ch === open) depth += 1;
        else if (ch === close) {
          depth -= 1;
          if (depth === 0) return at;
        }
        at += 1;
      }
      return text.length - 1;
    }

    // shell.py _after_quote
    function afterQuote(text, at) {
      const quote = text[at];
      at += 1;
      while (at < text.length && text[at] !== quote) at += quote === '"' && text[at] === "\\" ? 2 : 1;
      return Math.min(at + 1, text.length);
    }

    function splitCommands(text) {
      const commands = [];
      let current = [];
      for (const item of lex(text)) {
        if (typeof item !== "string") {
          current.push(item);
          continue;
        }
        if (current.length) {
          commands.push({ words: current, line: current[0].line, endLine: current[current.length - 1].line });
          current = [];
        }
      }
      if (current.length) commands.push({ words: current, line: current[0].line, endLine: current[current.length - 1].line });
      return commands;
    }

    // ======================================================================== shell.py: structure
    const env = (name, value, how, line) => ({ name, value, how, line });

    function assignment(w, how) {
      const match = ASSIGNMENT.exec(w.text);
      if (!match) return null;
      const [, name, value] = match;
      const eq = w.raw.indexOf("=");
      const rawValue = eq >= 0 ? w.raw.slice(eq + 1) : value;
      return env(name, word(value, rawValue, w.line, w.placeholder), how, w.line);
    }

    const SHELL = data.shell;
    const NAME_FULL = /^[A-Za-z_][A-Za-z0-9_]*$/;

    function partition(text, sep) {
      const at = text.indexOf(sep);
      return at < 0 ? [text, "", ""] : [text.slice(0, at), sep, text.slice(at + sep.length)];
    }

    // shell.py _name: the program a word names, without its folder
    const nameOf = (w) => w.text.slice(w.text.lastIndexOf("/") + 1);

    function headAt(words, at, head) {
      if (at + head.length > words.length || nameOf(words[at]) !== head[0]) return false;
      return head.every((part, k) => k === 0 || words[at + k].text === part);
    }

    // shell.py _options: a launcher's options, each a switch unless takesValue names it
    function options(words, at, takesValue, envOptions) {
      const found = [];
      const envs = [];
      let i = at;
      while (i < words.length) {
        const w = words[i];
        if (!w.text.startsWith("-") || w.text === "-") break;
        found.push(w);
        const [name, hasValue, value] = partition(w.text, "=");
        const attached = envOptions.find((o) => !o.startsWith("--") && name.startsWith(o) && name.length > o.length) ?? null;
        if (envOptions.includes(name) || attached !== null) {
          let target = null;
          if (attached !== null) target = word(w.text.slice(attached.length), w.text.slice(attached.length), w.line);
          else if (hasValue) target = word(value, value, w.line, w.placeholder);
          else if (i + 1 < words.length) target = words[i + 1];
          if (target !== null) {
            let assigned = assignment(target, "docker");
            if (assigned === null && NAME_FULL.test(target.text)) assigned = env(target.text, null, "docker", target.line);
            if (assigned !== null) envs.push(assigned);
          }
        }
        if (!hasValue && attached === null && takesValue.includes(name) && i + 1 < words.length) {
          found.push(words[i + 1]);
          i += 1;
        }
        i += 1;
      }
      return [i, found, envs];
    }

    function docker(words, at) {
      const head = SHELL.docker_run.find((h) => headAt(words, at, h));
      if (head === undefined) return null;
      const [i, found, envs] = options(words, at + head.length, SHELL.docker_values, SHELL.docker_env);
      const image = i < words.length ? words[i] : null;
      return [{ options: found, image }, Math.min(i + 1, words.length), envs];
    }

    const dockerHas = (run, name) => run.options.some((w) => w.text === name || w.text.startsWith(`${name}=`));

    const LAUNCHERS = SHELL.launchers
      .map(([head, takesValue, switchesOnly, operands, envOptions, doubleDash]) => ({ head, takesValue, switchesOnly, operands, envOptions, doubleDash }))
      .sort((x, y) => y.head.length - x.head.length);
    const LAUNCHER_FIRST = new Set(LAUNCHERS.map((l) => l.head[0]));
    const KEYWORDS = new Set(SHELL.keywords);
    const SHELLS = SHELL.shells;

    function startsCommand(w) {
      const name = nameOf(w);
      return (
        INTERPRETER.test(w.text) ||
        LAUNCHER_FIRST.has(name) ||
        SHELLS.includes(name) ||
        ["torchrun", "sglang", "docker", "ssh", "eval"].includes(name) ||
        assignment(w, "prefix") !== null
      );
    }

    function skipOptions(words, i, takesValue) {
      while (i < words.length) {
        const text = words[i].text;
        if (text === "--") return i + 1;
        if (!text.startsWith("-") || text === "-") return i;
        const following = i + 1 < words.length ? words[i + 1] : null;
        const takes = following !== null && !text.includes("=") && !following.text.startsWith("-");
        i += takes && (takesValue.includes(text) || !startsCommand(following)) ? 2 : 1;
      }
      return i;
    }

    function launcherAt(words, at) {
      if (!LAUNCHER_FIRST.has(nameOf(words[at]))) return null;
      return LAUNCHERS.find((l) => headAt(words, at, l.head)) ?? null;
    }

    function afterLauncher(words, at, launcher, envs) {
      if (launcher.doubleDash) {
        for (let i = at; i < words.length; i += 1) if (words[i].text === "--") return i + 1;
      }
      let i;
      if (launcher.switchesOnly) {
        const [end, , found] = options(words, at, launcher.takesValue, launcher.envOptions);
        envs.push(...found);
        i = end < words.length && words[end].text === "--" ? end + 1 : end;
      } else i = skipOptions(words, at, launcher.takesValue);
      return Math.min(i + launcher.operands, words.length);
    }

    // shell.py unwrap: every launcher in front of a command, outermost first, without recursion
    function unwrap(words) {
      const out = { start: 0, env: [], own: 0, docker: null, dockerLine: 0 };
      let i = 0;
      while (i < words.length && KEYWORDS.has(words[i].text)) i += 1;
      while (i < words.length) {
        const w = words[i];
        const assigned = assignment(w, "prefix");
        if (assigned !== null) {
          out.env.push(assigned);
          i += 1;
          continue;
        }
        const launcher = launcherAt(words, i);
        if (launcher !== null) {
          i = afterLauncher(words, i + launcher.head.length, launcher, out.env);
          continue;
        }
        const found = docker(words, i);
        if (found === null) break;
        const [run, inner, dockerEnv] = found;
        if (out.docker === null) {
          out.docker = run;
          out.dockerLine = w.line;
        }
        out.env.push(...dockerEnv);
        out.own = out.env.length;
        i = inner;
      }
      out.start = i;
      return out;
    }

    function joined(words) {
      const text = words.map((w) => w.text).join(" ");
      return word(text, text, words[0].line, words.some((w) => w.placeholder));
    }

    // shell.py _script: the shell text bash -c, ssh HOST or eval hands to a shell
    function scriptOf(words, at) {
      if (at >= words.length) return null;
      const name = nameOf(words[at]);
      if (SHELLS.includes(name)) {
        for (let i = at + 1; i < words.length; i += 1) {
          const text = words[i].text;
          if (text.startsWith("-") && !text.startsWith("--") && text.includes("c") && i + 1 < words.length) return words[i + 1];
          if (!text.startsWith("-")) return null;
        }
        return null;
      }
      if (name === "ssh") {
        const [i] = options(words, at + 1, SHELL.ssh_values, []);
        return i + 1 < words.length ? joined(words.slice(i + 1)) : null;
      }
      if (name === "eval" && at + 1 < words.length) return joined(words.slice(at + 1));
      return null;
    }

    const TORCHRUN_SWITCHES = table("TORCHRUN_SWITCHES");

    function torchrun(words) {
      let i = 1;
      while (i < words.length) {
        const text = words[i].text;
        if (text === "-m" || text === "--module") return i + 1 < words.length ? [i + 1, words[i + 1].text] : null;
        if (!text.startsWith("-")) return null;
        i += text.includes("=") || TORCHRUN_SWITCHES.includes(text) ? 1 : 2;
      }
      return null;
    }

    const invocation = (kind, line, extra = {}) => ({
      kind,
      line,
      program: null,
      module: null,
      launcher: null,
      args: [],
      env: [],
      docker: null,
      ...extra,
    });

    function moduleInvocation(w, module, args, envs, line) {
      if (module in MODULE_PROGRAMS) return invocation("program", line, { module, launcher: w, args, env: envs });
      if (["sglang", "sglang_router"].includes(module.split(".")[0])) return invocation("module", line, { module, launcher: w, args, env: envs });
      return null;
    }

    function classify(words, peeled) {
      const found = commandOf(words.slice(peeled.start), peeled.env.slice(peeled.own));
      if (peeled.docker === null) return found;
      const outer = peeled.env.slice(0, peeled.own);
      if (found === null) return invocation("docker", peeled.dockerLine, { env: outer, docker: peeled.docker });
      found.docker = peeled.docker;
      found.env = [...outer, ...found.env];
      found.line = peeled.dockerLine;
      return found;
    }

    // shell.py _command: what a command without launchers runs
    function commandOf(words, envs) {
      if (!words.length) return null;
      const line = words[0].line;
      if (words[0].text.startsWith("--")) return invocation("fragment", line, { program: "launch_server", args: words, env: envs });
      const first = words[0].text;
      if (first === "torchrun") {
        const torch = torchrun(words);
        if (torch === null) return null;
        const [at, module] = torch;
        return moduleInvocation(words[at], module, words.slice(at + 1), envs, line);
      }
      if (INTERPRETER.test(first)) {
        let i = 1;
        while (i < words.length) {
          const text = words[i].text;
          if (text === "-m" && i + 1 < words.length) return moduleInvocation(words[i + 1], words[i + 1].text, words.slice(i + 2), envs, line);
          if (text.startsWith("-m") && text.length > 2) return moduleInvocation(words[i], text.slice(2), words.slice(i + 1), envs, line);
          if ((text === "-X" || text === "-W") && i + 1 < words.length) {
            i += 2;
            continue;
          }
          if (text.startsWith("-")) {
            i += 1;
            continue;
          }
          return null;
        }
        return null;
      }
      for (const [head, program] of COMMANDS) {
        if (headAt(words, 0, head)) return invocation("program", line, { program, launcher: words[0], args: words.slice(head.length), env: envs });
      }
      return envs.length ? invocation("prefix-only", line, { env: envs }) : null;
    }

    const MENTION = new RegExp(SHELL.mention, "u");
    const QUOTING = new Set(SHELL.quoting);

    function quotesCommands(words) {
      if (QUOTING.has(nameOf(words[0]))) return true;
      if (INTERPRETER.test(words[0].text) && words.length > 2 && words[1].text === "-m") return SHELL.quoting_modules.includes(words[2].text);
      return false;
    }

    function parseScript(text, depth = 0) {
      const script = { invocations: [], assignments: [], orphans: [], unseen: [] };
      let ranProgram = false;
      let lastFragment = null;
      let lastEnd = -1;
      for (const command of splitCommands(text)) {
        const words = command.words;
        const peeled = unwrap(words);
        const nested = scriptOf(words, peeled.start);
        if (nested !== null) {
          lastFragment = null;
          if (depth >= SHELL.nesting) {
            if (MENTION.test(nested.raw)) script.unseen.push({ line: command.line, behind: words[peeled.start], tooDeep: true });
            continue;
          }
          const inner = parseScript("\n".repeat(nested.line - 1) + nested.text, depth + 1);
          for (const found of inner.invocations) {
            found.env = [...peeled.env, ...found.env];
            found.docker = found.docker || peeled.docker;
          }
          if (peeled.docker !== null && !inner.invocations.length) inner.invocations.push(invocation("docker", peeled.dockerLine, { docker: peeled.docker }));
          script.assignments.push(...peeled.env, ...inner.assignments);
          script.invocations.push(...inner.invocations);
          script.orphans.push(...inner.orphans);
          script.unseen.push(...inner.unseen);
          ranProgram = ranProgram || inner.invocations.some((f) => f.kind === "program");
          continue;
        }
        if (words[0].text === "export") {
          for (const w of words.slice(1)) {
            const assigned = assignment(w, "export");
            if (assigned !== null) script.assignments.push(assigned);
          }
          lastFragment = null;
          continue;
        }
        const found = classify(words, peeled);
        if (found === null || found.kind === "docker" || found.kind === "prefix-only") {
          const rest = words.slice(peeled.start);
          if (rest.length && !quotesCommands(rest) && MENTION.test(rest.map((w) => w.raw).join(" "))) {
            script.unseen.push({ line: command.line, behind: rest[0], tooDeep: false });
          }
        }
        if (found === null) {
          lastFragment = null;
          continue;
        }
        script.assignments.push(...found.env);
        if (found.kind === "prefix-only") {
          lastFragment = null;
          continue;
        }
        if (found.kind === "program" && found.module !== null) found.program = MODULE_PROGRAMS[found.module];
        if (found.kind === "fragment") {
          if (ranProgram) {
            script.orphans.push(command);
            continue;
          }
          if (lastFragment !== null && command.line === lastEnd + 1) {
            lastFragment.args.push(...found.args);
            lastEnd = command.endLine;
            continue;
          }
          lastFragment = found;
          lastEnd = command.endLine;
        } else {
          lastFragment = null;
          ranProgram = ranProgram || found.kind === "program";
        }
        script.invocations.push(found);
      }
      return script;
    }

    // ======================================================================== argv.py
    const UNKNOWN = Object.freeze({ unknown: true });
    const NEGATIVE_NUMBER = /^-\p{Nd}+\n?$|^-\p{Nd}*\.\p{Nd}+\n?$/u;
    const HUMAN_INT = /^(\p{Nd}+(?:\.\p{Nd}+)?)(Ki|Mi|Gi|Ti|k|M|G|T)$/u;
    const SI_POWERS = table("SI_POWERS");
    const IEC_POWERS = table("IEC_POWERS");
    const JSON_TYPES = table("JSON_TYPES");
    const GOODPUT_SLO_METRICS = table("GOODPUT_SLO_METRICS");
    const RETIRED_CUDA_GRAPH_BACKEND = table("RETIRED_CUDA_GRAPH_BACKEND");

    class BadValue extends Error {
      constructor(expected) {
        super(expected.en);
        this.expected = expected;
      }
    }

    const small = (big) => (big >= -9007199254740991n && big <= 9007199254740991n ? Number(big) : big);

    function humanReadableInt(text) {
      const value = pyStrip(text);
      const match = HUMAN_INT.exec(value);
      if (match) {
        const number = asciiDigits(match[1]);
        const suffix = match[2];
        if (suffix in IEC_POWERS) {
          if (number.includes(".")) {
            const si = suffix === "Ki" ? "k" : suffix[0];
            throw new BadValue(message("check-expect-iec-without-decimals", { iec: suffix, number: match[1], si }));
          }
          if (number.length > MAX_STR_DIGITS) throw new BadValue(message("check-expect-human-int"));
          return small(BigInt(number) * 2n ** BigInt(IEC_POWERS[suffix]));
        }
        return small(decimalTimesPowerOfTen(number, SI_POWERS[suffix]));
      }
      const parsed = pyInt(value);
      if (parsed === undefined) throw new BadValue(message("check-expect-human-int"));
      return parsed;
    }

    // int(Decimal(number) * 10**k) in Python's default context: the product's coefficient rounded to 28
    // significant digits (half to even), then truncated toward zero
    function decimalTimesPowerOfTen(number, k) {
      const [whole, frac = ""] = number.split(".");
      let coefficient = BigInt(whole + frac) * 10n ** BigInt(k);
      let exponent = -frac.length;
      const length = coefficient.toString().length;
      if (length > 28) {
        const drop = 10n ** BigInt(length - 28);
        const kept = coefficient / drop;
        const rest = coefficient % drop;
        const half = drop / 2n;
        coefficient = rest > half || (rest === half && kept % 2n === 1n) ? kept + 1n : kept;
        exponent += length - 28;
      }
      return exponent >= 0 ? coefficient * 10n ** BigInt(exponent) : coefficient / 10n ** BigInt(-exponent);
    }

    function positiveFloat(text) {
      let value = pyFloat(text);
      if (value === undefined) value = NaN;
      if (!Number.isFinite(value) || value <= 0) throw new BadValue(message("check-expect-positive"));
      return value;
    }

    function convert(option, text) {
      const kind = option.type;
      if (kind === "int") {
        const value = pyInt(text);
        if (value === undefined) throw new BadValue(message("check-expect-integer"));
        return value;
      }
      if (kind === "float") {
        const value = pyFloat(text);
        if (value === undefined) throw new BadValue(message("check-expect-number"));
        return value;
      }
      if (kind === "human_readable_int") return humanReadableInt(text);
      if (JSON_TYPES.includes(kind)) {
        const parsed = pyJson(text);
        if (parsed === undefined) throw new BadValue(message("check-expect-json"));
        if (kind === "parse_cuda_graph_config_arg" && !isDict(parsed.value)) throw new BadValue(message("check-expect-json-object"));
        return parsed.value;
      }
      if (kind === "_finite_positive_float") return positiveFloat(text);
      if (kind === "_goodput_slo") {
        const [name, , number] = partition(text, ":");
        if (!GOODPUT_SLO_METRICS.includes(name)) throw new BadValue(message("check-expect-goodput-slo", { keys: GOODPUT_SLO_METRICS.join(", ") }));
        return [name, positiveFloat(number)];
      }
      if (kind === "parse_cuda_graph_backend_arg" && text === RETIRED_CUDA_GRAPH_BACKEND) throw new BadValue(message("check-expect-cuda-graph-backend"));
      if (kind === "nullable_str") return !text || text === "None" ? null : text;
      return text;
    }

    const shownChoice = (value) => (typeof value === "string" ? value : pyJsonDumps(value));

    const PROGRAM_LABEL = {
      launch_server: "python -m sglang.launch_server",
      launch_router: "python -m sglang_router.launch_router",
      bench_serving: "python -m sglang.benchmark.serving",
    };

    function looksLikeOption(parser, text) {
      if (!text || !parser.prefixChars.includes(text[0]) || text.length === 1) return false;
      if (parser.has(text)) return true;
      if (NEGATIVE_NUMBER.test(text)) return false;
      return !text.includes(" ");
    }

    // argv.py spellings_abbreviated_by: remembered per prefix that has a match (a small set: the spellings'
    // own prefixes), so that thousands of flags cost thousands of lookups
    function abbreviated(parser, token) {
      const prefix = token.split("=")[0];
      if (!parser.allowAbbrev || !prefix.startsWith("--")) return [];
      if (parser.abbreviations.has(prefix)) return [...parser.abbreviations.get(prefix)];
      const found = parser.spellings.filter((s) => s.startsWith(prefix));
      if (found.length) parser.abbreviations.set(prefix, found);
      return [...found];
    }

    function otherPrograms(parser, name) {
      return Object.values(PARSERS)
        .filter((p) => p !== parser && p.get(name) !== null)
        .map((p) => p.name);
    }

    function parsedArgs(parser) {
      return {
        parser,
        given: new Map(),
        order: [],
        hidden: [],
        isSet(dest) {
          return this.given.has(dest);
        },
        value(dest) {
          if (this.given.has(dest)) return this.given.get(dest).value;
          const options = parser.byDest.get(dest);
          if (!options) throw new KeyError(`${parser.name} has no option with dest ${dest}`);
          return options[0].default;
        },
      };
    }

    class KeyError extends Error {}

    function unexpected(w, label) {
      return finding("error", "args.unexpected", message("check-args-unexpected", { program: label, word: w.raw }), w.line, w.text);
    }

    function unknown(parser, w, name, label, suggest) {
      const elsewhere = otherPrograms(parser, name);
      if (elsewhere.length) {
        const where = elsewhere.map((p) => PROGRAM_LABEL[p]).join(" / ");
        return finding("error", "flag.wrong-program", message("check-flag-wrong-program", { flag: name, program: label, owners: where }), w.line, name);
      }
      const close = suggest(name, `flag:${parser.name}`, parser.spellings);
      const hint = close ? message("check-closest", { name: close }) : "";
      return finding("error", "flag.unknown", message("check-flag-unknown", { flag: name, program: label, version: VERSION, hint }), w.line, name);
    }

    function skipValues(parser, words, i) {
      while (i < words.length && !looksLikeOption(parser, words[i].text) && !words[i].text.startsWith("--")) i += 1;
      return i;
    }

    const COUNT = { null: "check-count-one", "+": "check-count-at-least-one" };

    function checkedValue(findings, option, spelling, w, suggest, label) {
      if (w.placeholder) return UNKNOWN;
      let value;
      try {
        value = convert(option, w.text);
      } catch (err) {
        if (!(err instanceof BadValue)) throw err;
        findings.push(finding("error", "value.type", message("check-value-type", { flag: spelling, value: w.raw, expected: err.expected }), w.line, spelling));
        return UNKNOWN;
      }
      if (option.choices !== null && !pyIn(value, option.choices)) {
        const choices = option.choices.map(shownChoice);
        const kind = ["float", "_finite_positive_float"].includes(option.type) ? "float" : "int";
        const asText = typeof value === "string" ? value : isNum(value) ? pyNumber(value, kind) : pyStr(value);
        const close = suggest(asText, `choice:${label}:${option.name}`, choices);
        const hint = close ? message("check-did-you-mean", { name: close }) : "";
        findings.push(
          finding("error", "value.choice", message("check-value-choice", { flag: spelling, value: w.raw, choices: choices.join(", "), hint }), w.line, spelling),
        );
        return UNKNOWN;
      }
      return value;
    }

    // str() of a converted value that is not a str or a number (None, a bool, a JSON value)
    function pyStr(value) {
      if (value === null) return "None";
      if (value === true) return "True";
      if (value === false) return "False";
      if (typeof value === "number") return floatRepr(value);
      if (typeof value === "string") return `'${value}'`;
      if (Array.isArray(value)) return `[${value.map(pyStr).join(", ")}]`;
      return `{${Object.entries(value).map(([k, v]) => `'${k}': ${pyStr(v)}`).join(", ")}}`;
    }

    function record(parsed, findings, option, spelling, w, values, value) {
      const previous = parsed.given.get(option.dest);
      if (previous !== undefined && previous.option === option && option.action !== "append") {
        findings.push(
          finding("warning", "flag.repeated", message("check-flag-repeated", { flag: option.name, previous: previous.spelling, line: previous.word.line }), w.line, spelling),
        );
      }
      const given = { option, spelling, word: w, values, value };
      parsed.given.set(option.dest, given);
      parsed.order.push(given);
    }

    function takeValues(parsed, findings, parser, option, spelling, w, words, i, hasExplicit, explicit, label, suggest) {
      const nargs = option.nargs;
      let values = [];
      if (nargs === 0) {
        if (hasExplicit) {
          findings.push(finding("error", "flag.takes-no-value", message("check-switch-given-value", { flag: spelling, value: explicit }), w.line, spelling));
        } else if (i < words.length && !looksLikeOption(parser, words[i].text) && !words[i].text.startsWith("--")) {
          const stray = words[i];
          findings.push(finding("error", "flag.takes-no-value", message("check-switch-followed-by-value", { flag: spelling, value: stray.raw }), stray.line, spelling));
          i += 1;
        }
        let value = option.action !== "BooleanOptionalAction" ? option.const : !spelling.startsWith("--no-");
        if (option.action === "store_false") value = false;
        record(parsed, findings, option, spelling, w, [], value);
        return i;
      }
      if (hasExplicit) {
        values = [word(explicit, explicit, w.line, w.placeholder)];
      } else {
        const wantMin = { null: 1, "?": 0, "*": 0, "+": 1 }[String(nargs)] ?? (Number.isInteger(nargs) ? nargs : 1);
        const wantMax = nargs === null || nargs === "?" ? 1 : Number.isInteger(nargs) ? nargs : null;
        while (i < words.length && (wantMax === null || values.length < wantMax)) {
          const candidate = words[i];
          if (looksLikeOption(parser, candidate.text) || (candidate.text.startsWith("--") && !candidate.text.includes(" "))) break;
          values.push(candidate);
          i += 1;
        }
        if (values.length < wantMin) {
          const count = message(COUNT[String(nargs)] || "check-count-n", { n: nargs });
          findings.push(finding("error", "value.missing", message("check-value-missing", { flag: spelling, count, argparse: count.en }), w.line, spelling));
          return i;
        }
      }
      const converted = values.map((v) => checkedValue(findings, option, spelling, v, suggest, label));
      const single = nargs === null || nargs === "?";
      const value = single && converted.length ? converted[0] : converted.length ? converted : option.const;
      record(parsed, findings, option, spelling, w, values, value);
      return i;
    }

    function required(parsed, parser, words) {
      if (parsed.isSet("config") || parsed.isSet("help")) return [];
      const line = words.length ? words[0].line : null;
      return parser.options
        .filter((o) => o.required && !parsed.isSet(o.dest))
        .map((o) => finding("error", "args.required", message("check-args-required", { flag: o.name }), line, o.name));
    }

    // abbreviations.py: a prefix that matched one option in every stored release is a note
    const RELEASES = data.releases;
    function stableAbbreviation(program, prefix) {
      const spellings = RELEASES.spellings[program];
      if (!spellings || !RELEASES.count) return null;
      // every spelling of any stored release: this release's own, and the others'
      const matched = [...PARSERS[program].spellings, ...spellings.elsewhere].filter((s) => s.startsWith(prefix));
      if (matched.length !== 1) return null;
      return spellings.partial.includes(matched[0]) || spellings.elsewhere.includes(matched[0]) ? null : matched[0];
    }

    function abbreviation(program, name, full, label, w) {
      let f;
      if (stableAbbreviation(program, name) === full) {
        f = finding("note", "flag.abbreviation", message("check-flag-abbreviation-stable", { flag: name, full, count: RELEASES.count, releases: RELEASES.span }), w.line, name);
      } else {
        f = finding("warning", "flag.abbreviation", message("check-flag-abbreviation", { flag: name, program: label, full }), w.line, name);
      }
      f.edits = [["rename", name, full]];
      return f;
    }

    function parseArgs(program, words, fragment, suggest = suggestions()) {
      const parser = PARSERS[program];
      const parsed = parsedArgs(parser);
      const findings = [];
      const label = PROGRAM_LABEL[program];
      let i = 0;
      while (i < words.length) {
        const w = words[i];
        const text = w.text;
        i += 1;
        if (text === "--") {
          for (const stray of words.slice(i)) findings.push(unexpected(stray, label));
          break;
        }
        if (!looksLikeOption(parser, text)) {
          if (w.placeholder) parsed.hidden.push(w);
          else findings.push(unexpected(w, label));
          continue;
        }
        const [name, hasExplicit, explicit] = partition(text, "=");
        let option = parser.get(name);
        const spelling = name;
        if (option === null) {
          const spellings = abbreviated(parser, text);
          if (spellings.length > 1) {
            const shown = spellings.slice(0, 8).join(", ") + (spellings.length > 8 ? ` … (+${spellings.length - 8})` : "");
            findings.push(finding("error", "flag.ambiguous", message("check-flag-ambiguous", { flag: name, spellings: shown }), w.line, name));
            i = skipValues(parser, words, i);
            continue;
          }
          if (spellings.length === 1) {
            option = parser.get(spellings[0]);
            findings.push(abbreviation(program, name, spellings[0], label, w));
          } else {
            findings.push(unknown(parser, w, name, label, suggest));
            i = skipValues(parser, words, i);
            continue;
          }
        }
        i = takeValues(parsed, findings, parser, option, spelling, w, words, i, hasExplicit, explicit, label, suggest);
      }
      if (!fragment) extend(findings, required(parsed, parser, words));
      return [parsed, findings];
    }

    // ======================================================================== predicates.py
    function show(value) {
      if (value === null) return "—";
      if (typeof value === "boolean") return value ? "true" : "false";
      if (typeof value === "bigint") return value.toString();
      if (typeof value === "number") return Number.isInteger(value) ? BigInt(value).toString() : floatRepr(value);
      if (typeof value === "string") return value;
      return pyStr(value);
    }
    // _show of a value the checker knows to be an int (argparse's int type): str(int)
    const known = (...values) => values.every((v) => v !== UNKNOWN);
    const numberOf = (v) => (typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : null);

    // A predicate read a flag that a fragment does not write (Facts.written_only): not judged.
    class Unwritten extends Error {}

    function facts(program, args, dockerRun, model, environment, writtenOnly = false) {
      const optionDest = (flag) => {
        const option = args.parser.get(flag);
        if (option === null) throw new KeyError(flag);
        return option.dest;
      };
      const F = {
        program,
        args,
        docker: dockerRun,
        model,
        env: environment,
        dest(flag) {
          const dest = optionDest(flag);
          if (writtenOnly && !args.isSet(dest)) throw new Unwritten(flag);
          return dest;
        },
        given(flag) {
          return args.isSet(F.dest(flag));
        },
        isSet(flag) {
          if (!F.given(flag)) return false;
          const v = F.value(flag);
          return !(v === false || v === null || v === "" || (Array.isArray(v) && v.length === 0));
        },
        value(flag) {
          const dest = optionDest(flag);
          if (program === "launch_server") {
            // releases before --attn-dp-size read --dp-size N with --enable-dp-attention as N attention-DP groups
            const dpDest = args.parser.byDest.has("dp_size") ? "dp_size" : "data_parallel_size";
            const hasAttn = args.parser.byDest.has("attn_dp_size");
            if (
              (dest === "attn_dp_size" || dest === dpDest) &&
              args.isSet("enable_dp_attention") &&
              args.value("enable_dp_attention") === true &&
              (!hasAttn || pyEq(args.value("attn_dp_size"), 1) || !args.isSet("attn_dp_size"))
            ) {
              if (dest === "attn_dp_size" && writtenOnly && !args.isSet(dpDest)) throw new Unwritten("--dp-size");
              return dest === "attn_dp_size" ? args.value(dpDest) : 1;
            }
            F.dest(flag); // unwritten in a fragment: not judged
            if (dest === "speculative_algorithm") {
              const value = args.value(dest);
              return typeof value === "string" ? value.toUpperCase() : value;
            }
          }
          return args.value(F.dest(flag));
        },
      };
      return F;
    }

    function applies(params, F) {
      for (const [flag, values] of Object.entries(params.when || {})) {
        const value = F.value(flag);
        if (!known(value) || !pyIn(value, values)) return false;
      }
      for (const [flag, values] of Object.entries(params.unless || {})) {
        const value = F.value(flag);
        if (!known(value) || pyIn(value, values)) return false;
      }
      return true;
    }

    function loopback(host) {
      if (host === "localhost") return true;
      const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
      if (v4) {
        const parts = v4.slice(1);
        if (parts.some((p) => Number(p) > 255 || (p.length > 1 && p[0] === "0"))) return false;
        return parts[0] === "127";
      }
      return ipv6Loopback(host);
    }

    // ipaddress.ip_address(host).is_loopback for an IPv6 text: ::1 only (a scope id is allowed)
    function ipv6Loopback(host) {
      let text = host;
      const scope = text.indexOf("%");
      if (scope >= 0) {
        if (scope === text.length - 1) return false;
        text = text.slice(0, scope);
      }
      if (!/^[0-9A-Fa-f:.]+$/.test(text) || !text.includes(":")) return false;
      let groups;
      let tail = [];
      const lastColon = text.lastIndexOf(":");
      const last = text.slice(lastColon + 1);
      let head = text;
      if (last.includes(".")) {
        const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(last);
        if (!v4 || v4.slice(1).some((p) => Number(p) > 255 || (p.length > 1 && p[0] === "0"))) return false;
        const n = v4.slice(1).map(Number);
        tail = [(n[0] << 8) | n[1], (n[2] << 8) | n[3]];
        head = `${text.slice(0, lastColon + 1)}0`;
        tail = tail.map((x) => x);
        head = head.slice(0, -1);
        if (head.endsWith(":") && !head.endsWith("::")) head = head.slice(0, -1);
      }
      const doubled = head.split("::");
      if (doubled.length > 2) return false;
      const parse = (part) => (part === "" ? [] : part.split(":"));
      const left = parse(doubled[0]);
      const right = doubled.length === 2 ? parse(doubled[1]) : [];
      const all = [...left, ...right];
      if (all.some((g) => !/^[0-9A-Fa-f]{1,4}$/.test(g))) return false;
      const total = 8 - tail.length;
      if (doubled.length === 2) {
        if (left.length + right.length > total - 1) return false;
        groups = [...left, ...Array(total - left.length - right.length).fill("0"), ...right];
      } else {
        if (left.length !== total) return false;
        groups = left;
      }
      const numbers = [...groups.map((g) => parseInt(g, 16)), ...tail];
      return numbers.slice(0, 7).every((x) => x === 0) && numbers[7] === 1;
    }

    const SPECULATIVE = (params, F) => {
      const value = F.value("--speculative-algorithm");
      return known(value) && pyIn(value, params.algorithms) ? value : null;
    };

    const isPyInt = (v) => (typeof v === "number" && Number.isInteger(v)) || typeof v === "bigint" || typeof v === "boolean";

    const PREDICATES = {
      "flags-set": (p, F) => (p.flags.every((f) => F.isSet(f)) ? { flags: p.flags.join(" + ") } : null),
      "value-in": (p, F) => {
        const value = F.value(p.flag);
        return known(value) && pyIn(value, p.values) ? { value: show(value) } : null;
      },
      "env-set": (p, F) => {
        if (!(p.name in F.env)) return null;
        const value = F.env[p.name];
        if (p.values.length && (!known(value) || !pyIn(value, p.values))) return null;
        return { name: p.name, value: value === null || !known(value) ? "" : String(value) };
      },
      "requires-value": (p, F) => {
        const value = F.value(p.flag);
        const other = F.value(p.other);
        if (known(value, other) && pyIn(value, p.values) && !pyIn(other, p.allowed)) return { value: show(value), other_value: show(other) };
        return null;
      },
      "requires-minimum": (p, F) => {
        const value = F.value(p.flag);
        const other = numberOf(F.value(p.other));
        if (known(value) && other !== null && pyIn(value, p.values) && other < p.minimum) return { value: show(value), other_value: show(other) };
        return null;
      },
      "all-above": (p, F) => {
        const values = p.flags.map((f) => numberOf(F.value(f)));
        if (values.every((v) => v !== null && v > p.than)) return { values: p.flags.map((f, i) => `${f} ${show(values[i])}`).join(", ") };
        return null;
      },
      "not-divisible": (p, F) => {
        const parts = p.dividend.map((f) => numberOf(F.value(f)));
        const divisor = numberOf(F.value(p.divisor));
        if (parts.some((x) => x === null) || divisor === null || divisor <= 0) return null;
        const product = parts.reduce((a, b) => a * b, 1);
        if (product > 0 && pyMod(product, divisor) !== 0) return { dividend: show(product), divisor: show(divisor) };
        return null;
      },
      "a2a-ep-differs-from-tp": (p, F) => {
        const [backend, ep, tp] = ["--moe-a2a-backend", "--ep-size", "--tp-size"].map((f) => F.value(f));
        if (!known(backend, ep, tp) || !pyIn(backend, p.backends) || !F.given("--ep-size")) return null;
        return !pyEq(ep, tp) ? { backend, ep: show(ep), tp: show(tp) } : null;
      },
      "a2a-attn-dp-differs-from-tp": (p, F) => {
        const [backend, attnDp, tp] = ["--moe-a2a-backend", "--attn-dp-size", "--tp-size"].map((f) => F.value(f));
        if (known(backend, attnDp, tp) && pyIn(backend, p.backends) && !pyEq(attnDp, tp)) return { backend, attn_dp: show(attnDp), tp: show(tp) };
        return null;
      },
      "spec-running-requests-unset": (p, F) => {
        const algorithm = SPECULATIVE(p, F);
        return algorithm && !F.given("--max-running-requests") ? { algorithm } : null;
      },
      "eagle-params-without-steps": (p, F) => {
        const algorithm = SPECULATIVE(p, F);
        if (!algorithm || F.given("--speculative-num-steps") || F.isSet("--speculative-adaptive")) return null;
        const given = ["--speculative-eagle-topk", "--speculative-num-draft-tokens"].filter((f) => F.given(f));
        return given.length ? { algorithm, given: given.join(" / ") } : null;
      },
      "eagle-steps-without-topk": (p, F) => {
        const algorithm = SPECULATIVE(p, F);
        if (algorithm && F.given("--speculative-num-steps") && !F.given("--speculative-eagle-topk") && !F.isSet("--speculative-adaptive")) return { algorithm };
        return null;
      },
      "draft-tokens-adjusted": (p, F) => {
        if (!SPECULATIVE(p, F)) return null;
        const [topk, steps, draft] = ["--speculative-eagle-topk", "--speculative-num-steps", "--speculative-num-draft-tokens"].map((f) => F.value(f));
        if (!known(topk, steps, draft) || !pyEq(topk, 1) || !isPyInt(steps) || draft === null) return null;
        const next = typeof steps === "bigint" ? steps + 1n : Number(steps) + 1;
        if (!pyEq(draft, next)) return { draft: show(draft), steps: show(typeof steps === "boolean" ? Number(steps) : steps), adjusted: show(next) };
        return null;
      },
      "attn-dp-rescales": (p, F) => {
        const attnDp = numberOf(F.value("--attn-dp-size"));
        const value = numberOf(F.value(p.flag));
        if (attnDp === null || attnDp <= 1 || value === null || !F.given(p.flag)) return null;
        const adjusted = p.operation === "divide-by-attn-dp" ? pyFloorDiv(value, attnDp) : Number((value * p.factor).toFixed(6));
        return { value: show(value), attn_dp: show(attnDp), adjusted: show(adjusted) };
      },
      "public-host-without": (p, F) => {
        const host = F.value("--host");
        if (!known(host) || typeof host !== "string" || loopback(host) || F.isSet(p.flag)) return null;
        return { host };
      },
      "docker-option-missing": (p, F) => (F.docker !== null && !dockerHas(F.docker, p.option) ? { option: p.option } : null),
      "model-value-outside": (p, F) => {
        const value = F.value(p.flag);
        if (p.models.includes(F.model) && known(value) && !pyIn(value, p.allowed)) return { model: F.model, value: value === null ? "—" : show(value) };
        return null;
      },
      "model-value-below": (p, F) => {
        const value = numberOf(F.value(p.flag));
        if (p.models.includes(F.model) && F.given(p.flag) && value !== null && value < p.minimum) return { model: F.model, value: show(value) };
        return null;
      },
      exceeds: (p, F) => {
        const value = numberOf(F.value(p.flag));
        const other = numberOf(F.value(p.other));
        if (F.given(p.flag) && value !== null && other !== null && value > other) return { value: show(value), other_value: show(other) };
        return null;
      },
      "outside-range": (p, F) => {
        const value = numberOf(F.value(p.flag));
        if (!F.given(p.flag) || value === null) return null;
        const low = p.at_most !== null && value <= p.at_most;
        const high = p.at_least !== null && value >= p.at_least;
        return low || high ? { value: show(value) } : null;
      },
      "model-value-in": (p, F) => {
        if (!p.models.includes(F.model)) return null;
        for (const flag of p.flags) {
          const value = F.value(flag);
          if (known(value) && pyIn(value, p.values)) return { model: F.model, flag, value: show(value) };
        }
        return null;
      },
      "model-values-differ": (p, F) => {
        if (!p.models.includes(F.model)) return null;
        const values = p.flags.map((flag) => F.value(flag));
        if (!known(...values) || pyEq(values[0], values[1])) return null;
        return { model: F.model, values: p.flags.map((f, i) => `${f} ${show(values[i])}`).join(", ") };
      },
      "model-single-gpu-unset": (p, F) => {
        const sizes = ["--tp-size", "--pp-size", "--dp-size"].map((f) => numberOf(F.value(f)));
        if (!p.models.includes(F.model) || sizes.some((s) => s === null) || F.given(p.flag)) return null;
        return sizes.reduce((a, b) => a * b, 1) === 1 ? { model: F.model } : null;
      },
    };

    // Python's float // (CPython float_floor_div): exact where floor(a / b) rounds, and nan for an infinity
    function pyFloorDiv(a, b) {
      let mod = a % b;
      let div = (a - mod) / b;
      if (mod !== 0) {  // C reads NaN as true, JavaScript as false
        if (b < 0 !== mod < 0) {
          mod += b;
          div -= 1.0;
        }
      }
      if (div !== 0) {
        let floored = Math.floor(div);
        if (div - floored > 0.5) floored += 1.0;
        return floored;
      }
      return (a / b < 0 || Object.is(a / b, -0) ? -0 : 0);
    }

    // Python's float %: the result takes the divisor's sign
    function pyMod(a, b) {
      const r = a % b;
      return r !== 0 && (r < 0) !== (b < 0) ? r + b : r;
    }

    // ======================================================================== check.py
    const RULES = data.rules;
    // a rule whose predicate checker.js lacks would never fire here while Python's checker fires it: refuse the data
    for (const rule of RULES) {
      if (!Object.prototype.hasOwnProperty.call(PREDICATES, rule.predicate)) {
        throw new Error(`checker data: rule ${rule.id} uses predicate "${rule.predicate}", which checker.js does not implement (handbook/checker/predicates.py)`);
      }
    }
    const CHECKPOINTS = data.checkpoints;

    // check.py model_of: the model of the checkpoint --model-path names (sizing.py checkpoint_of)
    function modelOf(args) {
      const found = checkpointOf(args);
      return found === null ? null : found[0];
    }

    function pyLower(text) {
      return text.toLowerCase();
    }

    function placeholderNote(args) {
      const hidden = args.order.filter((g) => g.values.some((w) => w.placeholder) || g.word.placeholder);
      const shown = hidden.map((g) => `${g.spelling} ${g.values.map((w) => w.raw).join(" ")}`);
      shown.push(...args.hidden.map((w) => w.raw));
      if (!shown.length) return null;
      const line = [...hidden.map((g) => g.word.line), ...args.hidden.map((w) => w.line)].reduce((x, y) => Math.min(x, y));
      return finding("note", "value.placeholder", message("check-value-placeholder", { values: shown.join(", ") }), line);
    }

    function deprecated(args) {
      const out = [];
      for (const given of args.order) {
        const option = given.option;
        if (!option.deprecated) continue;
        const instead = option.replacement ? message("check-use-instead", { replacement: option.replacement }) : "";
        out.push(finding("warning", "flag.deprecated", message("check-flag-deprecated", { flag: option.name, version: VERSION, instead }), given.word.line, option.name));
      }
      return out;
    }

    // check.py one_cause: --dp N --enable-dp-attention is one finding with one fix
    function oneCause(args, findings) {
      const enable = args.parser.get("--enable-dp-attention");
      const dp = args.given.get("dp_size");
      if (enable === null || !enable.deprecated || dp === undefined || !dp.values.length) return findings;
      let attn;
      try {
        attn = args.value("attn_dp_size");
      } catch (err) {
        if (!(err instanceof KeyError)) throw err;
        attn = undefined;
      }
      if (args.value(enable.dest) !== true || !(attn === 1 || attn === null)) return findings;
      const flag = args.given.get(enable.dest);
      const merged = finding(
        "note",
        "flag.deprecated",
        message("check-dp-attention-old-spelling", { dp: dp.spelling, value: dp.values[0].raw, version: VERSION, enable: enable.name }),
        flag.word.line,
        enable.name,
      );
      merged.edits = [["drop", enable.name], ["rename", dp.spelling, "--attn-dp-size"]];
      const rest = findings.filter(
        (f) => !(f.code === "flag.abbreviation" && f.subject === dp.spelling) && !(f.code === "flag.deprecated" && f.subject === enable.name),
      );
      return [...rest, merged];
    }

    // ======================================================================== entrypoints.py
    const LIVES = RELEASES.modules;

    function spans(versions, stored) {
      const runs = [];
      for (const version of stored) {
        if (!versions.includes(version)) continue;
        if (runs.length && stored.indexOf(runs[runs.length - 1][runs[runs.length - 1].length - 1]) === stored.indexOf(version) - 1) runs[runs.length - 1].push(version);
        else runs.push([version]);
      }
      return runs.map((run) => (run.length === 1 ? run[0] : `${run[0]}–${run[run.length - 1]}`)).join(", ");
    }

    function replacementOf(name, version) {
      const life = LIVES[name];
      const candidates = life ? life.alias_of.map(([, target]) => target) : [];
      for (const [other, otherLife] of Object.entries(LIVES)) if (otherLife.alias_of.some(([, t]) => t === name)) candidates.push(other);
      for (const candidate of candidates) {
        const found = LIVES[candidate];
        if (found?.versions.includes(version)) return candidate;
      }
      return null;
    }

    function entryModuleFindings(inv, line) {
      const name = inv.module || "";
      if (!Object.prototype.hasOwnProperty.call(LIVES, name)) return null;
      const life = LIVES[name];
      const instead = replacementOf(name, VERSION);
      let hint = instead ? message("check-module-instead", { module: instead }) : "";
      if (life.versions.includes(VERSION)) {
        const alias = life.alias_of.find(([v]) => v === VERSION);
        if (alias) hint = message("check-module-alias", { module: alias[1] });
        return [finding("warning", "module.unchecked", message("check-module-unchecked", { module: name, version: VERSION, hint }), line, name)];
      }
      const releases = spans(life.versions, RELEASES.versions) || "—";
      return [finding("error", "module.absent", message("check-module-absent", { module: name, version: VERSION, releases, hint }), line, name)];
    }

    const MODEL_TYPE = table("MODEL_TYPE");
    const shortName = (path) => path.replace(/\/+$/, "").split("/").pop().toLowerCase();

    function isDiffusionModel(path, registered) {
      if (registered.includes(path)) return true;
      const short = shortName(path);
      return registered.some((known) => shortName(known) && short.includes(shortName(known)));
    }

    function serveArgv(inv) {
      const serve = RELEASES.serve;
      const words = [...inv.args];
      if (serve === null) return { words, findings: [], diffusion: null };
      const findings = [];
      let modelType = "auto";
      let kept = [];
      let i = 0;
      while (i < words.length) {
        const w = words[i];
        let given;
        if (w.text === MODEL_TYPE && i + 1 < words.length) {
          modelType = words[i + 1].text;
          i += 2;
          given = words[i - 1];
        } else if (w.text.startsWith(`${MODEL_TYPE}=`)) {
          modelType = partition(w.text, "=")[2];
          i += 1;
          given = w;
        } else {
          kept.push(w);
          i += 1;
          continue;
        }
        if (!given.placeholder && serve.model_types.length && !serve.model_types.includes(modelType)) {
          findings.push(
            finding("error", "serve.model-type", message("check-serve-model-type", { flag: MODEL_TYPE, value: modelType, version: VERSION, values: serve.model_types.join(", ") }), given.line, MODEL_TYPE),
          );
        }
      }
      if (serve.positional_model_path && kept.length && !kept[0].text.startsWith("-")) kept = [word("--model-path", "--model-path", kept[0].line), ...kept];
      let path = null;
      for (let index = 0; index < kept.length; index += 1) {
        const w = kept[index];
        if ((w.text === "--model-path" || w.text === "--model") && index + 1 < kept.length) {
          path = kept[index + 1];
          break;
        }
        if (w.text.startsWith("--model-path=") || w.text.startsWith("--model=")) {
          const value = partition(w.text, "=")[2];
          path = word(value, value, w.line, w.placeholder);
          break;
        }
      }
      let why = null;
      if (serve.diffusion_server) {
        if (modelType === "diffusion") why = message("check-serve-why-model-type", { flag: MODEL_TYPE });
        else if (modelType === "auto" && path !== null && !path.placeholder && isDiffusionModel(path.text, serve.diffusion_model_paths)) {
          why = message("check-serve-why-registry", { version: VERSION });
        }
      }
      if (why !== null) {
        const model = path !== null ? path.raw : "—";
        const line = inv.launcher ? inv.launcher.line : inv.line;
        findings.push(finding("warning", "serve.diffusion", message("check-serve-diffusion", { model, why }), line, "sglang serve"));
      }
      return { words: kept, findings, diffusion: why };
    }

    function moduleFindings(inv, suggest) {
      const w = inv.launcher;
      const line = w ? w.line : inv.line;
      const module = inv.module;
      if (inv.kind === "module") {
        const known = entryModuleFindings(inv, line);
        if (known !== null) return known;
        const close = suggest(module || "", "module", MODULE_NAMES);
        const hint = close ? message("check-did-you-mean", { name: close }) : "";
        const knownModules = [...MODULE_NAMES].sort(comparePoints).join(", ");
        return [finding("warning", "module.unknown", message("check-module-unknown", { module, known: knownModules, hint }), line, module)];
      }
      if (module === null || inv.program === null) return [];
      const alias = PARSERS[inv.program].modules[module];
      if (alias) {
        const f = finding("note", "module.deprecated", message("check-module-deprecated", { module, version: VERSION, replacement: alias }), line, module);
        f.edits = [["module", alias]];
        f.edit_line = inv.line;
        return [f];
      }
      return [];
    }

    function environment(assignments) {
      const out = {};
      for (const a of assignments) out[a.name] = a.value === null ? null : a.value.placeholder ? UNKNOWN : a.value.text;
      return out;
    }

    function ruleLine(args, flags, fallback) {
      const lines = [];
      for (const flag of flags) {
        const option = args.parser.get(flag);
        if (option !== null && args.given.has(option.dest)) lines.push(args.given.get(option.dest).word.line);
      }
      return lines.length ? Math.min(...lines) : fallback;
    }

    function ruleFinding(rule, values, line) {
      const zh = format(rule.message.zh, values).replace(/[。.]+$/, "");
      const en = format(rule.message.en, values).replace(/\.+$/, "");
      const f = finding(rule.severity, `rule.${rule.id}`, message("check-rule", { rule: { zh, en }, engine: rule.engine }), line, null, rule.link, rule.id);
      if (rule.security && rule.severity !== "error") f.impact = "security";
      return f;
    }

    function checkInvocation(inv, exported, model = null, gpu = null, suggest = suggestions()) {
      const findings = moduleFindings(inv, suggest);
      if (!["program", "fragment"].includes(inv.kind) || inv.program === null) return findings;
      const fragment = inv.kind === "fragment";
      let words = inv.args;
      if (inv.program === "launch_server" && inv.kind === "program" && inv.module === null) {
        const serve = serveArgv(inv); // sglang serve: its own reading of the argv first
        extend(findings, serve.findings);
        if (serve.diffusion !== null) return findings;
        words = serve.words;
      }
      const [args, parseFindings] = parseArgs(inv.program, words, fragment, suggest);
      extend(findings, parseFindings);
      extend(findings, deprecated(args));
      const merged = oneCause(args, findings).slice(); // a copy: oneCause may return `findings` itself
      findings.length = 0;
      extend(findings, merged);
      for (const f of findings) if (f.edits.length && f.edit_line === null) f.edit_line = inv.line;
      const note = placeholderNote(args);
      if (note !== null) findings.push(note);
      const F = facts(inv.program, args, inv.docker, model || modelOf(args), environment([...exported, ...inv.env]), fragment);
      for (const rule of RULES) {
        if (rule.program !== inv.program) continue;
        const test = PREDICATES[rule.predicate];
        let values;
        try {
          values = applies(rule.params, F) ? test(rule.params, F) : null;
        } catch (err) {
          if (err instanceof KeyError || err instanceof Unwritten) continue;
          throw err;
        }
        if (values !== null) findings.push(ruleFinding(rule, values, ruleLine(args, rule.flags, inv.line)));
      }
      if (gpu !== null && sizer !== null && inv.program === "launch_server" && !fragment) extend(findings, sizingFindings(args, gpu, inv.line));
      return findings;
    }

    // ======================================================================== envcheck.py
    const VARIABLES = new Map(data.environ.variables.map(([name, type, shown]) => [name, { type, shown }]));
    const VARIABLE_NAMES = [...VARIABLES.keys()];
    const DEPRECATED = new Map(data.environ.deprecated.map(([name, replacement, note]) => [name, { replacement, note }]));
    const REWRITE = data.environ.rewrite;
    const DIRECT_READS = data.environ.direct || {};
    const ENV_RESTS = VARIABLE_NAMES.filter((known) => known.startsWith(REWRITE.to)).map((known) => known.slice(REWRITE.to.length));
    const BOOL_WORDS = table("BOOL_WORDS");

    function expectedEnvValue(kind, value) {
      if (kind === "bool") return BOOL_WORDS.includes(value.toLowerCase()) ? null : message("check-expect-env-bool");
      if (kind === "int") return pyInt(value) === undefined ? message("check-expect-integer") : null;
      if (kind === "float") return pyFloat(value) === undefined ? message("check-expect-number") : null;
      if (kind === "json") {
        if (!value || value.startsWith("/") || value.startsWith("./") || value.startsWith("~")) return null;
        return pyJson(value) === undefined ? message("check-expect-env-json") : null;
      }
      return null;
    }

    function checkAssignment(a, suggest) {
      const { name, line, value } = a;
      const deprecation = DEPRECATED.get(name);
      if (deprecation !== undefined) {
        const instead = deprecation.replacement ? message("check-use-instead", { replacement: deprecation.replacement }) : "";
        const note = deprecation.note ? message("check-env-deprecation-note", { note: deprecation.note }) : "";
        return [finding("warning", "env.deprecated", message("check-env-deprecated", { name, version: VERSION, instead, note }), line, name)];
      }
      if (REWRITE.present && name.startsWith(REWRITE.from) && !name.startsWith(REWRITE.to)) {
        const renamed = REWRITE.to + name.slice(REWRITE.from.length);
        return [
          finding("warning", "env.legacy-prefix", message("check-env-legacy-prefix", { name, prefix: REWRITE.from, version: VERSION, new: renamed }), line, name),
          ...checkAssignment(env(renamed, value, a.how, line), suggest),
        ];
      }
      const variable = VARIABLES.get(name);
      if (variable !== undefined) {
        if (value === null || value.placeholder) return [];
        const expected = expectedEnvValue(variable.type, value.text);
        if (expected === null) return [];
        return [
          finding("warning", "env.type", message("check-env-type", { name, value: value.raw, expected, version: VERSION, default: variable.shown }), line, name),
        ];
      }
      const direct = Object.prototype.hasOwnProperty.call(DIRECT_READS, name) ? DIRECT_READS[name] : undefined;
      if (direct !== undefined) return [finding("note", "env.direct", message("check-env-direct", { name, version: VERSION, file: direct }), line, name)];
      if (name.startsWith(REWRITE.to)) {
        // envcheck.py: every candidate shares the prefix, so compare what follows it
        const prefix = REWRITE.to;
        const rest = suggest(name.slice(prefix.length), "env", ENV_RESTS);
        const close = rest ? prefix + rest : null;
        const hint = close ? message("check-did-you-mean", { name: close }) : "";
        return [finding("warning", "env.unknown", message("check-env-unknown", { name, version: VERSION, hint }), line, name)];
      }
      // an own property only: a variable named toString or constructor is not one the KB documents
      const reader = Object.prototype.hasOwnProperty.call(data.env_readers, name) ? data.env_readers[name] : undefined;
      if (reader === undefined) return [];
      return [finding("note", "env.foreign", message("check-env-foreign", { name, version: VERSION, reader: message(reader) }), line, name)];
    }


    // ======================================================================== deployment.py
    // Several commands of one text as one deployment: router targets, hosts, ports, PD roles, bootstrap
    // ports, the decode server's parsers, the nodes of one server.
    const DEPLOY_LINK = table("DEPLOY_LINK");
    const DEPLOY_ROLES = table("DEPLOY_ROLES");
    const SAME_ON_EVERY_NODE = table("SAME_ON_EVERY_NODE");
    const PD_PARSERS = table("PD_PARSERS");
    const URL_PARTS = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(\[[^\]]*\]|[^:/[\]]*)(?::([^/]*))?(\/.*)?$/i;

    const pyText = (v) => {
      if (v === null) return "";
      if (typeof v === "string") return v;
      if (typeof v === "boolean") return v ? "True" : "False";
      if (typeof v === "bigint") return v.toString();
      if (typeof v === "number") return Number.isInteger(v) ? String(v) : floatRepr(v);
      return pyStr(v);
    };
    const dValue = (text, placeholder = false, given = true) => ({ text, placeholder, given });

    function canonical(text) {
      const t = pyLower(pyStrip(text));
      if (/^\p{Nd}+$/u.test(t)) return BigInt(asciiDigits(t)).toString();
      return t.replace(/^[[\]]+|[[\]]+$/g, "");
    }

    function same(a, b) {
      if (a.placeholder || b.placeholder) return a.text === b.text ? true : null;
      return canonical(a.text) === canonical(b.text);
    }

    function flagValue(args, flag) {
      const option = args.parser.get(flag);
      if (option === null) return null;
      const given = args.given.get(option.dest);
      if (given === undefined) return dValue(pyText(args.value(option.dest)), false, false);
      if (!given.values.length) return dValue(pyText(given.value));
      return dValue(given.values[0].text, given.values[0].placeholder);
    }

    function integerOf(args, flag) {
      const option = args.parser.get(flag);
      if (option === null) return null;
      const value = args.value(option.dest);
      if (value === UNKNOWN || typeof value === "bigint" || (typeof value === "number" && Number.isInteger(value))) return value;
      return typeof value === "boolean" ? value : null;
    }

    function urlOf(w) {
      const match = URL_PARTS.exec(w.text);
      let host = w.text;
      let port;
      if (match) {
        host = match[1];
        port = match[2];
      }
      if (port === undefined) port = w.text.toLowerCase().startsWith("https://") ? "443" : "80";
      const hidden = (t) => t.includes("$") || t.includes("<");
      return [dValue(host, hidden(host)), dValue(port, hidden(port))];
    }

    function serverOf(inv, args) {
      const mode = flagValue(args, "--disaggregation-mode");
      const dist = flagValue(args, "--dist-init-addr");
      const rank = integerOf(args, "--node-rank");
      return {
        inv,
        args,
        line: inv.line,
        role: mode !== null && DEPLOY_ROLES.includes(mode.text) ? mode.text : "plain",
        host: flagValue(args, "--host") || dValue("127.0.0.1", false, false),
        port: flagValue(args, "--port") || dValue("30000", false, false),
        bootstrap: flagValue(args, "--disaggregation-bootstrap-port") || dValue("8998", false, false),
        dist: dist?.given ? dist : null,
        nnodes: integerOf(args, "--nnodes"),
        rank,
        servesHttp: rank === 0 || rank === UNKNOWN || !(typeof rank === "number" || typeof rank === "bigint" || typeof rank === "boolean") || rank === false,
        targeted: false,
      };
    }

    function routerOf(inv, args) {
      const router = { inv, args, line: inv.line, targets: [] };
      for (const given of args.order) {
        const flag = given.option.name;
        if (!["--prefill", "--decode", "--worker-urls"].includes(flag)) continue;
        const words = flag === "--worker-urls" ? given.values : given.values.slice(0, 1);
        for (const w of words) {
          const [host, port] = urlOf(w);
          let bootstrap = null;
          if (flag === "--prefill" && given.values.length > 1) {
            const extra = given.values[1];
            if (extra.text.toLowerCase() !== "none") bootstrap = dValue(extra.text, extra.placeholder);
          }
          const role = flag === "--prefill" ? "prefill" : flag === "--decode" ? "decode" : "plain";
          router.targets.push({ flag, word: w, host, port, bootstrap, role });
        }
      }
      return router;
    }

    function hostKind(host) {
      if (host.placeholder) return "unknown";
      const text = pyLower(pyStrip(host.text).replace(/^[[\]]+|[[\]]+$/g, ""));
      if (["", "0.0.0.0", "::"].includes(text)) return "any";
      return loopback(text) ? "loopback" : "literal";
    }

    function reaches(target, server) {
      const bound = hostKind(server);
      const to = hostKind(target);
      if (bound === "any") return true;
      if (bound === "loopback") return to === "loopback";
      if (bound === "literal") {
        if (to === "unknown") return null;
        return to === "literal" && canonical(target.text) === canonical(server.text);
      }
      return target.text === server.text ? true : null;
    }

    const portsMeet = (target, server) => same(target, server) !== false;
    const serves = (target, server) => portsMeet(target.port, server.port) && reaches(target.host, server.host) !== false;
    const said = (value, flag) => (value.given ? value.text : message("deploy-default", { value: value.text, flag }));
    const fixText = (edits) => edits.filter((e) => e[0] === "set").map((e) => `${e[1]} ${e[2]}`).join(" ");

    function deployFinding(severity, key, line, subject, edits, at, values) {
      const code = `deploy.${key.replace(/^deploy-/, "").split("-")[0]}`;
      const f = finding(severity, code, message(key, values), line, subject, DEPLOY_LINK);
      f.edits = edits;
      f.edit_line = at;
      return f;
    }

    function unmatchedTarget(target, servers) {
      const url = target.word.raw;
      const role = target.role;
      const line = target.word.line;
      const sameRole = servers.filter((s) => s.role === role && s.servesHttp);
      for (const server of sameRole) {
        if (portsMeet(target.port, server.port)) {
          const key = hostKind(server.host) === "loopback" ? "deploy-unreachable-loopback" : "deploy-unreachable-host";
          const severity = target.host.placeholder ? "warning" : "error"; // a placeholder may be this machine's loopback
          return [
            deployFinding(severity, key, line, target.flag, [["set", "--host", target.host.text]], server.line, {
              flag: target.flag, url, server_line: server.line, host: said(server.host, "--host"), target_host: target.host.text,
            }),
          ];
        }
      }
      for (const server of servers) {
        if (server.role !== role && server.servesHttp && reaches(target.host, server.host) === true && same(target.port, server.port) === true) {
          return [
            deployFinding("error", "deploy-role", line, target.flag, [], null, {
              flag: target.flag, url, server_line: server.line, server_role: server.role, role,
            }),
          ];
        }
      }
      const spare = sameRole.filter((s) => !s.targeted);
      if (spare.length === 1) {
        const server = spare[0];
        const edits = [["set", "--port", target.port.text]];
        if (reaches(target.host, server.host) === false) edits.push(["set", "--host", target.host.text]);
        server.targeted = true;
        return [
          deployFinding("error", "deploy-port", line, target.flag, edits, server.line, {
            flag: target.flag, url, server_line: server.line, port: said(server.port, "--port"), fix: fixText(edits),
          }),
        ];
      }
      if (sameRole.length || servers.some((s) => s.role !== role)) {
        return [deployFinding("error", "deploy-absent", line, target.flag, [], null, { flag: target.flag, url, role })];
      }
      return [];
    }

    function targetFindings(servers, routers) {
      const unmatched = [];
      for (const router of routers) {
        for (const target of router.targets) {
          let found = false;
          for (const server of servers) {
            if (server.role !== target.role || !server.servesHttp) continue;
            if (serves(target, server)) {
              server.targeted = true;
              found = true;
            }
          }
          if (!found) unmatched.push(target);
        }
      }
      const findings = [];
      for (const target of unmatched) findings.push(...unmatchedTarget(target, servers));
      return findings;
    }

    function pairing(servers, routers) {
      const roles = new Set(servers.map((s) => s.role));
      const wanted = new Set();
      for (const r of routers) for (const t of r.targets) if (DEPLOY_ROLES.includes(t.role)) wanted.add(t.role);
      const findings = [];
      DEPLOY_ROLES.forEach((role, index) => {
        const other = DEPLOY_ROLES[1 - index];
        if ((roles.has(role) || wanted.has(role)) && !roles.has(other) && !wanted.has(other)) {
          const first = servers.find((s) => s.role === role);
          const line = first ? first.line : routers.length ? routers[0].line : 1;
          findings.push(deployFinding("warning", "deploy-unpaired", line, "--disaggregation-mode", [], null, { role, missing: other }));
        }
      });
      return findings;
    }

    function bootstrapFindings(servers, routers) {
      const findings = [];
      const prefills = servers.filter((s) => s.role === "prefill" && s.servesHttp);
      const decodes = servers.filter((s) => s.role === "decode" && s.servesHttp);
      for (const router of routers) {
        for (const target of router.targets) {
          if (target.role !== "prefill") continue;
          for (const server of prefills) {
            if (!serves(target, server)) continue;
            if (target.bootstrap !== null) {
              if (same(target.bootstrap, server.bootstrap) === false) {
                findings.push(
                  deployFinding("error", "deploy-bootstrap-router", target.word.line, "--prefill", [["set", "--disaggregation-bootstrap-port", target.bootstrap.text]], server.line, {
                    url: target.word.raw, given: target.bootstrap.text, server_line: server.line, port: server.bootstrap.text,
                  }),
                );
              }
              continue;
            }
            for (const decode of decodes) {
              if (same(decode.bootstrap, server.bootstrap) === false) {
                findings.push(
                  deployFinding("error", "deploy-bootstrap-own", decode.line, "--disaggregation-bootstrap-port", [["set", "--disaggregation-bootstrap-port", server.bootstrap.text]], decode.line, {
                    url: target.word.raw, decode_line: decode.line, decode_port: decode.bootstrap.text, prefill_line: server.line, prefill_port: server.bootstrap.text,
                  }),
                );
              }
            }
          }
        }
      }
      if (!routers.length) {
        for (const prefill of prefills) {
          for (const decode of decodes) {
            if (same(decode.bootstrap, prefill.bootstrap) === false) {
              findings.push(
                deployFinding("warning", "deploy-bootstrap-apart", decode.line, "--disaggregation-bootstrap-port", [], null, {
                  decode_line: decode.line, decode_port: decode.bootstrap.text, prefill_line: prefill.line, prefill_port: prefill.bootstrap.text,
                }),
              );
            }
          }
        }
      }
      return findings;
    }

    function parserFindings(servers, routers) {
      if (routers.length && !routers.some((r) => r.targets.some((t) => t.role === "decode"))) return [];
      const findings = [];
      const prefills = servers.filter((s) => s.role === "prefill" && s.servesHttp);
      const decodes = servers.filter((s) => s.role === "decode" && s.servesHttp);
      for (const decode of decodes) {
        for (const flag of PD_PARSERS) {
          let wanted = null;
          for (const prefill of prefills) {
            const value = flagValue(prefill.args, flag);
            if (value?.given) {
              wanted = [prefill, value];
              break;
            }
          }
          if (wanted === null) continue;
          const [prefill, value] = wanted;
          const have = flagValue(decode.args, flag);
          if (have?.given && same(have, value) !== false) continue;
          findings.push(
            deployFinding("warning", "deploy-parsers", decode.line, flag, [["set", flag, value.text]], decode.line, {
              flag, value: value.text, prefill_line: prefill.line, decode_line: decode.line,
            }),
          );
        }
      }
      return findings;
    }

    function nodeFindings(servers) {
      const groups = new Map();
      const isInt = (v) => (typeof v === "number" && Number.isInteger(v)) || typeof v === "bigint";
      for (const server of servers) {
        if (server.dist === null) continue;
        if (!(isInt(server.nnodes) && server.nnodes > 1)) continue;
        const key = JSON.stringify([server.dist.text, server.role]);
        if (!groups.has(key)) groups.set(key, []);
        groups.get(key).push(server);
      }
      const findings = [];
      for (const [key, members] of groups) {
        const addr = JSON.parse(key)[0];
        const counts = [...new Set(members.map((m) => BigInt(m.nnodes)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        if (counts.length > 1) {
          findings.push(deployFinding("error", "deploy-nodes-count", members[0].line, "--nnodes", [], null, { addr, values: counts.map(String).join(", ") }));
          continue;
        }
        const ranks = new Map();
        for (const member of members) {
          if (!(isInt(member.rank) || typeof member.rank === "boolean")) continue;
          const rank = BigInt(member.rank);
          if (ranks.has(rank)) {
            findings.push(deployFinding("error", "deploy-nodes-rank", member.line, "--node-rank", [], null, { addr, rank: pyText(member.rank), first: ranks.get(rank).line }));
          }
          if (!ranks.has(rank)) ranks.set(rank, member);
        }
        for (const flag of SAME_ON_EVERY_NODE) {
          const values = members.map((m) => flagValue(m.args, flag));
          if (values.some((v) => v === null)) continue;
          if (values.some((a) => values.some((b) => same(a, b) === false))) {
            const shown = values.map((v, i) => `${v.text} (${members[i].line})`).join(", ");
            findings.push(deployFinding("error", "deploy-nodes-flags", members[0].line, flag, [], null, { addr, flag, values: shown }));
          }
        }
        const missing = [];
        if (counts[0] <= 1024n) for (let r = 0n; r < counts[0]; r += 1n) if (!ranks.has(r)) missing.push(r.toString());
        if (missing.length && ranks.size) {
          findings.push(deployFinding("note", "deploy-nodes-missing", members[0].line, "--node-rank", [], null, { addr, nnodes: counts[0].toString(), ranks: missing.join(", ") }));
        }
      }
      return findings;
    }

    function deploymentFindings(invocations) {
      const servers = [];
      const routers = [];
      for (const inv of invocations) {
        if (inv.kind !== "program" || !["launch_server", "launch_router"].includes(inv.program)) continue;
        const [args] = parseArgs(inv.program, inv.args, false);
        if (inv.program === "launch_server") servers.push(serverOf(inv, args));
        else routers.push(routerOf(inv, args));
      }
      if (servers.length + routers.length < 2) return [];
      return [
        ...targetFindings(servers, routers),
        ...pairing(servers, routers),
        ...bootstrapFindings(servers, routers),
        ...parserFindings(servers, routers),
        ...nodeFindings(servers),
      ];
    }

    // ======================================================================== findings.py + check_command
    const RANK = table("RANK");

    function ordered(findings) {
      return findings
        .map((f, i) => [f, i])
        .sort(
          (x, y) =>
            IMPACTS.indexOf(x[0].impact) - IMPACTS.indexOf(y[0].impact) ||
            (x[0].line || 0) - (y[0].line || 0) ||
            RANK[x[0].severity] - RANK[y[0].severity] ||
            x[1] - y[1],
        )
        .map(([f]) => f);
    }

    // check.py invisible_findings: one error per line holding a character the reader cannot see
    const INVISIBLE = new RegExp(`[${data.invisible.map(([start, end]) => `\\u{${start.toString(16)}}-\\u{${end.toString(16)}}`).join("")}]`, "u");
    const INVISIBLE_ALL = new RegExp(INVISIBLE.source, "gu");
    const codePoint = (ch) => `U+${ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
    const visible = (text) => text.replace(INVISIBLE_ALL, (ch) => `⟨${codePoint(ch)}⟩`);
    const SHOWN_BEFORE = 24;
    const SHOWN_AFTER = 40;

    const INVISIBLE_LINES = data.invisible_lines;

    function invisibleFindings(text) {
      const findings = [];
      const more = [];
      text.split("\n").forEach((line, index) => {
        if (!INVISIBLE.test(line)) return;
        if (findings.length === INVISIBLE_LINES) {
          more.push(index + 1);
          return;
        }
        const chars = codePoints(line);
        const found = [];
        chars.forEach((ch, at) => {
          if (INVISIBLE.test(ch)) found.push(at);
        });
        const points = [...new Set(found.map((at) => codePoint(chars[at])))];
        const start = Math.max(0, found[0] - SHOWN_BEFORE);
        const end = Math.min(chars.length, found[0] + SHOWN_AFTER);
        const shown = (start ? "…" : "") + visible(chars.slice(start, end).join("")) + (end < chars.length ? "…" : "");
        const listed = points.slice(0, 5).join(", ") + (points.length > 5 ? ", …" : "");
        findings.push(finding("error", "shell.invisible", message("check-shell-invisible", { points: listed, shown }), index + 1, points[0]));
      });
      if (more.length) {
        findings.push(finding("error", "shell.invisible", message("check-shell-invisible-more", { count: more.length, last: more[more.length - 1] }), more[0]));
      }
      return findings;
    }

    function checkCommand(text, model = null, gpu = null) {
      const findings = invisibleFindings(text);
      let script;
      try {
        script = parseScript(text);
      } catch (err) {
        if (!(err instanceof ShellSyntaxError)) throw err;
        findings.push(finding("error", "shell.syntax", message("check-shell-syntax", { problem: err.problem }), err.line));
        return ordered(findings);
      }
      for (const orphan of script.orphans) {
        const first = orphan.words[0];
        findings.push(finding("error", "shell.orphan-flags", message("check-shell-orphan-flags", { flag: first.text }), first.line, first.text));
      }
      for (const unseen of script.unseen) {
        const said = unseen.tooDeep
          ? message("check-shell-too-deep", { shell: visible(unseen.behind.text), depth: SHELL.nesting })
          : message("check-shell-unseen-program", { launcher: visible(unseen.behind.text) });
        findings.push(finding("error", unseen.tooDeep ? "shell.too-deep" : "shell.unseen-program", said, unseen.line, unseen.behind.text));
      }
      const suggest = suggestions();
      const exported = script.assignments.filter((a) => a.how === "export");
      for (const inv of script.invocations) extend(findings, checkInvocation(inv, exported, model, gpu, suggest));
      extend(findings, deploymentFindings(script.invocations));
      if (!(script.invocations.length || script.orphans.length || script.unseen.length)) extend(findings, uncheckedFlags(text));
      for (const a of script.assignments) extend(findings, checkAssignment(a, suggest));
      return ordered(findings);
    }

    // Flags in text that runs no program the checker knows: a warning, never a silent "no problems".
    // (Python's \w is Unicode: letters, digits and the underscore.)
    const FLAG_WORD = /(?<![\p{L}\p{N}_-])--[a-z][a-z0-9_-]*/gu;
    function uncheckedFlags(text) {
      const flags = [...new Set([...text.matchAll(FLAG_WORD)].map((m) => m[0]))];
      if (!flags.length) return [];
      const line = countNewlines(text, 0, text.indexOf(flags[0])) + 1;
      const shown = flags.slice(0, 3).join(", ") + (flags.length > 3 ? ", …" : "");
      return [finding("warning", "shell.no-program", message("check-shell-no-program", { flags: shown }), line, flags[0])];
    }

    // What `python -m handbook check` adds: whether the text holds anything the checker reads at all
    function understood(text) {
      try {
        const script = parseScript(text);
        return Boolean(script.invocations.length || script.assignments.length || script.orphans.length || script.unseen.length);
      } catch (err) {
        if (err instanceof ShellSyntaxError) return true;
        throw err;
      }
    }

    // ======================================================================== sizing.py
    const SIZING_LINK = table("SIZING_LINK");
    const LARGEST = table("LARGEST");
    const SIZED_INTEGERS = table("SIZED_INTEGERS");

    function checkpointOf(args) {
      if (!args.given.has("model_path")) return null;
      const value = args.given.get("model_path").value;
      if (value === UNKNOWN || typeof value !== "string") return null;
      const name = pyLower(value.replace(/\/+$/, "").split("/").pop());
      for (const [model, checkpoint, dtype] of CHECKPOINTS) {
        const lower = pyLower(checkpoint);
        if (pyLower(value) === lower || name === lower.split("/").pop()) return [model, dtype];
      }
      return null;
    }

    function givenInt(args, dest) {
      if (!args.given.has(dest)) return null;
      const value = args.given.get(dest).value;
      if (value === UNKNOWN || typeof value === "bigint" || (typeof value === "number" && Number.isInteger(value))) return value;
      return null;
    }

    function sizingFindings(args, gpu, line) {
      const { planner, data: pd } = sizer;
      const { binarySize, sig, thousands } = planner.format;
      const size = (n) => (n < 0 ? `-${binarySize(-n)}` : binarySize(n));
      const byId = (list, id) => list.find((item) => item.id === id);
      const hw = byId(pd.hardware, gpu);
      const note = (key, values, code = "sizing.unsized") => finding("note", code, message(key, values), line, null, SIZING_LINK);
      const found = checkpointOf(args);
      if (found === null) return [note("sizing-no-model", { gpu: hw.name })];
      const [modelId, dtypeId] = found;
      const model = byId(pd.models, modelId);
      const values = {};
      for (const dest of SIZED_INTEGERS) values[dest] = givenInt(args, dest);
      const fraction = args.given.has("mem_fraction_static") ? args.given.get("mem_fraction_static").value : null;
      const kvGiven = args.given.has("kv_cache_dtype") ? args.given.get("kv_cache_dtype").value : "auto";
      if (args.isSet("enable_dp_attention") && args.value("enable_dp_attention") === true) values.attn_dp_size = values.attn_dp_size || givenInt(args, "dp_size");
      if ([...Object.values(values), fraction, kvGiven].includes(UNKNOWN)) return [note("sizing-placeholder", { gpu: hw.name })];
      if (Object.values(values).some((v) => v !== null && v > LARGEST)) return [note("sizing-too-large", { gpu: hw.name, limit: thousands(LARGEST) })];
      if (fraction !== null && !(fraction > 0 && fraction < 1)) return [];
      if ((values.pp_size || 1) > 1) return [note("sizing-pipeline", { gpu: hw.name })];
      // bf16 and bfloat16 are one dtype to the engine; DeepSeek-V4's commands spell it bfloat16
      const spelled = (d) => d.engine_kv_value === kvGiven || pd.tables.DSV4_KV_SPELLINGS[d.engine_kv_value] === kvGiven;
      const kv = kvGiven !== "auto" ? pd.dtypes.find(spelled) : byId(pd.dtypes, pd.defaults.kv_dtype);
      if (kv === undefined) return [note("sizing-kv-unknown", { gpu: hw.name, kv: kvGiven })];
      const tp = values.tp_size || 1;
      const ep = values.ep_size || 1;
      let p;
      try {
        p = planner.plan(pd, model, hw, byId(pd.dtypes, dtypeId), kv, {
          tp,
          ep,
          mem_fraction_static: fraction,
          context: values.context_length,
          page_size: values.page_size,
          max_total_tokens: values.max_total_tokens,
          max_running_requests: values.max_running_requests,
        });
      } catch (err) {
        return [note("sizing-impossible", { gpu: hw.name, why: err.message })];
      }
      const what = message("sizing-what", { gpu: hw.name, model: model.name, dtype: byId(pd.dtypes, p.weights_dtype).name, tp: p.tp, ep: p.ep, kv: kv.name });
      const lacking = Object.entries(p.missing).filter(([part]) => part === "memory" || part === "weights");
      if (lacking.length) {
        const fields = [...new Set(lacking.flatMap(([, f]) => f))].join(", ");
        return [note("sizing-unpublished", { what, fields })];
      }
      const figures = { what, weights: size(p.weights_per_gpu), static: size(p.static_bytes), free: size(p.free_bytes), fraction: sig(p.mem_fraction_static, 4), rest: size(p.rest_bytes) };
      const bound = p.bounded.length ? message("sizing-bound") : "";
      const weightsFit = p.kv_budget_bytes === null ? null : p.kv_budget_bytes > 0;
      if (weightsFit === false) return [finding("error", "sizing.weights", message("sizing-weights", { bound, ...figures }), line, "--tp-size", SIZING_LINK)];
      if (p.refused) return [finding("error", "sizing.weights", message("sizing-refused", { bound, ...figures }), line, "--tp-size", SIZING_LINK)];
      if ("kv" in p.missing) return [note("sizing-kv-unpublished", { bound, fields: p.missing.kv.join(", "), ...figures }, "sizing.plan")];
      const out = [];
      const tokens = p.max_tokens;
      const attnDp = (values.attn_dp_size || 1) > 1;
      if (tokens !== null && !attnDp) {
        Object.assign(figures, { tokens: thousands(tokens), context: thousands(p.context), pool: size(p.kv_pool_bytes || 0) });
        if (tokens < p.context) out.push(finding("warning", "sizing.kv", message("sizing-kv", { bound, ...figures }), line, "--context-length", SIZING_LINK));
        else out.push(note("sizing-fits", { bound, requests: thousands(p.max_requests || 0), ...figures }, "sizing.plan"));
      } else out.push(note("sizing-fits-weights", { bound, ...figures }, "sizing.plan"));
      const def = p.mem_fraction_default;
      if (p.mem_fraction_given !== null && def !== null && p.mem_fraction_given > def) {
        const said = message("sizing-fraction", { gpu: hw.name, given: sig(p.mem_fraction_given, 4), default: sig(def, 4), tp: p.tp, rest: figures.rest, reserve: size(p.free_bytes * (1 - def)) });
        out.push(finding("warning", "sizing.fraction", said, line, "--mem-fraction-static", SIZING_LINK));
      }
      return out;
    }

    // ======================================================================== corrections.py
    function commandHead(inv, module = null) {
      const prefixes = inv.env.filter((a) => a.how === "prefix" && a.value !== null).map((a) => `${a.name}=${a.value.raw}`);
      if (inv.module !== null) return [...prefixes, `python -m ${module || inv.module}`];
      const launcher = inv.launcher !== null ? inv.launcher.text : "";
      const command = COMMANDS.find(([words, program]) => program === inv.program && words[0] === launcher);
      return [...prefixes, command ? command[0].join(" ") : launcher];
    }

    function flagName(args, spelling) {
      let option = args.parser.get(spelling);
      if (option === null) {
        const matches = abbreviated(args.parser, spelling);
        option = matches.length && matches.every((m) => args.parser.get(m) === args.parser.get(matches[0])) ? args.parser.get(matches[0]) : null;
      }
      return option !== null ? option.name : spelling;
    }

    function correctedCommand(inv, edits) {
      let words = inv.args;
      if (inv.program === "launch_server" && inv.module === null) words = serveArgv(inv).words;
      const [args] = parseArgs(inv.program, words, false);
      let lines = args.order.map((g) => [g.spelling, ...g.values.map((w) => w.raw)]);
      for (const edit of edits) {
        if (edit[0] === "rename") lines = lines.map(([first, ...rest]) => (first === edit[1] ? [edit[2], ...rest] : [first, ...rest]));
        else if (edit[0] === "drop") lines = lines.filter((line) => flagName(args, line[0]) !== edit[1]);
        else if (edit[0] === "set") {
          const found = lines.map((line, i) => [line, i]).filter(([line]) => flagName(args, line[0]) === edit[1]);
          if (found.length) {
            const at = found[found.length - 1][1];
            lines[at] = [lines[at][0], edit[2]];
          } else lines.push([edit[1], edit[2]]);
        }
      }
      extend(lines, args.hidden.map((w) => [w.raw]));
      const renamed = edits.find((e) => e[0] === "module");
      return [commandHead(inv, renamed ? renamed[1] : null).join(" "), ...lines.map((line) => `  ${line.join(" ")}`)].join(" \\\n");
    }

    function corrected(text, findings) {
      const edits = new Map();
      for (const f of findings) {
        if (!f.edits.length || f.edit_line === null) continue;
        if (!edits.has(f.edit_line)) edits.set(f.edit_line, []);
        edits.get(f.edit_line).push(...f.edits);
      }
      if (!edits.size) return [];
      let script;
      try {
        script = parseScript(text);
      } catch (err) {
        if (err instanceof ShellSyntaxError) return [];
        throw err;
      }
      const out = [];
      for (const inv of script.invocations) {
        if (edits.has(inv.line) && inv.kind === "program" && inv.program !== null) out.push({ line: inv.line, text: correctedCommand(inv, edits.get(inv.line)) });
      }
      return out;
    }

    function exitStatus(findings) {
      const severities = new Set(findings.map((f) => f.severity));
      if (severities.has("error")) return 2;
      if (severities.has("warning")) return 1;
      return 0;
    }

    return {
      version: VERSION,
      check: checkCommand,
      understood,
      exitStatus,
      message,
      corrected,
      // the lexer's steps, for the tests at their boundaries (tests/test_lexer_steps.py)
      lexer: (text) => new Lexer(text),
    };
  }

  // JsonScanner: pyJson's steps, for the tests at their boundaries (tests/test_checker_json.py)
  const api = { create, closest, format, python: { pyInt, pyFloat, pyJson, JsonScanner, floatRepr, pyEq } };
  root.HandbookChecker = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
