import type { FileView } from '../../files/service.js';
import { html, type Html } from '../html.js';

/**
 * A run's outputs as a person wants them: images shown, audio and video playable, text as text, other
 * values as JSON. File outputs arrive as signed URLs; `files` tells each one's content type.
 */
export function outputBlocks(output: Record<string, unknown> | null, files: FileView[]): Html {
  if (!output || Object.keys(output).length === 0) return html`<p class="empty">No outputs.</p>`;
  const byUrl = new Map(files.map((f) => [f.url, f]));
  let n = 0;
  const one = (value: unknown, name: string): Html => {
    if (typeof value === 'string') {
      const file = byUrl.get(value);
      if (file) return media(file, `${name} ${++n}`);
      return html`<pre class="text-output">${value}</pre>`;
    }
    if (value === null || value === undefined) return html`<p class="muted">(expired or empty)</p>`;
    return html`<pre class="json-output">${JSON.stringify(value, null, 2)}</pre>`;
  };
  // resultMetadata repeats what each image's caption already shows (size, dimensions, type).
  return html`${Object.entries(output).filter(([name]) => name !== 'resultMetadata').map(([name, value]) => html`<section class="output">
    <h3><code>${name}</code></h3>
    <div class="output-items">${Array.isArray(value) && value.every((v) => typeof v === 'string') ? value.map((v) => one(v, name)) : one(value, name)}</div>
  </section>`)}`;
}

function media(f: FileView, alt: string): Html {
  const meta = html`<figcaption>${f.filename ?? f.id} · ${f.contentType} · ${formatBytes(f.bytes)}${f.width && f.height ? ` · ${f.width}×${f.height}` : ''}${f.durationSeconds ? ` · ${f.durationSeconds.toFixed(1)} s` : ''} · <a href="${f.url}" download>Download</a></figcaption>`;
  if (f.contentType.startsWith('image/')) return html`<figure class="media"><img src="${f.url}" alt="${alt}" loading="lazy">${meta}</figure>`;
  if (f.contentType.startsWith('audio/')) return html`<figure class="media"><audio controls preload="metadata" src="${f.url}"></audio>${meta}</figure>`;
  if (f.contentType.startsWith('video/')) return html`<figure class="media"><video controls preload="metadata" src="${f.url}"></video>${meta}</figure>`;
  return html`<figure class="media file">${meta}</figure>`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
