import type { EngineBinding } from '../../types.js';

/**
 * Hosted models served by the OpenAI API (engines/remote/openai.ts), keyed by hosted sub-model id. The
 * hosted option values are capitalised ("High", "Auto", "PNG"); OpenAI takes them in lower case.
 */
const IMAGE_VALUES = {
  quality: { High: 'high', Medium: 'medium', Low: 'low', XHigh: 'xhigh', Max: 'max' },
  size: { Auto: 'auto' },
  background: { Auto: 'auto', Opaque: 'opaque', Transparent: 'transparent' },
  output_format: { PNG: 'png', JPEG: 'jpeg', WebP: 'webp' },
};
const image = (operation: 'image' | 'image-edit', model: string): EngineBinding => ({
  engine: 'openai',
  options: {
    operation, model, valueMap: IMAGE_VALUES,
    // "Custom" sends the width and height fields as OpenAI's "WxH" size.
    sizeFrom: { when: 'Custom', width: 'width', height: 'height' },
    passThrough: ['background', 'output_format', 'output_compression'],
    imageFields: ['uploadedImages'],
  },
});

export const bindings: Record<string, EngineBinding> = {
  'openai-tts': { engine: 'openai', options: { operation: 'speech', model: 'gpt-4o-mini-tts' } },
  'gpt-image-2-text': image('image', 'gpt-image-2'),
  'gpt-image-2-edit': image('image-edit', 'gpt-image-2'),
  'gpt-image-2.5-flare-text': image('image', 'gpt-image-2.5-flare'),
  'gpt-image-2.5-flare-edit': image('image-edit', 'gpt-image-2.5-flare'),
  'gpt-image-2.5-sunburst-text': image('image', 'gpt-image-2.5-sunburst'),
  'gpt-image-2.5-sunburst-edit': image('image-edit', 'gpt-image-2.5-sunburst'),
};
