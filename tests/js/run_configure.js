// Reads {"checker": <checker export>, "configurator": <configurator export>} on stdin; writes one line of
// JSON per combination the page offers, in order: the configurator's result. Used by
// tests/test_doctor_parity.py.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const assets = path.join(__dirname, "..", "..", "docs", "assets");
const { create: checkerOf } = require(path.join(assets, "checker.js"));
const { create } = require(path.join(assets, "configure.js"));
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const configurator = create(input.configurator, checkerOf(input.checker));
const out = [];
for (const choice of input.choices || configurator.choices()) {
  let result;
  try {
    result = configurator.configure(choice);
  } catch (err) {
    result = { crash: String(err?.stack ? err.stack : err), choice };
  }
  out.push(JSON.stringify(result));
}
fs.writeFileSync(1, `${out.join("\n")}\n`);
