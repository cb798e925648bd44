// kgjudge report: a single-page view over the payload embedded in this file.
// The overview is parsed at load; each task's detail is a gzip+base64 blob
// decoded only when the task is opened, so large runs open fast.
(function () {
  'use strict';
  var OV = JSON.parse(document.getElementById('kg-overview').textContent);
  var cache = {};
  var app = document.getElementById('app');
  var cys = [];

  var KIND_COLOURS = {
    direct: '#1a7f37', subsumption: '#2da44e', collective: '#4ac26b', compositional: '#8fd18f',
    recorded: '#1a7f37', calibrated: '#2da44e', covered: '#1a7f37',
    uncovered: '#cf222e', unjudged: '#9a6700'
  };

  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (k === 'text') { e.textContent = attrs[k]; } else if (k === 'on') {
          Object.keys(attrs.on).forEach(function (ev) { e.addEventListener(ev, attrs.on[ev]); });
        } else { e.setAttribute(k, attrs[k]); }
      });
    }
    (kids || []).forEach(function (c) { if (c != null) { e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); } });
    return e;
  }
  function f4(x) { return (typeof x === 'number') ? x.toFixed(4) : ''; }
  function triple(t) { return '"' + t[0] + '" --[' + t[1] + ']--> "' + t[2] + '"'; }
  function stateOf(c) { return c ? c[0] : 'none'; }
  function colourOf(c) {
    if (!c) { return '#8c959f'; }
    if (c[0] === 'covered') { return KIND_COLOURS[c[1]] || KIND_COLOURS.covered; }
    return KIND_COLOURS[c[0]] || '#8c959f';
  }
  function label(c, validity) {
    if (!c) { return 'no verdict'; }
    var s = c[0];
    if (validity) { s = s === 'covered' ? 'valid' : (s === 'uncovered' ? 'invalid' : s); }
    return c[1] ? s + ' (' + c[1] + ')' : s;
  }

  function taskDetail(i) {
    if (cache[i]) { return Promise.resolve(cache[i]); }
    // The blobs follow this script in the file: until the parser is done
    // with them, a blob may be absent or cut short.
    if (document.readyState === 'loading') {
      return new Promise(function (ok) { document.addEventListener('DOMContentLoaded', ok); }).then(function () { return taskDetail(i); });
    }
    var b64 = document.getElementById('kg-task-' + i).textContent.trim();
    var bin = atob(b64);
    var bytes = new Uint8Array(bin.length);
    for (var k = 0; k < bin.length; k++) { bytes[k] = bin.charCodeAt(k); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).text().then(function (txt) { cache[i] = JSON.parse(txt); return cache[i]; });
  }

  function clear() {
    cys.forEach(function (c) { c.destroy(); });
    cys = [];
    app.textContent = '';
  }

  function nav() {
    return el('nav', { id: 'nav' }, [
      el('a', { href: '#/', text: 'Overview' }), ' · ', el('a', { href: '#/tasks', text: 'Tasks' }),
      el('span', { class: 'title', text: OV.title })
    ]);
  }

  function table(t, id) {
    var head = el('tr', null, t.columns.map(function (c) { return el('th', { text: c }); }));
    var rows = t.rows.map(function (r) { return el('tr', null, r.map(function (c) { return el('td', { text: c }); })); });
    return el('table', { id: id, class: 'grid' }, [el('thead', null, [head]), el('tbody', null, rows)]);
  }

  // bars draws a horizontal bar chart as SVG: rows of [label, value 0..1].
  function bars(id, title, rows) {
    var ns = 'http://www.w3.org/2000/svg';
    var h = 22 * rows.length + 10, w = 520;
    var svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('id', id); svg.setAttribute('width', w); svg.setAttribute('height', h);
    svg.setAttribute('role', 'img'); svg.setAttribute('aria-label', title);
    rows.forEach(function (r, i) {
      var y = 5 + 22 * i;
      var t = document.createElementNS(ns, 'text');
      t.setAttribute('x', 0); t.setAttribute('y', y + 14); t.textContent = r[0];
      var rect = document.createElementNS(ns, 'rect');
      rect.setAttribute('x', 200); rect.setAttribute('y', y); rect.setAttribute('height', 16);
      rect.setAttribute('width', Math.max(0, Math.min(1, r[1])) * 260); rect.setAttribute('fill', '#0969da');
      var v = document.createElementNS(ns, 'text');
      v.setAttribute('x', 205 + Math.max(0, Math.min(1, r[1])) * 260); v.setAttribute('y', y + 14);
      v.textContent = f4(r[1]);
      svg.appendChild(t); svg.appendChild(rect); svg.appendChild(v);
    });
    return el('figure', null, [el('figcaption', { text: title }), svg]);
  }

  function ci(f) { return f && f.has_ci ? '[' + f4(f.ci_low) + ', ' + f4(f.ci_high) + ']' : '–'; }
  function signed(x) { return (x > 0 ? '+' : '') + x.toFixed(4); }
  function pval(p) { return p < 0.0001 ? '<0.0001' : p.toFixed(4); }
  var METRIC_NAMES = { triplet_f1: 'F1', triplet_precision: 'P', triplet_recall: 'R', node_f1: 'node F1', node_precision: 'node P', node_recall: 'node R' };

  // board renders one leaderboard as the leaderboard package computed it:
  // means and 95% intervals as fractions (4 decimals, as its JSON), then
  // the paired differences with Holm-corrected p-values.
  function board(b) {
    var key = b.by.join('-');
    var m = b.metric, mn = METRIC_NAMES[m] || m;
    var wrap = el('div', { class: 'board', id: 'board-' + key, 'data-by': b.by.join(',') }, [el('h2', { text: 'Leaderboard by ' + b.by.join(' × ') })]);
    // A board by run names its runs already.
    var showRuns = b.by.indexOf('run') < 0;
    var cols = ['#'].concat(b.by).concat(showRuns ? ['runs'] : []).concat(['tasks', 'N', 'missing', 'avg@N ' + mn, '95% CI']);
    if (b.bootstrap) { cols.push('bootstrap'); }
    cols = cols.concat(['avg@N P', 'avg@N R', 'avg@N node F1', 'best@N ' + mn, '95% CI', 'sd within task']);
    var rows = b.rows.map(function (r, i) {
      var a = r.avg[m], bs = r.best[m];
      var cells = [el('td', { text: String(i + 1) })].concat(r.group.map(function (g) { return el('td', { text: g }); }))
        .concat(showRuns ? [el('td', { text: r.runs.join(', ') })] : []).concat([el('td', { text: String(r.tasks) }), el('td', { text: String(r.n) }), el('td', { 'data-metric': 'missing', text: String(r.missing) }),
          el('td', { 'data-metric': 'avg.' + m, text: f4(a.mean) }), el('td', { 'data-ci': 'avg.' + m, text: ci(a) })]);
      if (b.bootstrap) { cells.push(el('td', { 'data-boot': 'avg.' + m, text: a.bootstrap ? ci({ has_ci: true, ci_low: a.bootstrap.ci_low, ci_high: a.bootstrap.ci_high }) : '–' })); }
      ['triplet_precision', 'triplet_recall', 'node_f1'].forEach(function (k) { cells.push(el('td', { 'data-metric': 'avg.' + k, title: '95% CI ' + ci(r.avg[k]), text: f4(r.avg[k].mean) })); });
      cells.push(el('td', { 'data-metric': 'best.' + m, text: f4(bs.mean) }), el('td', { 'data-ci': 'best.' + m, text: ci(bs) }),
        el('td', { text: r.n > 1 ? f4(a.within_task_sd) : '–' }));
      return el('tr', { 'data-row': r.label }, cells);
    });
    wrap.appendChild(el('div', { class: 'board-body' }, [
      el('table', { class: 'grid leaderboard' }, [el('thead', null, [el('tr', null, cols.map(function (c) { return el('th', { text: c }); }))]), el('tbody', null, rows)]),
      ciChart('chart-board-' + key, 'avg@N ' + mn + ' with 95% CI', b.rows.map(function (r) { return [r.label, r.avg[m]]; }))]));
    wrap.appendChild(el('p', { class: 'note', text: b.protocol + ' protocol; missing samples ' + (b.missing === 'skip' ? 'left out' : 'scored 0') + '; ' + b.ci + (b.bootstrap ? '; bootstrap: ' + b.bootstrap : '') + '.' }));
    if (b.pairs.length) {
      wrap.appendChild(el('h3', { text: 'Paired differences of avg@N ' + mn + ' (B − A, on shared tasks)' + (b.pairs.length > 1 ? ', p Holm-corrected over ' + b.pairs.length + ' pairs' : '') }));
      var prow = b.pairs.map(function (p) {
        return el('tr', { 'data-a': p.a, 'data-b': p.b, class: p.significant ? 'significant' : '' }, [el('td', { text: p.a }), el('td', { text: p.b }), el('td', { text: String(p.shared_tasks) }),
          el('td', { 'data-metric': 'delta', text: signed(p.delta) }), el('td', { 'data-ci': 'delta', text: ci(p) }), el('td', { 'data-metric': 'p', text: pval(p.p) }),
          el('td', { 'data-metric': 'p_holm', text: pval(p.p_holm) }), el('td', { text: p.significant ? 'yes' : 'no' })]);
      });
      wrap.appendChild(el('table', { class: 'grid pairs' }, [el('thead', null, [el('tr', null, ['A', 'B', 'shared tasks', 'Δ', '95% CI', 'p', 'p (Holm)', 'significant'].map(function (c) { return el('th', { text: c }); }))]),
        el('tbody', null, prow)]));
    }
    return wrap;
  }

  // ciChart draws means with their 95% intervals as whiskers: rows of
  // [label, figure].
  function ciChart(id, title, rows, colours, labelWidth) {
    var ns = 'http://www.w3.org/2000/svg';
    var x0 = labelWidth || 130, span = 240, h = 22 * rows.length + 24, w = x0 + span + 60;
    var maxChars = Math.floor(x0 / 6.5);
    var svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('id', id); svg.setAttribute('width', w); svg.setAttribute('height', h);
    svg.setAttribute('role', 'img'); svg.setAttribute('aria-label', title);
    function add(tag, attrs, text) {
      var e = document.createElementNS(ns, tag);
      Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
      if (text != null) { e.textContent = text; }
      svg.appendChild(e);
      return e;
    }
    function X(v) { return x0 + Math.max(0, Math.min(1, v)) * span; }
    [0, 0.25, 0.5, 0.75, 1].forEach(function (t) {
      add('line', { x1: X(t), x2: X(t), y1: 0, y2: h - 18, stroke: '#d0d7de' });
      add('text', { x: X(t) - 8, y: h - 4 }, String(t));
    });
    rows.forEach(function (r, i) {
      var y = 4 + 22 * i, f = r[1];
      add('text', { x: 0, y: y + 13 }, r[0].length > maxChars ? r[0].slice(0, maxChars - 1) + '…' : r[0]);
      add('rect', { x: x0, y: y, height: 14, width: X(f.mean) - x0, fill: (colours && colours[i]) || '#0969da', 'data-mean': f4(f.mean) });
      if (f.has_ci) {
        add('line', { x1: X(f.ci_low), x2: X(f.ci_high), y1: y + 7, y2: y + 7, stroke: '#1f2328', 'stroke-width': 1.5 });
        add('line', { x1: X(f.ci_low), x2: X(f.ci_low), y1: y + 2, y2: y + 12, stroke: '#1f2328' });
        add('line', { x1: X(f.ci_high), x2: X(f.ci_high), y1: y + 2, y2: y + 12, stroke: '#1f2328' });
      }
      add('text', { x: Math.max(X(f.mean), f.has_ci ? X(f.ci_high) : 0) + 4, y: y + 12 }, f4(f.mean));
    });
    return el('figure', null, [el('figcaption', { text: title }), svg]);
  }

  // modelBySubset: F1 by model × subset, one bar per (model, subset),
  // grouped by model, coloured by subset.
  function modelBySubset(b) {
    var palette = ['#0969da', '#bf8700', '#8250df', '#1a7f37', '#cf222e', '#57606a'];
    var subsets = [];
    b.rows.forEach(function (r) { if (subsets.indexOf(r.group[1]) < 0) { subsets.push(r.group[1]); } });
    subsets.sort();
    var rows = b.rows.slice().sort(function (x, y) { return x.group[0] < y.group[0] ? -1 : x.group[0] > y.group[0] ? 1 : (x.group[1] < y.group[1] ? -1 : x.group[1] > y.group[1] ? 1 : 0); });
    var m = b.metric, mn = METRIC_NAMES[m] || m;
    var fig = ciChart('chart-model-subset', 'avg@N ' + mn + ' by model × subset, 95% CI', rows.map(function (r) { return [r.group[0] + ' · ' + r.group[1], r.avg[m]]; }),
      rows.map(function (r) { return palette[subsets.indexOf(r.group[1]) % palette.length]; }), 240);
    fig.appendChild(el('p', { class: 'legend' }, subsets.map(function (s, i) { return el('span', { style: 'color:' + palette[i % palette.length], text: '■ ' + s + ' ' }); })));
    return fig;
  }

  function overview() {
    clear();
    app.appendChild(nav());
    var sec = el('section', { id: 'overview' });
    app.appendChild(sec);
    if (OV.leaderboard_note) { sec.appendChild(el('p', { id: 'leaderboard-note', text: OV.leaderboard_note })); }
    (OV.leaderboards || []).forEach(function (b) { sec.appendChild(board(b)); });
    if (OV.model_by_subset) { sec.appendChild(modelBySubset(OV.model_by_subset)); }
    sec.appendChild(el('h2', { text: 'Runs' }));
    var keys = ['triplet_precision', 'triplet_recall', 'triplet_f1', 'node_precision', 'node_recall', 'node_f1'];
    var head = el('tr', null, [el('th', { text: 'run' }), el('th', { text: 'judge' }), el('th', { text: 'protocol' }),
      el('th', { text: 'tasks' }), el('th', { text: 'N' })].concat(keys.map(function (k) { return el('th', { text: 'avg@N ' + k }); }))
      .concat([el('th', { text: 'best@N triplet_f1' }), el('th', { text: 'unjudged' }), el('th', { text: 'missing' }), el('th', { text: 'not scored' })]));
    var rows = OV.runs.map(function (r) {
      return el('tr', { 'data-run': r.name }, [el('td', { text: r.name }), el('td', { text: r.judge }), el('td', { text: r.protocol }),
        el('td', { text: String(r.num_queries) }), el('td', { text: String(r.num_samples) })]
        .concat(keys.map(function (k) { return el('td', { 'data-metric': 'avg.' + k, text: f4(r.avg[k]) }); }))
        .concat([el('td', { 'data-metric': 'best.triplet_f1', text: f4(r.best.triplet_f1) }),
          el('td', { 'data-metric': 'unjudged', text: String(r.unjudged.coverage + r.unjudged.validity) }),
          el('td', { 'data-metric': 'missing', text: String(r.missing) }),
          el('td', { 'data-metric': 'failed', text: String(r.failed.length) })]));
    });
    sec.appendChild(el('table', { id: 'runs-table', class: 'grid' }, [el('thead', null, [head]), el('tbody', null, rows)]));
    sec.appendChild(bars('chart-f1', 'avg@N triplet F1 by run', OV.runs.map(function (r) { return [r.name, r.avg.triplet_f1]; })));
    var cons = OV.runs.filter(function (r) { return r.self_consistency; });
    if (cons.length) {
      sec.appendChild(el('h2', { text: 'Judge self-consistency' }));
      sec.appendChild(el('p', { class: 'note', text: 'Of the predicted triples a run\'s coverage pass cites as support of a covered GT triple, how many its own validity pass marks invalid (as kgjudge agree reports). With recorded verdicts (judge replay) this is the benchmark judge\'s own consistency.' }));
      sec.appendChild(el('table', { id: 'consistency', class: 'grid' }, [el('thead', null, [el('tr', null, ['run', 'judge', 'supports cited', 'marked invalid', 'share invalid'].map(function (c) { return el('th', { text: c }); }))]),
        el('tbody', null, cons.map(function (r) {
          var c = r.self_consistency;
          return el('tr', { 'data-run': r.name }, [el('td', { text: r.name }), el('td', { text: r.judge }), el('td', { 'data-metric': 'cited', text: String(c.cited) }),
            el('td', { 'data-metric': 'cited_invalid', text: String(c.cited_invalid) }), el('td', { 'data-metric': 'share_invalid', text: f4(c.share_invalid) })]);
        }))]));
    }

    var boxes = el('div', { class: 'run-structures' });
    sec.appendChild(boxes);
    OV.runs.forEach(function (r) {
      var st = r.structure || {};
      var box = el('div', { class: 'run-structure', 'data-run': r.name }, [el('h3', { text: r.name })]);
      if (st.coverage_by_class) {
        box.appendChild(bars('chart-class-' + r.name, 'GT recall by relation class (' + r.name + ')',
          st.coverage_by_class.filter(function (c) { return c.triples > 0; }).map(function (c) { return [c.class + ' (' + c.triples + ')', c.recall]; })));
      }
      if (st.coverage_by_level) {
        box.appendChild(bars('chart-level-' + r.name, 'GT recall by depth (' + r.name + ')',
          st.coverage_by_level.map(function (c) { return ['level ' + c.level + ' (' + c.triples + ')', c.recall]; })));
      }
      if (st.validity_by_class) {
        box.appendChild(bars('chart-validity-' + r.name, 'validity by predicted class (' + r.name + ')',
          st.validity_by_class.filter(function (c) { return c.triples > 0; }).map(function (c) { return [c.class + ' (' + c.triples + ')', c.valid_rate]; })));
      }
      if (st.invalid_types && st.invalid_types.length) {
        box.appendChild(table({ columns: ['type', 'class', 'count', 'invalid', 'rate'],
          rows: st.invalid_types.slice(0, 12).map(function (t) { return [t.type, t.class, String(t.count), String(t.invalid), f4(t.rate)]; }) }, 'invalid-' + r.name));
      }
      if (st.failures) {
        var fl = st.failures;
        var fk = ['samples', 'empty', 'malformed', 'truncated', 'salvaged', 'schema_misaligned', 'zero_f1'];
        box.appendChild(el('h4', { text: 'whole-output failures' }));
        box.appendChild(el('table', { id: 'failures-' + r.name, class: 'grid failures' }, [el('thead', null, [el('tr', null, fk.map(function (k) { return el('th', { text: k.replace('_', ' ') }); }))]),
          el('tbody', null, [el('tr', null, fk.map(function (k) { return el('td', { 'data-metric': k, text: String(fl[k] || 0) }); }))])]));
        if (fl.zero_f1_by_cause && fl.zero_f1_by_cause.length) {
          box.appendChild(el('p', { class: 'failures', text: 'zero-F1 samples by cause: ' + fl.zero_f1_by_cause.map(function (c) { return (c.cause || c[0]) + ' ' + (c.samples != null ? c.samples : (c.count != null ? c.count : '')); }).join(', ') }));
        }
      }
      var info = r.info.map(function (kv) { return el('li', { text: kv[0] + ': ' + kv[1] }); });
      var parse = Object.keys(r.parse).filter(function (k) { return r.parse[k] > 0; }).map(function (k) { return k + ' ' + r.parse[k]; }).join(', ');
      if (r.estimate) { info.push(el('li', { class: 'estimate', text: r.estimate })); }
      box.appendChild(el('ul', { class: 'manifest' }, info.concat([el('li', { text: 'parse: ' + parse }),
        el('li', { text: 'missing samples: ' + r.missing }),
        el('li', { text: 'unjudged: ' + r.unjudged.coverage + ' coverage, ' + r.unjudged.validity + ' validity, in ' + r.unjudged_items + ' sample(s)' })])));
      boxes.appendChild(box);
    });
  }

  function tasks() {
    clear();
    app.appendChild(nav());
    var runs = OV.runs.map(function (r) { return r.name; });
    var baseline = sessionStorage.getItem('kg-baseline') || runs[0];
    var sortKey = sessionStorage.getItem('kg-sort') || 'id';
    var sortDir = Number(sessionStorage.getItem('kg-dir') || 1);
    var filter = el('input', { id: 'task-filter', placeholder: 'filter: task, subset or language', value: sessionStorage.getItem('kg-filter') || '' });
    var sel = el('select', { id: 'baseline' }, runs.map(function (r) { var o = el('option', { value: r, text: r }); if (r === baseline) { o.selected = true; } return o; }));
    var body = el('tbody');
    var cols = [['id', 'task'], ['subset', 'subset'], ['language', 'lang'], ['gt', 'GT']];
    runs.forEach(function (r) {
      cols.push(['f1:' + r, r + ' F1'], ['p:' + r, r + ' P'], ['r:' + r, r + ' R']);
      if (r !== baseline) { cols.push(['d:' + r, r + ' ΔF1']); }
      if (OV.tasks.some(function (t) { return t.runs[r] && t.runs[r].missing; })) { cols.push(['missing:' + r, r + ' missing']); }
    });
    function val(t, key) {
      var p = key.split(':');
      if (p.length === 1) { return t[key]; }
      var s = t.runs[p[1]];
      if (p[0] === 'd') { var b = t.runs[baseline]; return (s && b) ? s.f1 - b.f1 : null; }
      if (p[0] === 'missing') { return s ? (s.missing || 0) : null; }
      return s ? s[p[0]] : null;
    }
    function render() {
      body.textContent = '';
      var q = filter.value.toLowerCase();
      // The filter matches a task's id, subset or language.
      var idx = OV.tasks.map(function (_, i) { return i; }).filter(function (i) {
        var t = OV.tasks[i];
        return [t.id, t.subset || '', t.language || ''].some(function (v) { return v.toLowerCase().indexOf(q) >= 0; });
      });
      idx.sort(function (a, b) {
        var x = val(OV.tasks[a], sortKey), y = val(OV.tasks[b], sortKey);
        if (x === y) { return a - b; }
        if (x == null) { return 1; }
        if (y == null) { return -1; }
        return (x < y ? -1 : 1) * sortDir;
      });
      idx.forEach(function (i) {
        var t = OV.tasks[i];
        var tr = el('tr', { 'data-task': t.id, on: { click: function () { location.hash = '#/task/' + i + '/' + encodeURIComponent(baseline) + '/0'; } } },
          cols.map(function (c) {
            var v = val(t, c[0]);
            var txt = (typeof v === 'number' && c[0] !== 'gt' && c[0].indexOf('missing:') !== 0) ? f4(v) : (v == null ? '' : String(v));
            var td = el('td', { 'data-col': c[0], text: txt });
            if (c[0].indexOf('d:') === 0 && typeof v === 'number') { td.className = v < 0 ? 'neg' : (v > 0 ? 'pos' : ''); }
            return td;
          }));
        body.appendChild(tr);
      });
    }
    var head = el('tr', null, cols.map(function (c) {
      return el('th', { 'data-sort': c[0], text: c[1] + (c[0] === sortKey ? (sortDir > 0 ? ' ▲' : ' ▼') : ''), on: { click: function () {
        if (sortKey === c[0]) { sortDir = -sortDir; } else { sortKey = c[0]; sortDir = 1; }
        sessionStorage.setItem('kg-sort', sortKey); sessionStorage.setItem('kg-dir', String(sortDir)); tasks();
      } } });
    }));
    filter.addEventListener('input', function () { sessionStorage.setItem('kg-filter', filter.value); render(); });
    sel.addEventListener('change', function () { sessionStorage.setItem('kg-baseline', sel.value); tasks(); });
    app.appendChild(el('section', { id: 'tasks' }, [el('p', null, ['baseline: ', sel, ' ', filter]),
      el('table', { id: 'tasks-table', class: 'grid' }, [el('thead', null, [head]), body])]));
    render();
  }

  function graphOf(container, d, cov, diff) {
    var names = {}, elements = [];
    function node(n) {
      if (!(n in names)) { names[n] = 'n' + Object.keys(names).length; elements.push({ data: { id: names[n], label: n.length > 40 ? n.slice(0, 37) + '…' : n } }); }
      return names[n];
    }
    // A node is coloured by the triples that touch it: all covered, none
    // covered, or some.
    var touch = {};
    d.gt.forEach(function (t, i) {
      var c = cov ? cov[i] : null;
      elements.push({ data: { id: 'e' + i, source: node(t[0]), target: node(t[2]), label: t[1], colour: colourOf(c), gt: i },
        classes: (diff && diff[i]) ? 'diff' : '' });
      [t[0], t[2]].forEach(function (n) {
        var k = touch[names[n]] || (touch[names[n]] = { all: 0, cov: 0 });
        k.all++; if (stateOf(c) === 'covered') { k.cov++; }
      });
    });
    elements.forEach(function (e) {
      var k = touch[e.data.id];
      if (k && e.data.source === undefined) { e.data.colour = k.cov === k.all ? KIND_COLOURS.direct : (k.cov === 0 ? KIND_COLOURS.uncovered : '#57606a'); }
    });
    var cy = cytoscape({
      container: container, elements: elements, wheelSensitivity: 0.3,
      style: [
        { selector: 'node', style: { label: 'data(label)', 'font-size': 9, width: 10, height: 10, 'background-color': 'data(colour)', 'text-valign': 'bottom' } },
        { selector: 'edge', style: { width: 2, 'line-color': 'data(colour)', 'target-arrow-color': 'data(colour)', 'target-arrow-shape': 'triangle', 'curve-style': 'bezier', label: 'data(label)', 'font-size': 7, color: '#57606a' } },
        { selector: 'edge.diff', style: { width: 5, 'line-style': 'dashed' } },
        { selector: 'edge:selected', style: { width: 6, 'line-color': '#0969da', 'target-arrow-color': '#0969da' } }
      ],
      layout: { name: 'dagre', rankDir: 'TB', nodeSep: 4, rankSep: 90, edgeSep: 2 }
    });
    cys.push(cy);
    return cy;
  }

  function claimPanel(panel, d, s, i, runName) {
    panel.textContent = '';
    var c = s.cov[i];
    panel.appendChild(el('h3', { text: 'GT triple ' + i }));
    panel.appendChild(el('p', { id: 'claim-text', text: triple(d.gt[i]) }));
    panel.appendChild(el('p', { id: 'claim-verdict', text: runName + ': ' + label(c) + (c ? ' · judge ' + c[2] : '') }));
    if (c && c[3]) { panel.appendChild(el('p', { id: 'claim-reason', text: 'reason: ' + c[3] })); }
    if (c && typeof c[6] === 'number') { panel.appendChild(el('p', { id: 'claim-prob', text: 'calibrated probability: ' + c[6].toFixed(4) })); }
    var sup = (c ? c[4] : []).map(function (k) { return el('li', { 'data-pred': k, text: '#' + k + ' ' + (s.pred[k] ? triple(s.pred[k]) : '(index out of range)') }); });
    panel.appendChild(el('h4', { text: 'supporting predicted triples (' + sup.length + ')' }));
    panel.appendChild(el('ul', { id: 'support-list' }, sup));
    var shown = (c ? c[5] : []).map(function (k) { return el('li', { 'data-pred': k, text: '#' + k + ' ' + (s.pred[k] ? triple(s.pred[k]) : '') }); });
    panel.appendChild(el('h4', { text: 'candidates shown to the judge (' + shown.length + ')' }));
    panel.appendChild(el('ul', { id: 'shown-list' }, shown));
  }

  function pickers(d, i, run, sample, cmp) {
    var runs = Object.keys(d.runs).sort();
    var runSel = el('select', { id: 'run-select' }, runs.map(function (r) { var o = el('option', { value: r, text: r }); if (r === run) { o.selected = true; } return o; }));
    var samples = (d.runs[run] || []).map(function (s) { return s.sample; });
    var smpSel = el('select', { id: 'sample-select' }, samples.map(function (k) { var o = el('option', { value: k, text: 'sample ' + k }); if (k === sample) { o.selected = true; } return o; }));
    var cmpSel = el('select', { id: 'compare-select' }, [el('option', { value: '', text: 'side by side with…' })].concat(runs.filter(function (r) { return r !== run; })
      .map(function (r) { var o = el('option', { value: r, text: r }); if (r === cmp) { o.selected = true; } return o; })));
    function go() {
      var h = cmpSel.value ? '#/cmp/' + i + '/' + encodeURIComponent(runSel.value) + '/' + encodeURIComponent(cmpSel.value) + '/' + smpSel.value
        : '#/task/' + i + '/' + encodeURIComponent(runSel.value) + '/' + smpSel.value;
      location.hash = h;
    }
    [runSel, smpSel, cmpSel].forEach(function (s) { s.addEventListener('change', go); });
    return el('p', { class: 'pickers' }, ['run ', runSel, ' ', smpSel, ' ', cmpSel]);
  }

  function sampleOf(d, run, sample) {
    var list = d.runs[run] || [];
    for (var k = 0; k < list.length; k++) { if (list[k].sample === sample) { return list[k]; } }
    return list[0];
  }

  function taskPage(i, run, sample) {
    taskDetail(i).then(function (d) {
      clear();
      app.appendChild(nav());
      var s = sampleOf(d, run, sample);
      app.appendChild(el('h2', { id: 'task-title', text: d.id }));
      app.appendChild(pickers(d, i, run, sample, ''));
      if (!s) { app.appendChild(el('p', { text: 'run ' + run + ' has no sample of this task' })); return; }
      app.appendChild(el('p', { id: 'sample-metrics', text: 'P ' + f4(s.p) + ' · R ' + f4(s.r) + ' · F1 ' + f4(s.f1) + ' · judge ' + s.judge + ' · parse ' + s.parse }));
      var legend = el('p', { class: 'legend' }, Object.keys(KIND_COLOURS).filter(function (k) { return ['recorded', 'calibrated', 'covered'].indexOf(k) < 0; })
        .map(function (k) { return el('span', { style: 'color:' + KIND_COLOURS[k], text: '■ ' + k + ' ' }); })
        .concat([el('span', { class: 'note', text: ' · nodes: green when every GT triple at them is covered, red when none is, grey when some are' })]));
      app.appendChild(legend);
      var wrap = el('div', { class: 'split' });
      var gdiv = el('div', { id: 'graph', class: 'graph' });
      var panel = el('div', { id: 'claim-panel', class: 'panel', text: 'click a GT triple (an edge, or a row below)' });
      wrap.appendChild(gdiv); wrap.appendChild(panel);
      app.appendChild(wrap);
      var cy = graphOf(gdiv, d, s.cov, null);
      function select(k) {
        claimPanel(panel, d, s, k, run);
        cy.$(':selected').unselect();
        var e = cy.$('#e' + k);
        e.select();
        // Bring the claim into view: its two ends.
        cy.fit(e.connectedNodes(), 120);
        if (cy.zoom() > 2) { cy.zoom({ level: 2, position: e.midpoint() }); }
      }
      cy.on('tap', 'edge', function (ev) { select(ev.target.data('gt')); });
      var rows = d.gt.map(function (t, k) {
        return el('tr', { 'data-gt': k, class: 'state-' + stateOf(s.cov[k]), on: { click: function () { select(k); } } },
          [el('td', { text: String(k) }), el('td', { text: triple(t) }), el('td', { class: 'class', text: s.gt_class ? s.gt_class[k] : '' }), el('td', { text: label(s.cov[k]) })]);
      });
      app.appendChild(el('h3', { text: 'GT triples (index, triple, relation class, verdict)' }));
      app.appendChild(el('table', { id: 'gt-list', class: 'grid' }, [el('tbody', null, rows)]));
      var prow = s.pred.map(function (t, k) {
        return el('tr', { 'data-pred': k, class: s.val ? 'state-' + stateOf(s.val[k]) : '' }, [el('td', { text: String(k) }), el('td', { text: triple(t) }),
          el('td', { class: 'class', text: s.pred_class ? s.pred_class[k] : '' }), el('td', { text: s.val ? label(s.val[k], true) : '' })]);
      });
      app.appendChild(el('h3', { text: 'predicted triples (' + s.pred.length + '; index, triple, relation class, validity)' }));
      app.appendChild(el('table', { id: 'pred-list', class: 'grid' }, [el('tbody', null, prow)]));
    });
  }

  function comparePage(i, runA, runB, sample) {
    taskDetail(i).then(function (d) {
      clear();
      app.appendChild(nav());
      var a = sampleOf(d, runA, sample), b = sampleOf(d, runB, sample);
      app.appendChild(el('h2', { id: 'task-title', text: d.id }));
      app.appendChild(pickers(d, i, runA, sample, runB));
      if (!a || !b) { app.appendChild(el('p', { text: 'both runs need a sample of this task' })); return; }
      var diff = d.gt.map(function (_, k) { return stateOf(a.cov[k]) !== stateOf(b.cov[k]); });
      var n = diff.filter(Boolean).length;
      app.appendChild(el('p', { id: 'diff-count', text: n + ' GT triple(s) differ between ' + runA + ' and ' + runB }));
      var wrap = el('div', { class: 'split' });
      var ga = el('div', { id: 'graph-a', class: 'graph half' }), gb = el('div', { id: 'graph-b', class: 'graph half' });
      wrap.appendChild(el('div', null, [el('h3', { text: runA + ' · F1 ' + f4(a.f1) }), ga]));
      wrap.appendChild(el('div', null, [el('h3', { text: runB + ' · F1 ' + f4(b.f1) }), gb]));
      app.appendChild(wrap);
      graphOf(ga, d, a.cov, diff); graphOf(gb, d, b.cov, diff);
      var panel = el('div', { id: 'claim-panel', class: 'panel' });
      var rows = [];
      d.gt.forEach(function (t, k) {
        if (!diff[k]) { return; }
        rows.push(el('tr', { 'data-gt': k, class: 'diff', on: { click: function () { claimPanel(panel, d, a, k, runA); var p2 = el('div'); claimPanel(p2, d, b, k, runB); panel.appendChild(p2); } } },
          [el('td', { text: String(k) }), el('td', { text: triple(t) }), el('td', { class: 'a', text: label(a.cov[k]) }), el('td', { class: 'b', text: label(b.cov[k]) })]));
      });
      app.appendChild(el('table', { id: 'diff-list', class: 'grid' }, [el('thead', null, [el('tr', null, [el('th', { text: '#' }), el('th', { text: 'GT triple' }), el('th', { text: runA }), el('th', { text: runB })])]), el('tbody', null, rows)]));
      app.appendChild(panel);
    });
  }

  function route() {
    var h = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
    if (h[0] === 'tasks') { tasks(); } else if (h[0] === 'task') { taskPage(Number(h[1]), h[2], Number(h[3] || 0)); } else if (h[0] === 'cmp') { comparePage(Number(h[1]), h[2], h[3], Number(h[4] || 0)); } else { overview(); }
    document.body.setAttribute('data-view', h[0] || 'overview');
  }
  // cytoscape-dagre registers its layout on window.cytoscape as it loads.
  window.addEventListener('hashchange', route);
  route();
  // When the overview was built, for the scale test's time to interactive.
  window.kgReady = performance.now();
  document.body.setAttribute('data-ready', '1');
})();
