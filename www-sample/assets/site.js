// beneath documentation: the theme toggle and the option filter on the
// reference page. No dependencies; the pages work without it.
(function () {
  "use strict";
  var root = document.documentElement;
  var KEY = "beneath-theme";

  function stored() {
    try { return localStorage.getItem(KEY); } catch (e) { return null; }
  }
  function current() {
    var t = root.getAttribute("data-theme");
    if (t) return t;
    return window.matchMedia &&
      window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  function label(button) {
    button.textContent = current() === "dark" ? "Light theme" : "Dark theme";
  }

  var saved = stored();
  if (saved === "dark" || saved === "light") root.setAttribute("data-theme", saved);

  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("theme-toggle");
    if (button) {
      button.hidden = false;
      label(button);
      button.addEventListener("click", function () {
        var next = current() === "dark" ? "light" : "dark";
        root.setAttribute("data-theme", next);
        try { localStorage.setItem(KEY, next); } catch (e) { /* private mode */ }
        label(button);
      });
    }

    // Filter the rows of a table by the text typed in <input data-filter=ID>.
    var inputs = document.querySelectorAll("input[data-filter]");
    Array.prototype.forEach.call(inputs, function (input) {
      var table = document.getElementById(input.getAttribute("data-filter"));
      var count = document.getElementById(input.getAttribute("data-count"));
      if (!table) return;
      var rows = table.tBodies[0].rows;
      function apply() {
        var q = input.value.trim().toLowerCase(), shown = 0;
        Array.prototype.forEach.call(rows, function (row) {
          var hit = q === "" || row.textContent.toLowerCase().indexOf(q) !== -1;
          row.hidden = !hit;
          if (hit) shown++;
        });
        if (count) count.textContent = shown + " of " + rows.length + " options";
      }
      input.hidden = false;
      input.addEventListener("input", apply);
      apply();
    });
  });
})();
