/* The handbook's number formatting for the browser: handbook/core/formatting.py (thousands, sig,
 * binary_size) written again in JavaScript, with Python's rounding (half to even on the exact binary value),
 * so that a figure a page's script writes is the figure the build writes. The planner (planner.js) and the
 * doctor's sizing load it; tests/test_planner_browser.py and tests/test_doctor_parity.py compare their
 * figures with Python's. Plain ES2020, no DOM: node runs it as it is.
 */
(function (root) {
  "use strict";

  const KIB = 2 ** 10;
  const MIB = 2 ** 20;
  const GIB = 2 ** 30;

  // Python's str.format rounds half to even on the exact binary value; so does this (toExponential with
  // 100 digits is exact enough to see a true tie).
  function roundDigits(x, keep) {
    // x > 0: [digits (a string of `keep` digits, possibly one longer after a carry), exponent of the first]
    const [mantissa, exp] = x.toExponential(99).split("e");
    const all = mantissa.replace(".", "");
    let head = all.slice(0, keep);
    const tail = all.slice(keep);
    let up = false;
    if (tail[0] > "5") up = true;
    else if (tail[0] === "5") up = /[1-9]/.test(tail.slice(1)) || Number(head[head.length - 1] || "0") % 2 === 1;
    let e = Number(exp);
    if (up) {
      let carried = "";
      let carry = 1;
      for (let i = head.length - 1; i >= 0; i -= 1) {
        const digit = Number(head[i]) + carry;
        carry = digit === 10 ? 1 : 0;
        carried = String(digit % 10) + carried;
      }
      if (carry) {
        carried = `1${carried.slice(0, -1)}`;
        e += 1;
      }
      head = carried;
    }
    return [head, e];
  }

  function grouped(intDigits) {
    return intDigits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  // f"{round(n):,}"
  function thousands(n) {
    if (n === 0) return "0";
    const sign = n < 0 ? "-" : "";
    const x = Math.abs(n);
    if (Number.isInteger(x)) return sign + grouped(BigInt(x).toString());
    const e = Number(x.toExponential(99).split("e")[1]);
    if (e < 0) return x > 0.5 ? `${sign}1` : "0"; // below 1: 0.5 itself rounds to the even 0
    const [head, exp] = roundDigits(x, e + 1);
    const digits = head.padEnd(exp + 1, "0");
    return (digits === "0" ? "" : sign) + grouped(digits);
  }

  // f"{x:,.0f}": like thousands, but a negative number that rounds to zero keeps its sign ("-0")
  function fixed0(x) {
    return x < 0 ? `-${thousands(-x)}` : thousands(x);
  }

  // formatting.sig: f"{x:.{digits}g}", falling back to f"{x:,.0f}" where Python would write an exponent
  function sig(x, digits = 3) {
    if (x === 0) return "0";
    const sign = x < 0 ? "-" : "";
    const [head, exp] = roundDigits(Math.abs(x), digits);
    if (exp < -4 || exp >= digits) return fixed0(x);
    let text;
    if (exp >= 0) {
      const whole = head.slice(0, exp + 1).padEnd(exp + 1, "0");
      const frac = head.slice(exp + 1).replace(/0+$/, "");
      text = frac ? `${whole}.${frac}` : whole;
    } else {
      text = `0.${"0".repeat(-exp - 1)}${head}`.replace(/0+$/, "");
    }
    return sign + text;
  }

  function binarySize(n) {
    for (const [unit, size] of [["GiB", GIB], ["MiB", MIB], ["KiB", KIB]]) {
      if (n >= size) return `${sig(n / size)} ${unit}`;
    }
    return `${thousands(n)} B`;
  }

  const api = { roundDigits, thousands, fixed0, sig, binarySize };
  root.HandbookNumbers = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
