// Reads {"data": <checker export>, "cases": [text, …], "planner": <planner export>?, "gpu": id?} on stdin;
// writes one line of JSON per case: {"findings": [...], "understood": bool, "corrected": [[line, text], …]}.
// With a planner export and an accelerator, the commands are sized with planner.js as the doctor page does.
// Used by tests/test_doctor_parity.py.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const assets = path.join(__dirname, "..", "..", "docs", "assets");
const { create } = require(path.join(assets, "checker.js"));
const input = JSON.parse(fs.readFileSync(0, "utf8"));
let sizer = null;
if (input.planner) {
  // planner.js is a page script: it reads numbers.js's functions from window and boots on the document
  globalThis.window = globalThis;
  globalThis.document = { readyState: "complete", currentScript: null, querySelectorAll: () => [] };
  globalThis.window.location = { href: "file:///assets/planner.js" };
  require(path.join(assets, "numbers.js"));
  require(path.join(assets, "planner.js"));
  sizer = { planner: globalThis.HandbookPlanner, data: input.planner };
}
const checker = create(input.data, sizer);
const gpu = input.gpu || null;
const out = [];
for (const text of input.cases) {
  let result;
  try {
    const findings = checker.check(text, null, gpu);
    const corrected = checker.corrected(text, findings).map((c) => [c.line, c.text]);
    result = { findings, understood: checker.understood(text), corrected };
  } catch (err) {
    result = { crash: String(err?.stack ? err.stack : err) };
  }
  out.push(JSON.stringify(result));
}
fs.writeFileSync(1, `${out.join("\n")}\n`);
