/* The command doctor's checks, off the page's main thread: checker.js over the checker's export, one text
 * at a time, so that a long paste never freezes the page (doctor.js starts it, and stops it when a check
 * runs past its time).
 *
 * In: {data: URL of checker-data.json, planner: URL of planner-data.json} once, then {id, text, gpu, listed}.
 * Out: {ready: version} once, then {id, result: {findings (the first `listed`), counts (by severity, of all),
 * understood, status, corrected, plannerFailed}}; {error: "…"} (with the id of the check, if any) when loading
 * or a check fails. Only what the page lists crosses over: a paste with thousands of findings would otherwise
 * cost the page their copying. A check with an accelerator (`gpu`, a KB hardware id) is sized by the planner:
 * planner.js and its data are loaded the first time one comes (plannerFailed: they could not be, and the
 * check ran unsized).
 */
"use strict";
importScripts("checker.js");

let data = null;
let plannerUrl = null;
let checker = null;
let sized = null; // the checker with the planner; false once loading it failed

async function fetched(url) {
  const response = await fetch(url, { cache: "no-cache" });
  if (!response.ok) throw new Error(String(response.status));
  return response.json();
}

// planner.js is the planner page's script and looks for its page as it loads: here it is shown an empty one
async function sizedChecker() {
  if (sized === null) {
    try {
      self.window = self;
      self.document = { currentScript: null, readyState: "complete", querySelectorAll: () => [] };
      importScripts("numbers.js", "planner.js");
      sized = self.HandbookChecker.create(data, { planner: self.HandbookPlanner, data: await fetched(plannerUrl) });
    } catch {
      sized = false;
    }
  }
  return sized || checker;
}

self.onmessage = async (event) => {
  const { id, text, gpu = null, listed } = event.data;
  if (event.data.data !== undefined) {
    try {
      data = await fetched(event.data.data);
      plannerUrl = event.data.planner;
      checker = self.HandbookChecker.create(data);
      self.postMessage({ ready: checker.version });
    } catch (err) {
      self.postMessage({ error: String(err?.message ? err.message : err) });
    }
    return;
  }
  try {
    const using = gpu !== null ? await sizedChecker() : checker;
    const findings = using.check(text, null, using === checker ? null : gpu);
    const counts = { error: 0, warning: 0, note: 0 };
    for (const f of findings) counts[f.severity] += 1;
    const result = {
      findings: findings.slice(0, listed),
      counts,
      understood: using.understood(text),
      status: using.exitStatus(findings),
      corrected: using.corrected(text, findings),
      plannerFailed: gpu !== null && using === checker,
    };
    self.postMessage({ id, result });
  } catch (err) {
    self.postMessage({ id, error: String(err?.message ? err.message : err) });
  }
};
