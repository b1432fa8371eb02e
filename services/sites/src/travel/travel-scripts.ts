// Inline scripts of the travel site (trusted constants, no framework): the airport autocomplete
// of the search form, its calendar date pickers and trip-type switch, and the filter checkboxes
// that apply themselves. Every form still works without them by typing.

/**
 * Airport autocomplete on `input[data-combobox]` (ARIA combobox + listbox). Suggestions come from
 * the `#airports` JSON; the first one is active, Enter or a click picks it and fills
 * `Name (CODE)`, Enter with an open list never submits the form, Escape closes it.
 */
const COMBOBOX = `
var airports = JSON.parse(document.getElementById('airports').textContent);
document.querySelectorAll('input[data-combobox]').forEach(function (input) {
  var list = document.getElementById(input.getAttribute('aria-controls'));
  var hits = [], active = -1;
  function close() {
    list.hidden = true; list.innerHTML = ''; hits = []; active = -1;
    input.setAttribute('aria-expanded', 'false'); input.removeAttribute('aria-activedescendant');
  }
  function mark(i) {
    active = i;
    Array.prototype.forEach.call(list.children, function (li, k) { li.setAttribute('aria-selected', k === i ? 'true' : 'false'); });
    if (list.children[i]) input.setAttribute('aria-activedescendant', list.children[i].id);
  }
  function choose(a) { input.value = a.label; close(); }
  function render() {
    var q = input.value.trim().toLowerCase();
    if (!q) { close(); return; }
    var starts = airports.filter(function (a) { return a.name.toLowerCase().indexOf(q) === 0 || a.code.toLowerCase().indexOf(q) === 0; });
    var inside = airports.filter(function (a) {
      return starts.indexOf(a) < 0 && (a.label + ' ' + a.airport + ' ' + a.country).toLowerCase().indexOf(q) >= 0;
    });
    hits = starts.concat(inside).slice(0, 6);
    list.innerHTML = '';
    if (!hits.length) { close(); return; }
    hits.forEach(function (a, k) {
      var li = document.createElement('li');
      li.id = list.id + '-' + k;
      li.setAttribute('role', 'option');
      li.setAttribute('aria-label', a.label);
      li.textContent = a.label;
      var where = document.createElement('span');
      where.textContent = a.airport + ', ' + a.country;
      li.appendChild(where);
      li.addEventListener('mousedown', function (e) { e.preventDefault(); });
      li.addEventListener('click', function () { choose(a); });
      list.appendChild(li);
    });
    list.hidden = false;
    input.setAttribute('aria-expanded', 'true');
    mark(0);
  }
  input.addEventListener('input', render);
  input.addEventListener('keydown', function (e) {
    if (list.hidden) return;
    if (e.key === 'ArrowDown') { e.preventDefault(); mark(Math.min(active + 1, hits.length - 1)); }
    else if (e.key === 'ArrowUp') { e.preventDefault(); mark(Math.max(active - 1, 0)); }
    else if (e.key === 'Enter') { e.preventDefault(); if (hits[active]) choose(hits[active]); }
    else if (e.key === 'Escape') { close(); }
  });
  document.addEventListener('click', function (e) { if (e.target !== input && !list.contains(e.target)) close(); });
});
`;

/**
 * Calendar pickers: a button[data-calendar=<input id>] opens the dialog it controls on the month
 * of the field's date (or of the data-after field's date, or the first bookable month), with
 * "Previous month" / "Next month" and one button per day named like "14 March 2027". Days outside
 * data-min…data-max (or before the data-after date) are disabled.
 */
const CALENDAR = `
var MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
function pad(n) { return (n < 10 ? '0' : '') + n; }
function monthOf(v) { var m = /^(\\d{4})-(\\d{2})-(\\d{2})$/.exec(v || ''); return m ? Number(m[1]) * 12 + Number(m[2]) - 1 : null; }
var pickers = [];
function closeAll() { pickers.forEach(function (p) { p.close(); }); }
document.querySelectorAll('button[data-calendar]').forEach(function (btn) {
  var cal = document.getElementById(btn.getAttribute('aria-controls'));
  var input = document.getElementById(btn.getAttribute('data-calendar'));
  var after = cal.getAttribute('data-after') ? document.getElementById(cal.getAttribute('data-after')) : null;
  var min = cal.getAttribute('data-min'), max = cal.getAttribute('data-max');
  var shown = 0;
  function lowest() { return after && monthOf(after.value) !== null && after.value > min ? after.value : min; }
  function render() {
    var y = Math.floor(shown / 12), m = shown % 12, lo = lowest();
    var lead = (new Date(Date.UTC(y, m, 1)).getUTCDay() + 6) % 7;
    var days = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
    var h = '<div class="cal-head"><button type="button" data-step="-1"' + (shown <= monthOf(min) ? ' disabled' : '') + '>Previous month</button>' +
      '<strong>' + MONTHS[m] + ' ' + y + '</strong><button type="button" data-step="1"' + (shown >= monthOf(max) ? ' disabled' : '') + '>Next month</button></div>' +
      '<table><thead><tr><th>Mo</th><th>Tu</th><th>We</th><th>Th</th><th>Fr</th><th>Sa</th><th>Su</th></tr></thead><tbody><tr>';
    for (var i = 0; i < lead; i++) h += '<td></td>';
    for (var d = 1; d <= days; d++) {
      var v = y + '-' + pad(m + 1) + '-' + pad(d);
      h += '<td><button type="button" data-date="' + v + '" aria-label="' + d + ' ' + MONTHS[m] + ' ' + y + '"' +
        (v < lo || v > max ? ' disabled' : '') + (v === input.value ? ' aria-pressed="true"' : '') + '>' + d + '</button></td>';
      if ((lead + d) % 7 === 0 && d < days) h += '</tr><tr>';
    }
    cal.innerHTML = h + '</tr></tbody></table>';
  }
  var picker = {
    close: function () { cal.hidden = true; cal.innerHTML = ''; btn.setAttribute('aria-expanded', 'false'); },
  };
  pickers.push(picker);
  btn.addEventListener('click', function () {
    var open = !cal.hidden;
    closeAll();
    if (open) return;
    var start = monthOf(input.value);
    if (start === null && after) start = monthOf(after.value);
    if (start === null || start < monthOf(min) || start > monthOf(max)) start = monthOf(min);
    shown = start;
    render();
    cal.hidden = false;
    btn.setAttribute('aria-expanded', 'true');
  });
  cal.addEventListener('click', function (e) {
    var t = e.target.closest('button');
    if (!t || t.disabled) return;
    if (t.hasAttribute('data-step')) { shown += Number(t.getAttribute('data-step')); render(); return; }
    input.value = t.getAttribute('data-date');
    picker.close();
    btn.focus();
  });
});
`;

/** One way / round trip: the return date row shows only for a round trip. */
const TRIP_SWITCH = `
var retRow = document.getElementById('ret-row');
document.querySelectorAll('input[name=trip]').forEach(function (r) {
  r.addEventListener('change', function () { retRow.hidden = !document.getElementById('trip-round').checked; });
});
`;

/** Script of the search page. */
export const SEARCH_SCRIPT = `(function () {${COMBOBOX}${CALENDAR}${TRIP_SWITCH}})();`;

/** Script of the results page: a filter checkbox applies the filters at once. */
export const FILTER_SCRIPT = `(function () {
document.querySelectorAll('form.filters input[type=checkbox]').forEach(function (cb) {
  cb.addEventListener('change', function () { cb.form.requestSubmit(); });
});
})();`;
