import { createContext } from 'react';
import type { NodeRunView } from './api.js';
import type { Catalog } from './graph.js';

/** What every canvas node reads besides its own data: the catalog, per-node estimates and the live run. */
export interface EditorContextValue {
  catalog: Catalog;
  estimates: Map<string, number>;
  nodeErrors: Map<string, string>;
  run: Map<string, NodeRunView> | null;
  runStatus: string | null;
}

export const EditorContext = createContext<EditorContextValue | null>(null);
