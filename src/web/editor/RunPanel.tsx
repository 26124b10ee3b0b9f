import { useState } from 'react';
import type { GraphNode, RequestField } from '../../workflows/types.js';
import type { RunView } from './api.js';
import { formatMicro } from './graph.js';
import { MediaInput } from './Inspector.js';

/** Run: a form of the Request fields (defaults filled in), then the run's status, cost per node and total. */
export function RunPanel({ request, run, onStart, onClose, busy }: {
  request: GraphNode | null; run: RunView | null; busy: boolean;
  onStart: (values: Record<string, unknown>) => void; onClose: () => void;
}) {
  const fields = (Array.isArray(request?.data.fields) ? request!.data.fields : []) as RequestField[];
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(fields.map((f) => [f.id, f.value === undefined ? '' : String(f.value)])));
  const terminal = run && ['COMPLETED', 'FAILED', 'CANCELED'].includes(run.status);
  return (
    <section className="run-panel" aria-labelledby="run-title">
      <div className="panel-head">
        <h2 id="run-title" className="panel-title">Run</h2>
        <button type="button" className="button small ghost" onClick={onClose} aria-label="Close the run panel">Close</button>
      </div>
      <form onSubmit={(e) => {
        e.preventDefault();
        const out: Record<string, unknown> = {};
        for (const f of fields) {
          const v = values[f.id] ?? '';
          if (v === '') continue;
          out[f.id] = f.type === 'number' ? Number(v) : f.type === 'boolean' ? v === 'true' : v;
        }
        onStart(out);
      }}>
        {fields.map((f) => (
          <div className="form-field" key={f.id}>
            <label htmlFor={`run-${f.id}`}>{f.name} <span className="muted small">({f.type})</span></label>
            {f.type === 'text' || f.type === 'any'
              ? <textarea id={`run-${f.id}`} rows={2} value={values[f.id] ?? ''} onChange={(e) => setValues({ ...values, [f.id]: e.target.value })} />
              : f.type === 'boolean'
                ? <select id={`run-${f.id}`} value={values[f.id] ?? ''} onChange={(e) => setValues({ ...values, [f.id]: e.target.value })}><option value="">—</option><option value="true">true</option><option value="false">false</option></select>
                : f.type === 'number'
                  ? <input id={`run-${f.id}`} type="number" value={values[f.id] ?? ''} onChange={(e) => setValues({ ...values, [f.id]: e.target.value })} />
                  : <MediaInput id={`run-${f.id}`} value={values[f.id] ?? ''} readOnly={false} accept={f.type === 'file' ? '*/*' : `${f.type}/*`}
                      onChange={(v) => setValues({ ...values, [f.id]: v ?? '' })} />}
          </div>
        ))}
        <button type="submit" className="button" disabled={busy || (run !== null && !terminal)}>{run && !terminal ? 'Running…' : 'Start run'}</button>
      </form>
      {run && (
        <div className="run-status" aria-live="polite">
          <p>
            <a href={`/runs/${run.id}`}><code>{run.id}</code></a>{' '}
            <span className={`status-badge st-${run.status.toLowerCase()}`} data-run-status={run.status}>{run.status}</span>
          </p>
          <p className="small">Cost: <strong className="run-total">{formatMicro(run.actualCredits)}</strong> <span className="muted">(estimated {formatMicro(run.estimatedCredits)})</span></p>
          {run.error != null && <p className="error-text">{typeof run.error === 'string' ? run.error : (run.error as { message?: string }).message ?? JSON.stringify(run.error)}</p>}
        </div>
      )}
    </section>
  );
}
