/**
 * Which engines share a pool of engine child processes (execution/pools.ts): one family's children load the
 * same libraries and models, so a warm child serves any engine of its family. It is a fact about the
 * engines, so it lives with them and execution/ reads it (issue 27: execution/ names no engine or run kind).
 * Engines not listed get a pool of their own.
 */
const FAMILIES: Array<[RegExp, string]> = [
  [/^(text-template|json-extract|text-split|text-join|markdown-html|word-count)$/, 'text'],
  [/^(esrgan|human-objects|human-faces|nsfwjs|describe-image)$/, 'tfjs'],
  [/^(imgly-background-removal|paddle-ocr)$/, 'onnx'],
  [/^(image-|poster-render$|qr-code$|pattern-art$)/, 'image'],
  [/^video-/, 'video'],
  [/^(audio-|espeak$|flite$|festival$|sfxr$)/, 'audio'],
  [/^(openai|fal|replicate|comfyui)$/, 'remote'],
];

export function familyOf(engineId: string): string {
  for (const [re, family] of FAMILIES) if (re.test(engineId)) return family;
  return engineId;
}

