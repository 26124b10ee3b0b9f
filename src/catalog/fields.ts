import type { FieldSpec } from './types.js';

type Opts = Partial<Omit<FieldSpec, 'name' | 'type' | 'dataType'>>;

const base = (name: string, type: FieldSpec['type'], dataType: FieldSpec['dataType'], description: string, o: Opts): FieldSpec => ({
  name, type, dataType, description, required: false, ...o,
});

/** Builders for model input fields, so every schema uses the same conventions (catalog/schema.ts turns them into JSON Schema). */
export const f = {
  prompt: (o: Opts = {}) => base('prompt', 'textarea', 'text', 'What to generate, in words', { required: true, maxLength: 4000, ...o }),
  text: (name: string, description: string, o: Opts = {}) => base(name, o.maxLength && o.maxLength > 200 ? 'textarea' : 'text', 'text', description, o),
  integer: (name: string, description: string, o: Opts = {}) => base(name, 'integer', 'number', description, o),
  number: (name: string, description: string, o: Opts = {}) => base(name, 'number', 'number', description, o),
  boolean: (name: string, description: string, o: Opts = {}) => base(name, 'boolean', 'boolean', description, o),
  select: (name: string, description: string, options: Array<string | number>, o: Opts = {}) =>
    base(name, 'select', 'select', description, { options, default: options[0], ...o }),
  seed: (o: Opts = {}) => base('seed', 'integer', 'number', 'Random seed: the same seed and inputs give the same output', { min: 0, max: 2_147_483_647, ...o }),
  image: (o: Opts = {}) => base('image_url', 'image', 'image', 'Input image: an https URL, a data: URL or a file URL of this service', { required: true, ...o }),
  images: (o: Opts = {}) => base('image_urls', 'images', 'image', 'Input images (URLs)', { required: true, minItems: 1, maxItems: 16, ...o }),
  audio: (o: Opts = {}) => base('audio_url', 'audio', 'audio', 'Input audio: an https URL, a data: URL or a file URL of this service', { required: true, ...o }),
  video: (o: Opts = {}) => base('video_url', 'video', 'video', 'Input video: an https URL, a data: URL or a file URL of this service', { required: true, ...o }),
  videos: (o: Opts = {}) => base('video_urls', 'videos', 'video', 'Input videos (URLs)', { required: true, minItems: 1, maxItems: 16, ...o }),
  duration: (o: Opts = {}) => base('duration', 'number', 'number', 'Length in seconds', { min: 1, max: 60, default: 5, ...o }),
  color: (name: string, description: string, o: Opts = {}) =>
    base(name, 'color', 'text', description, { schema: { pattern: '^#[0-9a-fA-F]{6}$' }, ...o }),
  json: (name: string, description: string, o: Opts = {}) => base(name, 'json', 'any', description, o),
};
