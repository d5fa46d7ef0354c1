// Sorting for the results table: a button in each column head sorts the rows by that
// column's figures (data-v), again to reverse. "#sort=N-desc" (or -asc) in the address sorts
// by column N at load, so that a headless browser can check the sorting too. The table reads
// the same without this script.
(function () {
  "use strict";
  var table = document.getElementById("results");
  if (!table) { return; }
  var heads = table.tHead.rows[0].cells;
  var body = table.tBodies[0];
  function value(row, column) {
    var cell = row.cells[column];
    var v = cell.getAttribute("data-v");
    return v === null ? cell.textContent.trim() : parseFloat(v);
  }
  function sortBy(column, descending) {
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = value(a, column), y = value(b, column);
      var order = (typeof x === "number" && typeof y === "number") ? x - y : String(x).localeCompare(String(y));
      return descending ? -order : order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    for (var i = 0; i < heads.length; i++) { heads[i].removeAttribute("aria-sort"); }
    heads[column].setAttribute("aria-sort", descending ? "descending" : "ascending");
    table.setAttribute("data-sorted", column + (descending ? "-desc" : "-asc"));
  }
  Array.prototype.forEach.call(heads, function (head, column) {
    var button = document.createElement("button");
    button.type = "button";
    while (head.firstChild) { button.appendChild(head.firstChild); }
    head.appendChild(button);
    button.addEventListener("click", function () {
      sortBy(column, head.getAttribute("aria-sort") === "ascending");
    });
  });
  var asked = /sort=(\d+)-(asc|desc)/.exec(location.hash);
  if (asked && +asked[1] < heads.length) { sortBy(+asked[1], asked[2] === "desc"); }
})();
