// The report's filters and transcripts. Everything shown from the data goes through
// textContent, never innerHTML: a model's output is text, whatever it contains.
(function () {
  'use strict';
  var source = document.getElementById('report-data');
  var data = JSON.parse(source.textContent);
  var rows = Array.prototype.slice.call(document.querySelectorAll('#cases tbody tr.case'));
  var filter = document.getElementById('filter');
  var failedOnly = document.getElementById('failed-only');
  var shown = document.getElementById('shown');

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function pretty(v) {
    return typeof v === 'string' ? v : JSON.stringify(v, null, 2);
  }
  function block(parent, title, value) {
    parent.appendChild(el('h4', null, title));
    parent.appendChild(el('pre', null, pretty(value)));
  }
  function ms(n) {
    if (n < 1000) return n + 'ms';
    if (n < 60000) return (n / 1000).toFixed(1) + 's';
    return Math.floor(n / 60000) + 'm' + ('0' + Math.floor((n % 60000) / 1000)).slice(-2) + 's';
  }
  function parsed(text) {
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; }
  }
  // A Server-Sent-Events body as its events: `event:` names and `data:` lines.
  function sseEvents(text) {
    return text.split(/\r?\n\r?\n/).filter(function (c) { return c.trim() !== ''; }).map(function (chunk) {
      var name = '', lines = [];
      chunk.split(/\r?\n/).forEach(function (line) {
        if (line.indexOf('data:') === 0) lines.push(line.slice(5).replace(/^ /, ''));
        else if (line.indexOf('event:') === 0) name = line.slice(6).trim();
      });
      return { name: name, data: lines.join('\n') };
    });
  }
  function response(parent, ex) {
    var type = ex.content_type || '';
    if (type.indexOf('event-stream') >= 0 || /^(data|event):/.test(ex.response)) {
      var events = sseEvents(ex.response);
      parent.appendChild(el('h4', null, 'Response: ' + events.length + ' events'));
      var list = el('div', 'events');
      events.forEach(function (ev, i) {
        var pre = el('pre', 'event', (ev.name ? 'event: ' + ev.name + '\n' : '') + parsed(ev.data));
        pre.title = 'event ' + (i + 1);
        list.appendChild(pre);
      });
      parent.appendChild(list);
    } else {
      parent.appendChild(el('h4', null, 'Response'));
      parent.appendChild(el('pre', null, parsed(ex.response)));
    }
  }
  function attempt(a, many) {
    var sec = el('section', 'attempt ' + (a.passed ? 'pass' : (a.status === 'done' ? 'fail' : a.status)));
    var cost = a.cost_usd === null || a.cost_usd === undefined ? 'cost unknown' : '$' + a.cost_usd.toFixed(4);
    sec.appendChild(el('h3', null, 'Attempt #' + a.repeat + ': ' + a.status.replace(/_/g, ' ') +
      (a.status === 'done' ? (a.passed ? ', passed' : ', failed') : '') + ' · ' + (a.tokens || 0) + ' tokens · ' +
      (a.model_calls || 0) + ' model calls · ' + cost + ' · ' + ms(a.duration_ms || 0)));
    if (a.error) sec.appendChild(el('p', 'reason error', a.error));
    if (a.verdicts && a.verdicts.length) {
      sec.appendChild(el('h4', null, 'Verdicts'));
      var ul = el('ul');
      a.verdicts.forEach(function (v) {
        var li = el('li', 'judge-line');
        li.appendChild(el('span', 'judge ' + (v.passed ? 'pass' : 'fail'), (v.passed ? '\u2713 ' : '\u2717 ') + v.judge));
        if (v.score !== undefined && v.score !== null) li.appendChild(el('span', 'reason', ' score ' + v.score.toFixed(3)));
        if (v.reason) li.appendChild(el('div', 'reason', v.reason));
        ul.appendChild(li);
      });
      sec.appendChild(ul);
    }
    if (a.calls && a.calls.length) {
      sec.appendChild(el('h4', null, 'Tool calls'));
      a.calls.forEach(function (c) {
        sec.appendChild(el('pre', 'call', c.name + '(' + (c.arguments === undefined || c.arguments === null ? '' : JSON.stringify(c.arguments, null, 2)) + ')'));
      });
    }
    if (a.output !== undefined && a.output !== null) block(sec, 'Output', a.output);
    (a.exchanges || []).forEach(function (ex, i) {
      var d = el('details', 'exchange');
      if ((a.exchanges.length <= 3) && !many) d.open = true;
      d.appendChild(el('summary', null, (i + 1) + '. ' + ex.method + ' ' + ex.path + ' \u2192 ' + ex.status +
        (ex.content_type ? ' (' + ex.content_type + ')' : '')));
      var cols = el('div', 'cols');
      var left = el('div'), right = el('div');
      block(left, 'Request', ex.request);
      response(right, ex);
      cols.appendChild(left);
      cols.appendChild(right);
      d.appendChild(cols);
      sec.appendChild(d);
    });
    return sec;
  }
  function transcript(i) {
    var c = data.cases[i];
    var box = el('div', 'transcript');
    var cols = el('div', 'cols');
    var left = el('div'), right = el('div');
    block(left, 'Inputs', c.inputs);
    if (c.expected_output !== undefined && c.expected_output !== null) block(right, 'Expected output', c.expected_output);
    if (c.metadata !== undefined && c.metadata !== null) block(right, 'Metadata', c.metadata);
    cols.appendChild(left);
    cols.appendChild(right);
    box.appendChild(cols);
    c.attempts.forEach(function (a) { box.appendChild(attempt(a, c.attempts.length > 2)); });
    return box;
  }
  function toggle(row, open) {
    var next = row.nextElementSibling;
    var isOpen = next && next.classList.contains('transcript');
    if (open === undefined) open = !isOpen;
    if (isOpen && !open) { next.remove(); row.classList.remove('open'); }
    if (!isOpen && open) {
      var tr = el('tr', 'transcript');
      var td = el('td');
      td.colSpan = row.children.length;
      td.appendChild(transcript(Number(row.dataset.case)));
      tr.appendChild(td);
      row.after(tr);
      row.classList.add('open');
    }
  }
  rows.forEach(function (row) {
    row.addEventListener('click', function () { toggle(row); });
    row.addEventListener('keydown', function (e) {
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); toggle(row); }
    });
  });
  function apply() {
    var q = filter.value.trim().toLowerCase(), only = failedOnly.checked, n = 0;
    rows.forEach(function (row) {
      var show = (!only || row.dataset.failed === '1') && (!q || row.textContent.toLowerCase().indexOf(q) >= 0);
      row.hidden = !show;
      var next = row.nextElementSibling;
      if (next && next.classList.contains('transcript')) next.hidden = !show;
      if (show) n += 1;
    });
    shown.textContent = n + ' of ' + rows.length + ' cases';
  }
  // A click on a column's head sorts by it; a second click reverses. A row's transcript
  // moves with it.
  var body = document.querySelector('#cases tbody');
  var heads = Array.prototype.slice.call(document.querySelectorAll('#cases th.sort'));
  heads.forEach(function (th) {
    th.addEventListener('click', function () {
      var col = th.cellIndex, down = th.classList.contains('up');
      heads.forEach(function (h) { h.classList.remove('up', 'down'); });
      th.classList.add(down ? 'down' : 'up');
      function key(row) {
        var td = row.children[col];
        return td.dataset.sort !== undefined ? Number(td.dataset.sort) : td.textContent.toLowerCase();
      }
      var sorted = rows.slice().sort(function (a, b) {
        var x = key(a), y = key(b);
        var c = x < y ? -1 : x > y ? 1 : 0;
        return (down ? -c : c) || Number(a.dataset.case) - Number(b.dataset.case);
      });
      sorted.forEach(function (row) {
        var next = row.nextElementSibling;
        body.appendChild(row);
        if (next && next.classList.contains('transcript')) body.appendChild(next);
      });
    });
  });
  filter.addEventListener('input', apply);
  failedOnly.addEventListener('change', apply);
  // `#case=3` opens the fourth case's transcript (links, and tests).
  var m = /^#case=(\d+)$/.exec(location.hash);
  if (m && rows[Number(m[1])]) {
    toggle(rows[Number(m[1])], true);
    rows[Number(m[1])].scrollIntoView();
  }
  apply();
  document.body.dataset.ready = 'true';
})();
