import { memo, useContext } from 'react';
import { Handle, Position, type NodeProps } from '@xyflow/react';
import type { Port } from '../../workflows/ports.js';
import { EditorContext } from './context.js';
import { accentColor, formatMicro, type FlowNode } from './graph.js';

function PortRow({ port, kind }: { port: Port; kind: 'in' | 'out' }) {
  return (
    <div className={`port port-${kind}`} data-handle={port.handle}>
      <Handle type={kind === 'in' ? 'target' : 'source'} position={kind === 'in' ? Position.Left : Position.Right} id={port.handle} className={`handle type-${port.dataType}`} />
      <span className="port-name">{port.handle}</span>
      <span className="port-type">{port.dataType}{port.many ? '[]' : ''}</span>
    </div>
  );
}

function OutputPreview({ value, type }: { value: unknown; type: string | undefined }) {
  const items = Array.isArray(value) ? value : [value];
  return (
    <>
      {items.slice(0, 4).map((v, i) => {
        if (typeof v === 'string' && /^(https?:|\/)/.test(v)) {
          if (type === 'audio') return <audio key={i} controls preload="none" src={v} className="out-audio" />;
          if (type === 'video' || type === 'avmedia') return <video key={i} controls preload="none" src={v} className="out-video" />;
          if (type === 'image') return <img key={i} src={v} alt="node output" className="out-image" />;
          return <a key={i} href={v} target="_blank" rel="noreferrer">file</a>;
        }
        const text = typeof v === 'string' ? v : JSON.stringify(v);
        return <p key={i} className="out-text">{text.length > 300 ? `${text.slice(0, 300)}…` : text}</p>;
      })}
    </>
  );
}

/** A workflow node on the canvas: label, model, typed ports, price, and during a run its status, cost and output. */
export const NodeView = memo(function NodeView({ data, selected }: NodeProps<FlowNode>) {
  const ctx = useContext(EditorContext)!;
  const g = data.g;
  const model = ctx.catalog.byType.get(g.type);
  const mode = ctx.catalog.mode(g);
  const ports = ctx.catalog.ports(g);
  const nr = ctx.run?.get(g.id);
  const builtIn = g.type === 'request' || g.type === 'response';
  const status = nr?.status ?? (ctx.run && builtIn ? (g.type === 'request' ? 'COMPLETED' : ctx.runStatus) : ctx.run ? 'PENDING' : null);
  const estimate = ctx.estimates.get(g.id);
  const error = ctx.nodeErrors.get(g.id);
  const outTypes = new Map((mode?.outputs ?? []).map((o) => [o.name, o.dataType]));
  return (
    <div className={`wf-node kind-${builtIn ? g.type : 'model'}${selected ? ' selected' : ''}${status ? ` status-${status.toLowerCase()}` : ''}${error ? ' has-error' : ''}`}
      data-node-id={g.id} data-type={g.type} data-status={status ?? ''} data-cached={nr?.cached ? 'true' : 'false'}>
      <div className="wf-node-head" style={model ? { borderTopColor: accentColor(model.accent) } : undefined}>
        <strong className="wf-node-label">{g.label ?? model?.name ?? g.type}</strong>
        <span className="wf-node-type">{builtIn ? (g.type === 'request' ? 'inputs of a run' : 'what the run returns') : `${g.type}${model?.multiMode && mode ? ` · ${mode.label}` : ''}`}</span>
        {model && !model.available && <span className="badge warn" title={model.unavailableReason}>unavailable</span>}
      </div>
      <div className="wf-node-ports">
        <div className="ports-in">{ports.inputs.map((p) => <PortRow key={p.handle} port={p} kind="in" />)}</div>
        <div className="ports-out">{ports.outputs.map((p) => <PortRow key={p.handle} port={p} kind="out" />)}</div>
      </div>
      <div className="wf-node-foot">
        {status && <span className={`status-badge st-${status.toLowerCase()}`}>{status}</span>}
        {nr?.cached && <span className="badge cached" title="Served from the node cache">cached</span>}
        {!builtIn && (nr ? <span className="cost" title="Charged for this node">{formatMicro(nr.actualCredits)}</span>
          : estimate !== undefined && <span className="price" title="Estimated price">≈ {formatMicro(estimate)}</span>)}
      </div>
      {error && <p className="wf-node-error" role="note">{error}</p>}
      {nr?.output && (
        <div className="wf-node-output" aria-label={`Output of ${g.label ?? g.type}`}>
          {Object.entries(nr.output).map(([k, v]) => <OutputPreview key={k} value={v} type={outTypes.get(k)} />)}
        </div>
      )}
    </div>
  );
});
