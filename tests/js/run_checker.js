// Reads {"data": <checker export>, "cases": [text, …]} on stdin; writes one line of JSON per case:
// {"findings": [...], "understood": bool, "corrected": [[line, text], …]}. Used by tests/test_doctor_parity.py.
"use strict";
const fs = require("fs");
const path = require("path");
const { create } = require(path.join(__dirname, "..", "..", "docs", "assets", "checker.js"));
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const checker = create(input.data);
const out = [];
for (const text of input.cases) {
  let result;
  try {
    const findings = checker.check(text);
    const corrected = checker.corrected(text, findings).map((c) => [c.line, c.text]);
    result = { findings, understood: checker.understood(text), corrected };
  } catch (err) {
    result = { crash: String(err && err.stack ? err.stack : err) };
  }
  out.push(JSON.stringify(result));
}
fs.writeFileSync(1, out.join("\n") + "\n");
