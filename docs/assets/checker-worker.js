/* The command doctor's checks, off the page's main thread: checker.js over the checker's export, one text
 * at a time, so that a long paste never freezes the page (doctor.js starts it, and stops it when a check
 * runs past its time).
 *
 * In: {data: URL of checker-data.json} once, then {id, text, listed}. Out: {ready: version} once, then
 * {id, result: {findings (the first `listed`), counts (by severity, of all), understood, status}};
 * {error: "…"} (with the id of the check, if any) when loading or a check fails. Only what the page lists
 * crosses over: a paste with thousands of findings would otherwise cost the page their copying.
 */
"use strict";
importScripts("checker.js");

let checker = null;

self.onmessage = async (event) => {
  const { data, id, text, listed } = event.data;
  if (data !== undefined) {
    try {
      const response = await fetch(data, { cache: "no-cache" });
      if (!response.ok) throw new Error(String(response.status));
      checker = self.HandbookChecker.create(await response.json());
      self.postMessage({ ready: checker.version });
    } catch (err) {
      self.postMessage({ error: String(err && err.message ? err.message : err) });
    }
    return;
  }
  try {
    const findings = checker.check(text);
    const counts = { error: 0, warning: 0, note: 0 };
    for (const f of findings) counts[f.severity] += 1;
    const result = { findings: findings.slice(0, listed), counts, understood: checker.understood(text), status: checker.exitStatus(findings) };
    self.postMessage({ id, result });
  } catch (err) {
    self.postMessage({ id, error: String(err && err.message ? err.message : err) });
  }
};
