// verify-contract docs: offline search over the prebuilt index (search-index.js) and the version switcher.
// No network, no framework: the index is a script, so the site also works when opened from the file system.
(function () {
  "use strict";
  var root = document.body.getAttribute("data-root") || "";
  var index = window.SEARCH_INDEX || [];
  var input = document.getElementById("search");
  var list = document.getElementById("search-results");
  var LIMIT = 20;

  function score(entry, query) {
    var name = entry.name.toLowerCase();
    if (name === query) return 0;
    if (name.indexOf(query) === 0) return 1;
    if (name.indexOf(query) > 0) return 2;
    if ((entry.text || "").toLowerCase().indexOf(query) >= 0) return 3;
    return -1;
  }

  function search(query) {
    query = query.trim().toLowerCase();
    if (!query) return [];
    var found = [];
    for (var i = 0; i < index.length; i++) {
      var s = score(index[i], query);
      if (s >= 0) found.push([s, i]);
    }
    // The best match first; among equals, current names before older versions' fields (index order otherwise).
    found.sort(function (a, b) { return a[0] - b[0] || older(index[a[1]]) - older(index[b[1]]) || a[1] - b[1]; });
    return found.slice(0, LIMIT).map(function (pair) { return index[pair[1]]; });
  }

  function older(entry) {
    return entry.version && entry.version !== newest ? 1 : 0;
  }
  function versionKey(v) { return v.split(".").map(function (n) { return ("00000" + n).slice(-5); }).join("."); }
  var newest = index.reduce(function (best, e) {
    return e.version && (!best || versionKey(e.version) > versionKey(best)) ? e.version : best;
  }, "");

  function show(results) {
    list.textContent = "";
    results.forEach(function (entry) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = root + entry.url;
      var code = document.createElement("code");
      code.textContent = entry.name;
      link.appendChild(code);
      var what = document.createElement("span");
      what.className = "muted";
      var detail = entry.kind === "SPEC section" ? " " + entry.text : " " + entry.kind;
      what.textContent = detail + (entry.version ? " " + entry.version : "") + (entry.deprecated ? " (deprecated)" : "");
      link.appendChild(what);
      item.appendChild(link);
      list.appendChild(item);
    });
  }

  if (input && list) {
    input.addEventListener("input", function () { show(search(input.value)); });
    input.form.addEventListener("submit", function (event) {
      var first = list.querySelector("a");
      if (first) { event.preventDefault(); window.location.href = first.href; }
    });
    input.addEventListener("keydown", function (event) {
      if (event.key === "ArrowDown") {
        var first = list.querySelector("a");
        if (first) { event.preventDefault(); first.focus(); }
      } else if (event.key === "Escape") { list.textContent = ""; }
    });
    list.addEventListener("keydown", function (event) {
      var current = document.activeElement && document.activeElement.parentNode;
      if (event.key === "ArrowDown" && current.nextElementSibling) { event.preventDefault(); current.nextElementSibling.firstChild.focus(); }
      if (event.key === "ArrowUp") { event.preventDefault(); (current.previousElementSibling ? current.previousElementSibling.firstChild : input).focus(); }
    });
    // names/index.html?q=... (the form's own target without script) fills the box.
    var asked = new URLSearchParams(window.location.search).get("q");
    if (asked) { input.value = asked; show(search(asked)); }
  }

  var switcher = document.getElementById("version-switch");
  if (switcher) {
    switcher.addEventListener("change", function () { window.location.href = switcher.value + window.location.hash; });
  }
})();
