import { useEffect, useMemo, useState } from 'react';
import { call, type SearchEntry, type SearchResult } from './api.js';
import type { Catalog } from './graph.js';

export const DRAG_TYPE = 'application/x-atelier-model';
export interface PaletteItem {
  nodeType: string;
  subModelId?: string;
}

const CATEGORY_NAMES: Record<string, string> = { image: 'Image', video: 'Video', audio: 'Audio', llm: 'Text (LLM)', utility: 'Utility' };

/**
 * The model palette: every model grouped by category, or the results of the same search as
 * /v1/models/search grouped by its fine categories. Each entry is a button (Enter or click adds the model
 * to the canvas) and draggable onto the canvas; models that cannot run on this server are marked.
 */
export function Palette({ catalog, onAdd, disabled }: { catalog: Catalog; onAdd: (item: PaletteItem) => void; disabled: boolean }) {
  const [query, setQuery] = useState('');
  const [result, setResult] = useState<SearchResult | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const q = query.trim();
    if (!q) {
      setResult(null);
      return;
    }
    const t = setTimeout(() => {
      call<SearchResult>('GET', `/editor/models/search?query=${encodeURIComponent(q)}`).then((r) => { setResult(r); setError(null); }, (e: Error) => setError(e.message));
    }, 200);
    return () => clearTimeout(t);
  }, [query]);

  const groups = useMemo((): Array<[string, SearchEntry[]]> => {
    if (result?.modelCatalog) return Object.entries(result.modelCatalog);
    if (result?.noMatch) return [];
    const byCat = new Map<string, SearchEntry[]>();
    for (const m of catalog.models.filter((x) => !x.deprecated)) {
      for (const mode of m.modes) {
        const list = byCat.get(m.category) ?? byCat.set(m.category, []).get(m.category)!;
        list.push({ modelId: m.multiMode ? mode.subModelId : m.nodeType, nodeType: m.nodeType, ...(m.multiMode ? { subModelId: mode.subModelId } : {}), defaultSubModelId: m.defaultSubModelId, name: m.multiMode ? `${m.name} — ${mode.label}` : m.name, description: mode.description, available: m.available && mode.available });
      }
    }
    return [...byCat.entries()].map(([k, v]) => [CATEGORY_NAMES[k] ?? k, v]);
  }, [catalog, result]);

  return (
    <aside className="palette" aria-label="Models">
      <label htmlFor="palette-search" className="palette-label">Add a model</label>
      <input id="palette-search" type="search" placeholder="Search: tts, upscale, image…" value={query} onChange={(e) => setQuery(e.target.value)} autoComplete="off" />
      {error && <p className="error-text" role="alert">{error}</p>}
      {result?.noMatch && <p className="muted small" role="status">{result.noMatch}</p>}
      <div className="palette-groups">
        {groups.map(([group, entries]) => (
          <details key={group} open className="palette-group">
            <summary>{group} <span className="muted">({entries.length})</span></summary>
            <ul>
              {entries.map((e) => (
                <li key={e.modelId}>
                  <button type="button" className={`palette-item${e.available ? '' : ' unavailable'}`} draggable={!disabled} disabled={disabled}
                    data-node-type={e.nodeType} data-model-id={e.modelId}
                    title={`${e.description}${e.available ? '' : ' (unavailable on this server)'}`}
                    aria-label={`Add ${e.name}${e.available ? '' : ', unavailable on this server'}`}
                    onClick={() => onAdd({ nodeType: e.nodeType, subModelId: e.subModelId })}
                    onDragStart={(ev) => {
                      ev.dataTransfer.setData(DRAG_TYPE, JSON.stringify({ nodeType: e.nodeType, subModelId: e.subModelId }));
                      ev.dataTransfer.effectAllowed = 'copy';
                    }}>
                    <span className="palette-name">{e.name}</span>
                    {!e.available && <span className="badge warn">unavailable</span>}
                  </button>
                </li>
              ))}
            </ul>
          </details>
        ))}
      </div>
    </aside>
  );
}
