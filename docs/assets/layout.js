// Marks every table and figure that is wider than its box (it scrolls sideways), so the page can say so
// (handbook.css shows the hint). Runs on each page load and when the window is resized.
(function () {
  "use strict";
  function mark() {
    document.querySelectorAll(".md-typeset__scrollwrap, .md-typeset a.figure-open").forEach(function (box) {
      box.classList.toggle("scrolls", box.scrollWidth > box.clientWidth + 1);
    });
  }
  if (typeof window.document$ !== "undefined") {
    window.document$.subscribe(mark);
  } else {
    document.addEventListener("DOMContentLoaded", mark);
  }
  window.addEventListener("resize", mark);
  window.addEventListener("load", mark);
})();
