/* Formatting and DOM helpers shared by the report's scripts. */
const $ = (id) => document.getElementById(id);
const HOUR = 3600;
const DAY = 86400;

function num(v, digits) {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  return Number(v).toLocaleString('en-US', { minimumFractionDigits: digits || 0, maximumFractionDigits: digits || 0 });
}

/**
 * A count and its noun, singular when the count is 1: count(1, 'node') is '1 node', count(2, 'policy', 'policies')
 * '2 policies'. The scripts' one rule for counts in words, as Words.count is the Java side's.
 */
function count(n, singular, plural) {
  return num(n) + ' ' + (n === 1 ? singular : plural || singular + 's');
}

function pct(v, digits) {
  return v === null || v === undefined ? '–' : num(v * 100, digits === undefined ? 1 : digits) + '%';
}

/** A duration in seconds, two units at most: 3d 4h, 2h 05m, 12m 30s, 45s. */
function dur(s) {
  if (s === null || s === undefined) return '–';
  s = Math.round(s);
  if (s < 60) return s + 's';
  if (s < HOUR) return Math.floor(s / 60) + 'm' + (s % 60 ? ' ' + String(s % 60).padStart(2, '0') + 's' : '');
  if (s < DAY) return Math.floor(s / HOUR) + 'h' + (s % HOUR >= 60 ? ' ' + String(Math.floor(s % HOUR / 60)).padStart(2, '0') + 'm' : '');
  return Math.floor(s / DAY) + 'd' + (s % DAY >= HOUR ? ' ' + Math.floor(s % DAY / HOUR) + 'h' : '');
}

/** A simulated instant: day and clock time since the start of the scenario. */
function at(s) {
  const d = Math.floor(s / DAY);
  const r = s - d * DAY;
  const hh = String(Math.floor(r / HOUR)).padStart(2, '0');
  const mm = String(Math.floor(r % HOUR / 60)).padStart(2, '0');
  const ss = r % 60 ? ':' + String(Math.floor(r % 60)).padStart(2, '0') : '';
  return 'd' + d + ' ' + hh + ':' + mm + ss;
}

function esc(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
}

function el(tag, attrs, html) {
  const e = document.createElement(tag);
  if (attrs) for (const k of Object.keys(attrs)) e.setAttribute(k, attrs[k]);
  if (html !== undefined) e.innerHTML = html;
  return e;
}

function table(head, rows, cls) {
  let h = '<table' + (cls ? ' class="' + cls + '"' : '') + '><thead><tr>';
  for (const c of head) h += '<th' + (c.cls ? ' class="' + c.cls + '"' : '') + '>' + c.label + '</th>';
  h += '</tr></thead><tbody>';
  for (const r of rows) {
    h += '<tr' + (r.cls ? ' class="' + r.cls + '"' : '') + '>';
    r.cells.forEach((c, i) => {
      const cl = [head[i] && head[i].cls, c && c.cls].filter(Boolean).join(' ');
      h += '<td' + (cl ? ' class="' + cl + '"' : '') + '>' + (c && c.html !== undefined ? c.html : esc(c === null ? '–' : c)) + '</td>';
    });
    h += '</tr>';
  }
  return h + '</tbody></table>';
}
