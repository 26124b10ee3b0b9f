import type { ModelDef } from './types.js';

/** The generic remote adapters, whose answers name files by URL without saying reliably what they are. */
const GENERIC = new Set(['fal', 'replicate', 'comfyui']);
const MEDIA = new Set(['image', 'audio', 'video']);

/**
 * Tells each generic remote binding what kind of file its mode outputs (`options.expect`: "image", "audio"
 * or "video"), so the adapter checks the bytes it downloaded before they are stored or charged (issue 28:
 * a non-image was stored and its run charged). Modes whose outputs are not one media kind are left alone;
 * a binding's own `expect` wins.
 */
export function withOutputKinds(models: ModelDef[]): ModelDef[] {
  return models.map((m) => {
    let changed = false;
    const modes = m.modes.map((mode) => {
      if (!GENERIC.has(mode.engine.engine) || mode.engine.options?.expect !== undefined) return mode;
      const kinds = new Set(mode.outputs.map((o) => String(o.dataType)));
      const [kind] = [...kinds];
      if (kinds.size !== 1 || !kind || !MEDIA.has(kind)) return mode;
      changed = true;
      return { ...mode, engine: { ...mode.engine, options: { ...mode.engine.options, expect: kind } } };
    });
    return changed ? { ...m, modes } : m;
  });
}
