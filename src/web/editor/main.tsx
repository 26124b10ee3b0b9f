import { StrictMode, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import {
  ReactFlow, ReactFlowProvider, Background, Controls, MiniMap, applyEdgeChanges, applyNodeChanges, useReactFlow,
  type Connection, type Edge, type EdgeChange, type NodeChange,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import './editor.css';
import type { Graph } from '../../workflows/types.js';
import { positionFor } from '../../workflows/layout.js';
import { ApiError, call, followEvents, readConfig, setCsrf, type CatalogModel, type EditorConfig, type RunView, type WorkflowView } from './api.js';
import { EditorContext, type EditorContextValue } from './context.js';
import { Catalog, accentColor, autoLayout, edgeProblems, flowEdge, flowNode, formatMicro, fromGraph, graphProblems, newId, starterGraph, toGraph, type FlowNode } from './graph.js';
import { Inspector, type NodePatch } from './Inspector.js';
import { NodeView } from './NodeView.js';
import { DRAG_TYPE, Palette, type PaletteItem } from './Palette.js';
import { RunPanel } from './RunPanel.js';

const nodeTypes = { model: NodeView, request: NodeView, response: NodeView };
type Snapshot = { graph: Graph; name: string };
type Message = { kind: 'info' | 'error' | 'success'; text: string };
const HISTORY = 200;

function Editor({ config, catalog }: { config: EditorConfig; catalog: Catalog }) {
  const wf = config.workflow;
  const readOnly = wf?.isSystem ?? false;
  const initial = useMemo(() => fromGraph(wf ? { nodes: wf.nodes, edges: wf.edges } : starterGraph(), readOnly), []);
  const [nodes, setNodes] = useState<FlowNode[]>(initial.nodes);
  const [edges, setEdges] = useState<Edge[]>(initial.edges);
  const [name, setName] = useState(wf?.name ?? 'Untitled workflow');
  const [workflowId, setWorkflowId] = useState<string | null>(wf && !wf.isSystem ? wf.id : null);
  const [message, setMessage] = useState<Message | null>(new URLSearchParams(location.search).get('saved') ? { kind: 'success', text: 'Saved.' } : null);
  const [estimate, setEstimate] = useState<{ total: number | null; perNode: Map<string, number>; error?: string }>({ total: null, perNode: new Map() });
  const [saving, setSaving] = useState(false);
  // A new workflow left untouched is not "unsaved": leaving it asks nothing.
  const [savedJson, setSavedJson] = useState(() => JSON.stringify({ g: toGraph(initial.nodes, initial.edges), name: wf?.name ?? 'Untitled workflow' }));
  const [run, setRun] = useState<RunView | null>(null);
  const [runOpen, setRunOpen] = useState(false);
  const past = useRef<Snapshot[]>([]);
  const future = useRef<Snapshot[]>([]);
  const lastCoalesce = useRef<string | undefined>(undefined);
  const [, bump] = useState(0);
  const flow = useReactFlow<FlowNode>();
  const wrapper = useRef<HTMLDivElement>(null);

  const graph = useMemo(() => toGraph(nodes, edges), [nodes, edges]);
  const dirty = JSON.stringify({ g: graph, name }) !== savedJson;
  const selected = nodes.find((n) => n.selected)?.data.g ?? null;

  // --- history ---------------------------------------------------------------------------------
  const snapshot = useCallback((): Snapshot => ({ graph: toGraph(nodes, edges), name }), [nodes, edges, name]);
  const remember = useCallback((coalesce?: string) => {
    if (coalesce && coalesce === lastCoalesce.current) return;
    lastCoalesce.current = coalesce;
    past.current.push(snapshot());
    if (past.current.length > HISTORY) past.current.shift();
    future.current = [];
    bump((x) => x + 1);
  }, [snapshot]);
  const restore = useCallback((s: Snapshot) => {
    const selectedIds = new Set(nodes.filter((n) => n.selected).map((n) => n.id));
    const next = fromGraph(s.graph, readOnly);
    setNodes(next.nodes.map((n) => ({ ...n, selected: selectedIds.has(n.id) })));
    setEdges(next.edges);
    setName(s.name);
    setMessage(null);
    lastCoalesce.current = undefined;
  }, [nodes, readOnly]);
  const undo = useCallback(() => {
    const s = past.current.pop();
    if (!s) return;
    future.current.push(snapshot());
    restore(s);
  }, [restore, snapshot]);
  const redo = useCallback(() => {
    const s = future.current.pop();
    if (!s) return;
    past.current.push(snapshot());
    restore(s);
  }, [restore, snapshot]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable)) return;
      if (!(e.ctrlKey || e.metaKey) || readOnly) return;
      const k = e.key.toLowerCase();
      if (k === 'z' && !e.shiftKey) { e.preventDefault(); undo(); }
      else if ((k === 'z' && e.shiftKey) || k === 'y') { e.preventDefault(); redo(); }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [undo, redo, readOnly]);

  // --- canvas changes --------------------------------------------------------------------------
  const onNodesChange = useCallback((changes: NodeChange<FlowNode>[]) => {
    if (changes.some((c) => c.type === 'remove')) remember();
    setNodes((ns) => applyNodeChanges(changes, ns));
  }, [remember]);
  const onEdgesChange = useCallback((changes: EdgeChange[]) => {
    if (changes.some((c) => c.type === 'remove')) remember();
    setEdges((es) => applyEdgeChanges(changes, es));
  }, [remember]);

  const onConnect = useCallback((c: Pick<Connection, 'source' | 'target' | 'sourceHandle' | 'targetHandle'>) => {
    const edge = { id: newId('edge'), source: c.source, sourceHandle: c.sourceHandle ?? '', target: c.target, targetHandle: c.targetHandle ?? '' };
    const problems = edgeProblems(catalog, toGraph(nodes, edges), edge);
    if (problems.length) {
      setMessage({ kind: 'error', text: `Connection refused: ${problems.join('; ')}` });
      return;
    }
    remember();
    setEdges((es) => [...es, flowEdge(edge)]);
    setMessage(null);
  }, [catalog, nodes, edges, remember]);

  const addNode = useCallback((item: PaletteItem, at?: { x: number; y: number }) => {
    if (readOnly) return;
    const model = catalog.byType.get(item.nodeType);
    if (!model) return;
    if (nodes.length >= 100) {
      setMessage({ kind: 'error', text: 'a workflow has at most 100 nodes' });
      return;
    }
    let position = at;
    if (!position) {
      // Click to add: below the nodes of the right-most model column (clear of their measured height).
      const cols = nodes.filter((n) => n.type === 'model').map((n) => n.position.x);
      const x = cols.length ? Math.max(...cols) : positionFor(1, 0).x;
      const column = nodes.filter((n) => Math.abs(n.position.x - x) < 240);
      const bottom = column.length ? Math.max(...column.map((n) => n.position.y + (n.measured?.height ?? 180))) + 40 : positionFor(1, 0).y;
      position = { x, y: Math.round(bottom) };
    }
    const g = {
      id: newId('node'), type: model.nodeType, subModelId: model.multiMode ? (item.subModelId ?? model.defaultSubModelId) : null,
      label: model.name, position, data: {},
    };
    remember();
    setNodes((ns) => [...ns.map((n) => ({ ...n, selected: false })), { ...flowNode(g, false), selected: true }]);
    setMessage({ kind: 'info', text: `Added ${model.name}.` });
  }, [catalog, nodes, readOnly, remember]);

  const onDrop = useCallback((e: React.DragEvent) => {
    const raw = e.dataTransfer.getData(DRAG_TYPE);
    if (!raw) return;
    e.preventDefault();
    const item = JSON.parse(raw) as PaletteItem;
    const p = flow.screenToFlowPosition({ x: e.clientX, y: e.clientY });
    addNode(item, { x: Math.round(p.x - 40), y: Math.round(p.y - 20) });
  }, [flow, addNode]);

  const patchNode = useCallback((nodeId: string, p: NodePatch, coalesce?: string) => {
    remember(coalesce);
    setNodes((ns) => ns.map((n) => {
      if (n.id !== nodeId) return n;
      const g = { ...n.data.g, ...(p.label !== undefined ? { label: p.label } : {}), ...(p.subModelId !== undefined ? { subModelId: p.subModelId } : {}), ...(p.data ? { data: p.data } : {}) };
      return { ...n, data: { g } };
    }));
    // Edges whose ports the change removed (a Request field deleted, another mode picked) go with them.
    setEdges((es) => {
      const nextNodes = nodes.map((n) => (n.id === nodeId ? { ...n.data.g, ...p, data: p.data ?? n.data.g.data } : n.data.g));
      const node = nextNodes.find((n) => n.id === nodeId)!;
      const ports = catalog.ports(node as never);
      const ins = new Set(ports.inputs.map((x) => x.handle));
      const outs = new Set(ports.outputs.map((x) => x.handle));
      return es.filter((e) => (e.target !== nodeId || ins.has(e.targetHandle ?? '')) && (e.source !== nodeId || outs.has(e.sourceHandle ?? '')));
    });
  }, [catalog, nodes, remember]);

  const layout = useCallback(() => {
    remember();
    setNodes((ns) => autoLayout(ns, edges));
    requestAnimationFrame(() => flow.fitView({ padding: 0.15, duration: 200 }));
  }, [edges, flow, remember]);

  // --- estimate --------------------------------------------------------------------------------
  const priced = JSON.stringify(graph.nodes.map((n) => [n.id, n.type, n.subModelId, n.data]));
  useEffect(() => {
    const ctl = new AbortController();
    const t = setTimeout(async () => {
      try {
        const r = await call<{ totalMicrocredits: number; estimates: Array<{ microcredits: number }> }>('POST', '/editor/estimate', {
          nodes: graph.nodes.map((n) => ({ type: n.type, subModelId: n.subModelId, data: n.type === 'request' ? {} : n.data })),
        });
        if (ctl.signal.aborted) return;
        setEstimate({ total: r.totalMicrocredits, perNode: new Map(graph.nodes.map((n, i) => [n.id, r.estimates[i]?.microcredits ?? 0])) });
      } catch (err) {
        if (!ctl.signal.aborted) setEstimate((e) => ({ ...e, total: null, error: (err as Error).message }));
      }
    }, 250);
    return () => { ctl.abort(); clearTimeout(t); };
  }, [priced]);

  // --- save ------------------------------------------------------------------------------------
  const save = useCallback(async (opts: { navigate?: boolean } = {}): Promise<string | null> => {
    const problems = graphProblems(catalog, graph);
    if (problems.length) {
      const p = problems[0]!;
      setMessage({ kind: 'error', text: `Not saved: ${p.nodeId === '*' ? 'workflow' : `node ${p.nodeId}`}${p.port ? ` port ${p.port}` : ''}: ${p.message}` });
      return null;
    }
    setSaving(true);
    try {
      const body = { name: name.trim() || 'Untitled workflow', nodes: graph.nodes, edges: graph.edges };
      if (!workflowId) {
        const created = await call<WorkflowView>('POST', '/editor/workflows', body);
        setSavedJson(JSON.stringify({ g: graph, name }));
        if (opts.navigate !== false) location.assign(`/workflows/${created.id}/edit?saved=1`);
        return created.id;
      }
      await call<WorkflowView>('PUT', `/editor/workflows/${workflowId}`, body);
      setSavedJson(JSON.stringify({ g: graph, name }));
      setMessage({ kind: 'success', text: 'Saved.' });
      return workflowId;
    } catch (err) {
      setMessage({ kind: 'error', text: `Not saved: ${(err as Error).message}` });
      return null;
    } finally {
      setSaving(false);
    }
  }, [catalog, graph, name, workflowId]);

  const duplicate = useCallback(async () => {
    try {
      const copy = await call<{ id: string }>('POST', `/editor/workflows/${wf!.id}/duplicate`);
      location.assign(`/workflows/${copy.id}/edit`);
    } catch (err) {
      setMessage({ kind: 'error', text: (err as Error).message });
    }
  }, [wf]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's' && !readOnly) { e.preventDefault(); void save(); }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [save, readOnly]);

  useEffect(() => {
    const warn = (e: BeforeUnloadEvent) => { if (dirty && !readOnly && !saving) e.preventDefault(); };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty, readOnly, saving]);

  // --- run -------------------------------------------------------------------------------------
  const runAbort = useRef<AbortController | null>(null);
  /** Follows a run: its event stream drives the refreshes, a slow poll covers a dropped stream. */
  const followRun = useCallback(async (runId: string) => {
    runAbort.current?.abort();
    const ctl = new AbortController();
    runAbort.current = ctl;
    const refresh = async () => {
      const v = await call<RunView>('GET', `/editor/runs/${runId}`);
      if (!ctl.signal.aborted) setRun(v);
      return v;
    };
    try {
      await refresh();
      const poll = setInterval(() => void refresh().catch(() => {}), 4000);
      try {
        await followEvents(runId, () => void refresh().catch(() => {}), ctl.signal).catch(() => {});
        for (let i = 0; i < 600 && !ctl.signal.aborted; i++) {
          const v = await refresh();
          if (['COMPLETED', 'FAILED', 'CANCELED'].includes(v.status)) break;
          await new Promise((r) => setTimeout(r, 1000));
        }
      } finally {
        clearInterval(poll);
      }
    } catch (err) {
      if (!ctl.signal.aborted) setMessage({ kind: 'error', text: `Could not follow the run: ${(err as Error).message}` });
    }
  }, []);

  const startRun = useCallback(async (values: Record<string, unknown>) => {
    const isNew = !readOnly && !workflowId;
    const id = readOnly ? wf!.id : dirty || !workflowId ? await save({ navigate: false }) : workflowId;
    if (!id) return;
    try {
      const requestId = graph.nodes.find((n) => n.type === 'request')?.id;
      const created = await call<{ runId: string }>('POST', `/editor/workflows/${id}/runs`, { values: requestId ? { [requestId]: values } : {} });
      // A new workflow was just created: continue on its own page, which follows the run.
      if (isNew) return location.assign(`/workflows/${id}/edit?saved=1&run=${encodeURIComponent(created.runId)}`);
      setMessage({ kind: 'info', text: `Run ${created.runId} started.` });
      await followRun(created.runId);
    } catch (err) {
      setMessage({ kind: 'error', text: `Run not started: ${(err as Error).message}` });
    }
  }, [dirty, followRun, graph, readOnly, save, wf, workflowId]);
  useEffect(() => {
    const runId = new URLSearchParams(location.search).get('run');
    if (runId && /^run_[0-9A-Za-z]{1,40}$/.test(runId)) {
      setRunOpen(true);
      void followRun(runId);
    }
  }, [followRun]);
  useEffect(() => () => runAbort.current?.abort(), []);

  const nodeErrors = useMemo(() => {
    const m = new Map<string, string>();
    for (const nr of run?.nodeRuns ?? []) if (nr.error) m.set(nr.nodeId, typeof nr.error === 'string' ? nr.error : (nr.error as { message?: string }).message ?? JSON.stringify(nr.error));
    return m;
  }, [run]);
  const ctx: EditorContextValue = useMemo(() => ({
    catalog, estimates: estimate.perNode, nodeErrors,
    run: run ? new Map(run.nodeRuns.map((n) => [n.nodeId, n])) : null, runStatus: run?.status ?? null,
  }), [catalog, estimate.perNode, nodeErrors, run]);

  const requestNode = graph.nodes.find((n) => n.type === 'request') ?? null;

  return (
    <EditorContext.Provider value={ctx}>
      <div className="editor" data-read-only={readOnly ? 'true' : 'false'} data-dirty={dirty ? 'true' : 'false'}>
        <div className="editor-toolbar" role="toolbar" aria-label="Workflow">
          <label htmlFor="wf-name" className="visually-hidden">Workflow name</label>
          <input id="wf-name" className="wf-name" value={name} readOnly={readOnly} maxLength={200}
            onChange={(e) => { remember('name'); setName(e.target.value); }} />
          {readOnly ? (
            <>
              <span className="badge">System · read-only</span>
              <button type="button" className="button" onClick={duplicate}>Duplicate to edit</button>
            </>
          ) : (
            <button type="button" className="button" onClick={() => void save()} disabled={saving}>{saving ? 'Saving…' : workflowId ? 'Save' : 'Create'}</button>
          )}
          <button type="button" className="button ghost" onClick={() => setRunOpen(true)}>Run…</button>
          {!readOnly && <>
            <button type="button" className="button small ghost" onClick={undo} disabled={past.current.length === 0} aria-keyshortcuts="Control+Z">Undo</button>
            <button type="button" className="button small ghost" onClick={redo} disabled={future.current.length === 0} aria-keyshortcuts="Control+Shift+Z">Redo</button>
            <button type="button" className="button small ghost" onClick={layout}>Auto-layout</button>
          </>}
          <button type="button" className="button small ghost" onClick={() => flow.fitView({ padding: 0.15, duration: 200 })}>Fit</button>
          <span className="estimate" aria-live="polite" data-total={estimate.total ?? ''}>
            Estimate: {estimate.total === null ? (estimate.error ? <span className="error-text" title={estimate.error}>{estimate.error}</span> : '…') : formatMicro(estimate.total)}
          </span>
          {dirty && !readOnly && <span className="muted small">unsaved changes</span>}
          {workflowId && <a className="small" href={`/workflows/${workflowId}`}>Details</a>}
        </div>
        <div className={`editor-message${message ? ` msg-${message.kind}` : ''}`} role={message?.kind === 'error' ? 'alert' : 'status'} aria-live="polite">{message?.text ?? ''}</div>
        <div className="editor-body">
          {!readOnly && <Palette catalog={catalog} disabled={readOnly} onAdd={(item) => addNode(item)} />}
          <div className="canvas" ref={wrapper} onDragOver={(e) => { if (e.dataTransfer.types.includes(DRAG_TYPE)) { e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; } }} onDrop={onDrop}>
            <ReactFlow<FlowNode> nodes={nodes} edges={edges} nodeTypes={nodeTypes}
              onNodesChange={onNodesChange} onEdgesChange={onEdgesChange} onConnect={onConnect}
              onNodeDragStart={() => remember()}
              nodesDraggable={!readOnly} nodesConnectable={!readOnly} edgesFocusable={!readOnly} elementsSelectable
              deleteKeyCode={readOnly ? null : ['Delete', 'Backspace']} fitView fitViewOptions={{ padding: 0.15 }}
              minZoom={0.1} maxZoom={2} onlyRenderVisibleElements={false}
              defaultEdgeOptions={{ type: 'smoothstep' }} proOptions={{ hideAttribution: true }} aria-label="Workflow canvas">
              <Background gap={20} />
              <Controls showInteractive={false} />
              <MiniMap<FlowNode> pannable zoomable ariaLabel="Overview of the workflow"
                nodeColor={(n) => (n.data.g.type === 'request' ? '#059669' : n.data.g.type === 'response' ? '#d97706' : accentColor(catalog.byType.get(n.data.g.type)?.accent))} />
            </ReactFlow>
          </div>
          <div className="side">
            {runOpen && <RunPanel request={requestNode} run={run} onStart={startRun} onClose={() => setRunOpen(false)} busy={saving} />}
            <Inspector node={selected} nodes={graph.nodes} catalog={catalog} edges={edges}
              onWire={(source, sourceHandle, target, targetHandle) => onConnect({ source, sourceHandle, target, targetHandle })} types={config.requestFieldTypes} readOnly={readOnly} onPatch={patchNode} />
          </div>
        </div>
      </div>
    </EditorContext.Provider>
  );
}

async function boot() {
  const root = document.getElementById('editor-root');
  if (!root) return;
  const config = readConfig();
  setCsrf(config.csrfToken);
  try {
    const { models } = await call<{ models: CatalogModel[] }>('GET', '/editor/catalog');
    createRoot(root).render(
      <StrictMode>
        <ReactFlowProvider>
          <Editor config={config} catalog={new Catalog(models)} />
        </ReactFlowProvider>
      </StrictMode>,
    );
  } catch (err) {
    root.textContent = `The editor could not load the model catalog: ${err instanceof ApiError ? err.message : String(err)}`;
  }
}

void boot();
