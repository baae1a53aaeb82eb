/* The command doctor's checks, off the page's main thread: checker.js over the checker's export, one text
 * at a time, so that a long paste never freezes the page (doctor.js starts it, and stops it when a check
 * runs past its time).
 *
 * In: {data: URL of checker-data.json} once, then {id, text}. Out: {ready: version} once, then
 * {id, result: {findings, understood, status}}; {error: "…"} (with the id of the check, if any) when
 * loading or a check fails.
 */
"use strict";
importScripts("checker.js");

let checker = null;

self.onmessage = async (event) => {
  const { data, id, text } = event.data;
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
    self.postMessage({ id, result: { findings, understood: checker.understood(text), status: checker.exitStatus(findings) } });
  } catch (err) {
    self.postMessage({ id, error: String(err && err.message ? err.message : err) });
  }
};
