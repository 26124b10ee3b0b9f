import { useState } from 'react';
import type { Edge } from '@xyflow/react';
import type { FieldSpec } from '../../catalog/types.js';
import { hostedDataType, hostedType } from '../../catalog/hostedFields.js';
import type { GraphNode, RequestField } from '../../workflows/types.js';
import { upload } from './api.js';
import type { Catalog } from './graph.js';

export type NodePatch = { label?: string | null; subModelId?: string | null; data?: Record<string, unknown> };

const idOf = (name: string) => name.trim().toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 60) || 'field';

function shown(field: FieldSpec, values: Record<string, unknown>, fields: FieldSpec[]): boolean {
  if (!field.showWhen) return true;
  return Object.entries(field.showWhen).every(([name, allowed]) => {
    const v = name in values ? values[name] : fields.find((f) => f.name === name)?.default;
    return allowed.includes(v);
  });
}

export function MediaInput({ id, value, onChange, accept, readOnly }: { id: string; value: string; onChange: (v: string | undefined) => void; accept: string; readOnly: boolean }) {
  const [busy, setBusy] = useState<string | null>(null);
  return (
    <div className="media-input">
      <input id={id} type="url" placeholder="https://… or upload" value={value} readOnly={readOnly} onChange={(e) => onChange(e.target.value || undefined)} />
      {!readOnly && (
        <label className="button small ghost upload">
          Upload
          <input type="file" accept={accept} className="visually-hidden" onChange={async (e) => {
            const file = e.target.files?.[0];
            if (!file) return;
            setBusy('Uploading…');
            try {
              onChange(await upload(file));
              setBusy(null);
            } catch (err) {
              setBusy((err as Error).message);
            }
          }} />
        </label>
      )}
      {busy && <span className="muted small" role="status">{busy}</span>}
    </div>
  );
}

/** A list of media URLs (hosted `dataType: "string[]"`): one per line, and uploads add to the list. */
function MediaListInput({ id, value, onChange, accept, readOnly }: { id: string; value: unknown; onChange: (v: unknown) => void; accept: string; readOnly: boolean }) {
  const urls = Array.isArray(value) ? value.map(String) : [];
  const [busy, setBusy] = useState<string | null>(null);
  return (
    <div className="media-input media-list">
      <textarea id={id} rows={3} placeholder="One URL per line" readOnly={readOnly} value={urls.join('\n')}
        onChange={(e) => { const next = e.target.value.split('\n').map((x) => x.trim()).filter(Boolean); onChange(next.length ? next : undefined); }} />
      {!readOnly && (
        <label className="button small ghost upload">
          Add file
          <input type="file" accept={accept} className="visually-hidden" onChange={async (e) => {
            const file = e.target.files?.[0];
            if (!file) return;
            setBusy('Uploading…');
            try {
              onChange([...urls, await upload(file)]);
              setBusy(null);
            } catch (err) {
              setBusy((err as Error).message);
            }
          }} />
        </label>
      )}
      {busy && <span className="muted small" role="status">{busy}</span>}
    </div>
  );
}

/**
 * One input of a model, its widget chosen by the field's hosted UI kind and wire type
 * (catalog/hostedFields.ts, the vocabulary schema and catalog answers speak): slider, toggle, select,
 * multi-select, media (one, or a `string[]` list), text, textarea, number, JSON.
 */
function FieldInput({ field, value, onChange, readOnly, nodeId }: { field: FieldSpec; value: unknown; onChange: (v: unknown) => void; readOnly: boolean; nodeId: string }) {
  const id = `f-${nodeId}-${field.name}`;
  const text = value === undefined || value === null ? '' : String(value);
  const placeholder = field.placeholder ?? (field.default !== undefined ? `default: ${JSON.stringify(field.default)}` : '');
  const kind = hostedType(field);
  const wire = hostedDataType(field);
  const integer = field.type === 'integer' || field.schema?.type === 'integer';
  let control;
  if (field.type === 'color') {
    control = <input id={id} type="color" value={text || String(field.default ?? '#000000')} disabled={readOnly} onChange={(e) => onChange(e.target.value)} />;
  } else if (['image', 'video', 'audio', 'file', 'avmedia'].includes(kind)) {
    const accept = kind === 'file' ? field.accept ?? '*/*' : kind === 'avmedia' ? 'audio/*,video/*' : `${kind}/*`;
    control = wire === 'string[]'
      ? <MediaListInput id={id} value={value} readOnly={readOnly} accept={accept} onChange={onChange} />
      : <MediaInput id={id} value={text} readOnly={readOnly} accept={accept} onChange={onChange} />;
  } else {
    switch (kind) {
      case 'textarea':
        control = <textarea id={id} rows={3} value={text} placeholder={placeholder} maxLength={field.maxLength} readOnly={readOnly} onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)} />;
        break;
      case 'slider': {
        const shownValue = typeof value === 'number' ? value : typeof field.default === 'number' ? field.default : field.min ?? 0;
        control = (
          <span className="slider-input">
            <input id={id} type="range" min={field.min} max={field.max} step={field.step ?? (integer ? 1 : 'any')} value={shownValue} disabled={readOnly}
              onChange={(e) => onChange(Number.isNaN(e.target.valueAsNumber) ? undefined : e.target.valueAsNumber)} />
            <output htmlFor={id} className={value === undefined ? 'muted' : undefined}>{String(shownValue)}{value === undefined ? ' (default)' : ''}</output>
          </span>
        );
        break;
      }
      case 'number':
        control = <input id={id} type="number" value={text} placeholder={placeholder} min={field.min} max={field.max} step={field.step ?? (integer ? 1 : 'any')} readOnly={readOnly}
          onChange={(e) => onChange(e.target.value === '' || Number.isNaN(e.target.valueAsNumber) ? undefined : e.target.valueAsNumber)} />;
        break;
      case 'toggle':
        control = <input id={id} type="checkbox" role="switch" checked={value === undefined ? field.default === true : value === true} disabled={readOnly} onChange={(e) => onChange(e.target.checked)} />;
        break;
      case 'select':
      case 'composite-select':
      case 'custom-select':
        control = (
          <select id={id} value={text} disabled={readOnly} onChange={(e) => {
            const opt = field.options?.find((o) => String(o) === e.target.value);
            onChange(e.target.value === '' ? undefined : opt);
          }}>
            <option value="">{field.default !== undefined ? `default (${String(field.default)})` : '—'}</option>
            {(field.options ?? []).map((o) => <option key={String(o)} value={String(o)}>{String(o)}</option>)}
          </select>
        );
        break;
      case 'multi-select':
        control = (
          <select id={id} multiple value={Array.isArray(value) ? value.map(String) : []} disabled={readOnly} onChange={(e) => {
            const chosen = [...e.target.selectedOptions].map((o) => field.options?.find((x) => String(x) === o.value));
            onChange(chosen.length ? chosen : undefined);
          }}>
            {(field.options ?? []).map((o) => <option key={String(o)} value={String(o)}>{String(o)}</option>)}
          </select>
        );
        break;
      case 'array_of_text':
        control = <textarea id={id} rows={3} placeholder="One entry per line" readOnly={readOnly} value={Array.isArray(value) ? value.join('\n') : ''}
          onChange={(e) => {
            const items = e.target.value.split('\n').map((x) => x.trim()).filter(Boolean);
            onChange(items.length ? (wire === 'number[]' ? items.map(Number) : items) : undefined);
          }} />;
        break;
      case 'json':
      case 'array_of_objects':
        control = <JsonInput id={id} value={value} readOnly={readOnly} onChange={onChange} />;
        break;
      default:
        control = <input id={id} type="text" value={text} placeholder={placeholder} maxLength={field.maxLength} readOnly={readOnly} onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)} />;
    }
  }
  return (
    <div className={`form-field field-${kind}`} data-field={field.name} data-type={kind} data-data-type={wire}>
      <label htmlFor={id}>{field.label ?? field.name}{field.required && <span aria-label="required"> *</span>}
        {(field.min !== undefined || field.max !== undefined) && <span className="muted small"> ({field.min ?? '…'} – {field.max ?? '…'})</span>}
      </label>
      {control}
      {field.description && <p className="hint">{field.description}</p>}
    </div>
  );
}

function JsonInput({ id, value, onChange, readOnly }: { id: string; value: unknown; onChange: (v: unknown) => void; readOnly: boolean }) {
  const [text, setText] = useState(value === undefined ? '' : JSON.stringify(value, null, 2));
  const [bad, setBad] = useState(false);
  return (
    <>
      <textarea id={id} rows={4} value={text} readOnly={readOnly} aria-invalid={bad} onChange={(e) => {
        setText(e.target.value);
        if (e.target.value.trim() === '') { setBad(false); onChange(undefined); return; }
        try { onChange(JSON.parse(e.target.value)); setBad(false); } catch { setBad(true); }
      }} />
      {bad && <p className="error-text">Not valid JSON yet.</p>}
    </>
  );
}

function RequestFields({ node, types, onPatch, readOnly }: { node: GraphNode; types: string[]; onPatch: (p: NodePatch, coalesce?: string) => void; readOnly: boolean }) {
  const fields = (Array.isArray(node.data.fields) ? node.data.fields : []) as RequestField[];
  const set = (next: RequestField[], coalesce?: string) => onPatch({ data: { ...node.data, fields: next } }, coalesce);
  return (
    <fieldset className="request-fields">
      <legend>Request fields</legend>
      {fields.length === 0 && <p className="muted small">No fields: the run takes no values.</p>}
      {fields.map((f, i) => (
        <div key={f.id} className="request-field" data-field-id={f.id}>
          <div className="form-field">
            <label htmlFor={`rf-name-${f.id}`}>Name <code className="muted">{f.id}</code></label>
            <input id={`rf-name-${f.id}`} value={f.name} readOnly={readOnly} maxLength={100} onChange={(e) => set(fields.map((x, j) => (j === i ? { ...x, name: e.target.value } : x)), `rf-name-${f.id}`)} />
          </div>
          <div className="form-field">
            <label htmlFor={`rf-type-${f.id}`}>Type</label>
            <select id={`rf-type-${f.id}`} value={f.type} disabled={readOnly} onChange={(e) => set(fields.map((x, j) => (j === i ? { ...x, type: e.target.value as RequestField['type'] } : x)))}>
              {types.map((t) => <option key={t} value={t}>{t}</option>)}
            </select>
          </div>
          <div className="form-field">
            <label htmlFor={`rf-value-${f.id}`}>Default</label>
            <input id={`rf-value-${f.id}`} value={f.value === undefined ? '' : String(f.value)} readOnly={readOnly}
              type={f.type === 'number' ? 'number' : 'text'}
              onChange={(e) => {
                const raw = e.target.value;
                const v = raw === '' ? undefined : f.type === 'number' ? Number(raw) : f.type === 'boolean' ? raw === 'true' : raw;
                set(fields.map((x, j) => {
                  if (j !== i) return x;
                  const { value: _old, ...rest } = x;
                  return v === undefined || (typeof v === 'number' && Number.isNaN(v)) ? rest : { ...rest, value: v };
                }), `rf-value-${f.id}`);
              }} />
          </div>
          {!readOnly && <button type="button" className="button small ghost" onClick={() => set(fields.filter((_, j) => j !== i))} aria-label={`Remove field ${f.name}`}>Remove</button>}
        </div>
      ))}
      {!readOnly && (
        <button type="button" className="button small" onClick={() => {
          const used = new Set(fields.map((f) => f.id));
          let id = idOf(`field ${fields.length + 1}`);
          for (let n = 2; used.has(id); n++) id = `${idOf('field')}_${n}`;
          set([...fields, { id, name: id, type: 'text' }]);
        }}>Add field</button>
      )}
    </fieldset>
  );
}

/** The form of the selected node: label, mode, and its inputs (an input fed by an edge is shown as such). */
/**
 * Wiring without a mouse: the outputs of the other nodes that could feed this input, as a select. Picking
 * one goes through the same check as drawing the edge on the canvas.
 */
function WireSelect({ node, handle, nodes, catalog, onWire, label }: { node: GraphNode; handle: string; nodes: GraphNode[]; catalog: Catalog; onWire: (source: string, sourceHandle: string, targetHandle: string) => void; label: string }) {
  const options = nodes.filter((n) => n.id !== node.id).flatMap((n) => catalog.ports(n).outputs.map((p) => ({ value: `${n.id}\u0000${p.handle}`, text: `${n.label ?? n.type} · ${p.handle} (${p.dataType})` })));
  if (options.length === 0) return null;
  const id = `wire-${node.id}-${handle}`;
  return (
    <div className="wire-select">
      <label htmlFor={id} className="visually-hidden">Wire {label} from</label>
      <select id={id} value="" onChange={(e) => {
        const [source, sourceHandle] = e.target.value.split('\u0000');
        if (source && sourceHandle) onWire(source, sourceHandle, handle);
      }}>
        <option value="">Wire from…</option>
        {options.map((o) => <option key={o.value} value={o.value}>{o.text}</option>)}
      </select>
    </div>
  );
}

export function Inspector({ node, nodes, catalog, edges, types, readOnly, onPatch, onWire }: {
  node: GraphNode | null; nodes: GraphNode[]; catalog: Catalog; edges: Edge[]; types: string[]; readOnly: boolean;
  onPatch: (nodeId: string, p: NodePatch, coalesce?: string) => void;
  onWire: (source: string, sourceHandle: string, target: string, targetHandle: string) => void;
}) {
  if (!node) {
    return (
      <aside className="inspector" aria-label="Node settings">
        <h2 className="panel-title">Node settings</h2>
        {readOnly
          ? <p className="muted small">A system workflow: select a node to see its inputs. Duplicate it to change it.</p>
          : <p className="muted small">Select a node (click, or Tab to it) to edit its inputs. Drag from an <code>out:</code> port to an <code>in:</code> port to wire nodes, or use “Wire from…” in a node's settings; Delete removes the selection; Ctrl+Z / Ctrl+Shift+Z undo and redo; Ctrl+S saves.</p>}
      </aside>
    );
  }
  const names = new Map(nodes.map((n) => [n.id, n.label ?? catalog.byType.get(n.type)?.name ?? n.type]));
  const wire = (source: string, sourceHandle: string, targetHandle: string) => onWire(source, sourceHandle, node.id, targetHandle);
  const model = catalog.byType.get(node.type);
  const mode = catalog.mode(node);
  const patch = (p: NodePatch, coalesce?: string) => onPatch(node.id, p, coalesce);
  const wired = new Map(edges.filter((e) => e.target === node.id).map((e) => [e.targetHandle ?? '', e.source]));
  return (
    <aside className="inspector" aria-label="Node settings">
      <h2 className="panel-title">{node.label ?? model?.name ?? node.type}</h2>
      {model && <p className="muted small">{model.description}</p>}
      {model && !model.available && <p className="notice notice-info small">Unavailable on this server: {model.unavailableReason}</p>}
      <div className="form-field">
        <label htmlFor="node-label">Label</label>
        <input id="node-label" value={node.label ?? ''} readOnly={readOnly} maxLength={200} onChange={(e) => patch({ label: e.target.value === '' ? null : e.target.value }, `label-${node.id}`)} />
      </div>
      {model?.multiMode && (
        <div className="form-field">
          <label htmlFor="node-mode">Mode</label>
          <select id="node-mode" value={node.subModelId ?? ''} disabled={readOnly} onChange={(e) => patch({ subModelId: e.target.value, data: {} })}>
            {model.modes.map((m) => <option key={m.subModelId} value={m.subModelId}>{m.label}</option>)}
          </select>
        </div>
      )}
      {node.type === 'request' && <RequestFields node={node} types={types} readOnly={readOnly} onPatch={patch} />}
      {node.type === 'response' && <>
        <p className="muted small">Everything wired into <code>result</code> is what the run returns, keyed by the node it came from.</p>
        <ul className="small">{edges.filter((e) => e.target === node.id).map((e) => <li key={e.id}>{names.get(e.source) ?? e.source} · {e.sourceHandle}</li>)}</ul>
        {!readOnly && <WireSelect node={node} handle="result" label="result" nodes={nodes} catalog={catalog} onWire={wire} />}
      </>}
      {mode && (
        <fieldset className="model-inputs">
          <legend>Inputs</legend>
          {mode.fields.filter((f) => shown(f, node.data, mode.fields)).map((f) => {
            const from = wired.get(`in:${f.name}`);
            if (from) return <div key={f.name} className="form-field wired"><span className="label-like">{f.name}</span> <span className="muted small">wired from {names.get(from) ?? from}</span></div>;
            return (
              <div key={`${node.id}-${f.name}`}>
                <FieldInput field={f} nodeId={node.id} value={node.data[f.name]} readOnly={readOnly}
                  onChange={(v) => {
                    const data = { ...node.data };
                    if (v === undefined) delete data[f.name];
                    else data[f.name] = v;
                    patch({ data }, `data-${node.id}-${f.name}`);
                  }} />
                {!readOnly && <WireSelect node={node} handle={`in:${f.name}`} label={f.name} nodes={nodes} catalog={catalog} onWire={wire} />}
              </div>
            );
          })}
        </fieldset>
      )}
    </aside>
  );
}
