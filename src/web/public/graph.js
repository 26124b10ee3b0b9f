// Workflow graphs (Cytoscape.js, at the positions the workflow stores) and live run pages: while a run
// goes on, its state is polled from /runs/{id}/state and each node is recoloured as it moves; when the
// run ends, the outputs section is fetched from the page itself.
(function () {
  'use strict';

  var COLOURS = {
    PENDING: ['#f3f4f6', '#9ca3af'], QUEUED: ['#e0f2fe', '#0284c7'], RUNNING: ['#fef3c7', '#d97706'],
    COMPLETED: ['#dcfce7', '#16a34a'], FAILED: ['#fee2e2', '#dc2626'], SKIPPED: ['#f9fafb', '#d1d5db'],
    CANCELED: ['#e5e7eb', '#4b5563'],
  };

  function display(node) {
    var lines = [node.label];
    if (node.type !== 'request' && node.type !== 'response' && node.type !== node.label) lines.push(node.type);
    if (node.status) lines.push(node.status.toLowerCase() + (node.cached ? ' · cached' : ''));
    return lines.join('\n');
  }

  function styles() {
    var s = [
      { selector: 'node', style: {
        shape: 'round-rectangle', width: 190, height: 64, 'background-color': '#eef2ff', 'border-width': 2, 'border-color': '#6366f1',
        label: 'data(display)', 'text-wrap': 'wrap', 'text-valign': 'center', 'text-halign': 'center', 'font-size': 13,
        'font-family': 'system-ui, sans-serif', color: '#111827', 'line-height': 1.3,
      } },
      { selector: 'node[type = "request"], node[type = "response"]', style: { shape: 'round-tag', 'font-weight': 'bold', width: 150 } },
      { selector: 'node[?cached]', style: { 'border-style': 'dashed', 'border-width': 3 } },
      { selector: 'edge', style: {
        width: 2, 'line-color': '#94a3b8', 'target-arrow-color': '#94a3b8', 'target-arrow-shape': 'triangle', 'curve-style': 'bezier',
        label: 'data(label)', 'font-size': 10, color: '#475569', 'text-background-color': '#ffffff', 'text-background-opacity': 1,
        'text-background-padding': 2, 'text-rotation': 'autorotate',
      } },
    ];
    Object.keys(COLOURS).forEach(function (status) {
      s.push({ selector: 'node[status = "' + status + '"]', style: { 'background-color': COLOURS[status][0], 'border-color': COLOURS[status][1] } });
    });
    s.push({ selector: 'node[status = "SKIPPED"]', style: { color: '#6b7280' } });
    return s;
  }

  function drawGraph() {
    var container = document.getElementById('graph');
    var data = document.getElementById('graph-data');
    if (!container || !data || typeof window.cytoscape !== 'function') return undefined;
    var graph = JSON.parse(data.textContent);
    var elements = [];
    graph.nodes.forEach(function (n) {
      elements.push({ group: 'nodes', data: { id: n.id, label: n.label, type: n.type, status: n.status, cached: n.cached, display: display(n) }, position: { x: n.x, y: n.y } });
    });
    graph.edges.forEach(function (e) {
      elements.push({ group: 'edges', data: { id: e.id, source: e.source, target: e.target, label: e.label } });
    });
    var cy = window.cytoscape({
      container: container, elements: elements, style: styles(), layout: { name: 'preset', fit: true, padding: 30 },
      autoungrabify: true, boxSelectionEnabled: false, userZoomingEnabled: false, userPanningEnabled: true,
    });
    cy.fit(undefined, 30);
    window.addEventListener('resize', function () { cy.resize(); cy.fit(undefined, 30); });
    return cy;
  }

  function setBadge(badge, status) {
    if (!badge) return;
    badge.textContent = status;
    badge.setAttribute('data-status', status);
    badge.className = badge.className.replace(/\bstatus-\w+/, '') + ' status-' + status.toLowerCase();
  }

  function applyState(root, cy, state) {
    root.setAttribute('data-run-status', state.status);
    setBadge(document.getElementById('run-status'), state.status);
    var cost = document.getElementById('run-cost');
    if (cost) cost.textContent = Number(state.actualCredits).toLocaleString('en');
    state.nodes.forEach(function (n) {
      if (cy) {
        var node = cy.getElementById(n.id);
        if (node && node.length) {
          node.data('status', n.status);
          node.data('cached', n.cached);
          node.data('display', display({ label: node.data('label'), type: node.data('type'), status: n.status, cached: n.cached }));
        }
      }
      var row = document.querySelector('#node-table tr[data-node-id="' + CSS.escape(n.id) + '"]');
      if (row) {
        var costCell = row.querySelector('.node-cost');
        if (costCell && typeof n.actualCredits === 'number') costCell.textContent = n.actualCredits.toLocaleString('en');
        var cell = row.querySelector('.node-status');
        setBadge(cell && cell.querySelector('[data-status]'), n.status);
        if (cell && n.cached && !cell.querySelector('.cached-badge')) {
          var b = document.createElement('span');
          b.className = 'badge cached-badge';
          b.textContent = 'cached';
          cell.appendChild(document.createTextNode(' '));
          cell.appendChild(b);
        }
      }
    });
  }

  function refreshFromPage(selectors) {
    return fetch(window.location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } })
      .then(function (r) { return r.text(); })
      .then(function (text) {
        var doc = new DOMParser().parseFromString(text, 'text/html');
        selectors.forEach(function (sel) {
          var fresh = doc.querySelector(sel);
          var here = document.querySelector(sel);
          if (fresh && here) here.innerHTML = fresh.innerHTML;
        });
      });
  }

  function followRun(root, cy) {
    var url = root.getAttribute('data-state-url');
    var note = document.getElementById('live-note');
    var live = { polls: 0, updates: 0, last: root.getAttribute('data-run-status') };
    window.atelierRun = live;
    function poll() {
      fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } })
        .then(function (r) { if (!r.ok) throw new Error('state ' + r.status); return r.json(); })
        .then(function (state) {
          live.polls++;
          var signature = state.status + '|' + state.nodes.map(function (n) { return n.status + (n.cached ? '*' : ''); }).join(',');
          if (signature !== live.last) { live.updates++; live.last = signature; }
          applyState(root, cy, state);
          if (state.terminal) {
            if (note) note.textContent = 'The run has ended (' + state.status.toLowerCase() + ').';
            return refreshFromPage(['#outputs', '.facts', '#node-table']).then(function () { live.done = true; });
          }
          setTimeout(poll, 1000);
        })
        .catch(function () {
          if (note) note.textContent = 'Lost contact with the server; retrying…';
          setTimeout(poll, 3000);
        });
    }
    setTimeout(poll, 500);
  }

  document.addEventListener('DOMContentLoaded', function () {
    var cy = drawGraph();
    if (cy) window.atelierGraph = cy;
    var root = document.querySelector('.run[data-live="true"]');
    if (root) followRun(root, cy);
  });
})();
